"""What the page shows of an answer, as JSON: the answers best first with their costs, the
program in each syntax and who wrote it, the objects each step kept, the objects to draw, the
timings.  Plain data: the page's script lays it out, and the HTTP tests read it as it is."""

from __future__ import annotations

import math
from typing import Any

from qlang.asp.background import Background
from qlang.asp.explain import Explanation
from qlang.asp.scene import SCALE
from qlang.asp_names import from_term
from qlang.errors import QlangError
from qlang.ir import Node
from qlang.pipeline import Answered
from qlang.syntax import SYNTAXES
from qlang.timing import Stages
from qlang.translate.translator import Translation

#: The syntaxes the page shows a program in, the editor's first.
SHOWN = ("nested", "code", "flat")


def answered(result: Answered, explanation: Explanation | None, picture: dict[str, Any] | None,
             translator: str | None) -> dict[str, Any]:
    """The page's report of an answer; `translator` describes the translator (None: the
    program was given)."""
    return {
        "answers": [answer(a.value, a.cost, a.rank) for a in result.answers],
        #: the words no perceiver in use can see, where the answer would have been a blind "no"
        "cannot_tell": list(result.unseen),
        "complete": result.complete,
        "translation": None if result.translation is None else translation(result.translation, translator),
        "programs": programs(result.root),
        "steps": steps(explanation),
        "picture": picture,
        "timings": timings(result.stages),
        "seek": None,
    }


def answer(value: str, cost: tuple[int, ...], rank: int) -> dict[str, Any]:
    """An answer with its cost; on a weighted scene (a photo's) also the likelihood of the scene
    it assumes, e^(-cost/1000), since each fact costs -1000 ln p."""
    likelihood = math.exp(-sum(cost) / SCALE) if any(cost) else None
    return {"answer": value, "cost": list(cost), "rank": rank, "likelihood": likelihood}


def translation(done: Translation, translator: str | None) -> dict[str, Any]:
    """Which translator wrote the program: a cascade's part (`small`, `finetuned`) and the small
    parser's probability for its own program, where it was asked."""
    return {"question": done.question, "program": done.program, "by": done.path or translator,
            "translator": translator, "confidence": done.confidence, "seconds": done.seconds}


def programs(root: Node) -> dict[str, str]:
    """The program printed in each shown syntax; where one refuses it, why."""
    printed = {}
    for name in SHOWN:
        try:
            printed[name] = SYNTAXES[name].print(root)
        except QlangError as exc:
            printed[name] = f"({name} cannot write this program: {exc.diagnostics[0].full_message})"
    return printed


def steps(explanation: Explanation | None) -> list[dict[str, Any]]:
    """Each step of the best answer's trace, its objects by their ids in the scene."""
    if explanation is None:
        return []
    return [{**step.to_json(), "call": step.call(), "objects": [from_term(o) for o in step.objects]}
            for step in explanation.steps]


def objects(graph: Any) -> dict[str, Any] | None:
    """A scene graph's size and boxes, what the page draws and highlights (None: nothing to draw,
    a scene given as ASP facts)."""
    if not isinstance(graph, dict):
        return None
    boxes = [{"id": oid, "name": o["name"], "confidence": o.get("confidence"),
              "x": o["x"], "y": o["y"], "w": o["w"], "h": o["h"]}
             for oid, o in graph["objects"].items()]
    return {"width": graph["width"], "height": graph["height"], "objects": boxes, "drawing": None}


def background(used: Background) -> str:
    """What the server answers with besides the scene, in a line: each knowledge base's source
    (as its index records it) and the rules file, so an answer is read knowing what it used."""
    indexes = used.knowledge.indexes if used.knowledge is not None else ()
    knowledge = ", ".join(index.about.get("source", str(index.path)) for index in indexes) or "none"
    rules = "none" if used.rules is None else f"{used.rules.source.name} ({len(used.rules.rules)} rules)"
    return f"knowledge: {knowledge} · rules: {rules}"


def timings(stages: Stages) -> list[dict[str, Any]]:
    return [{"stage": stage, "seconds": seconds} for stage, seconds in stages.seconds.items()]
