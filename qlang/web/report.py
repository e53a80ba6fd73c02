"""What the page shows of an answer, as JSON: the answers best first with their costs, the
program in each syntax and who wrote it, the objects each step kept, the objects to draw, the
timings.  Plain data: the page's script lays it out, and the HTTP tests read it as it is."""

from __future__ import annotations

import math
from typing import Any

from qlang.asp.background import Background
from qlang.asp.explain import EmptyStep, Explanation
from qlang.asp.scene import SCALE
from qlang.asp_names import from_term
from qlang.errors import QlangError
from qlang.ir import Node
from qlang.pipeline import Answered
from qlang.syntax import SYNTAXES
from qlang.timing import Stages
from qlang.translate.translator import Translation
from qlang.vision.draw import PADDING, labels
from qlang.vision.perception import SeenBox
from qlang.vision.placement import Placed, place

#: The syntaxes the page shows a program in, the editor's first.
SHOWN = ("nested", "code", "flat")


def answered(result: Answered, explanation: Explanation | EmptyStep | None,
             picture: dict[str, Any] | None, translator: str | None) -> dict[str, Any]:
    """The page's report of an answer; `translator` describes the translator (None: the
    program was given)."""
    return {
        "answers": [answer(a.value, a.cost, a.rank) for a in result.answers],
        #: the words no perceiver in use can see, where the answer would have been a blind "no",
        #: and why a "no" about each is no evidence
        "cannot_tell": list(result.unseen),
        "cannot_tell_why": list(result.doubts),
        #: what the answer takes for granted ("the man is taken to be the person seen")
        "notes": list(result.notes),
        "complete": result.complete,
        "translation": None if result.translation is None else translation(result.translation, translator),
        "programs": programs(result.root),
        "steps": steps(explanation),
        "quoted": quoted(explanation),
        "empty": why_none(explanation),
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
    parser's probability for its own program, where it was asked; and the question's forms no
    program expresses and words the program cannot have meant (`qlang.translate.inexpressible`,
    `qlang.translate.unknown`)."""
    return {"question": done.question, "program": done.program, "by": done.path or translator,
            "translator": translator, "confidence": done.confidence, "seconds": done.seconds,
            "unknown": [form.message for form in done.inexpressible] + [word.message for word in done.unknown]
            + [word.kept for word in done.kept]}


def programs(root: Node) -> dict[str, str]:
    """The program printed in each shown syntax; where one refuses it, why."""
    printed = {}
    for name in SHOWN:
        try:
            printed[name] = SYNTAXES[name].print(root)
        except QlangError as exc:
            printed[name] = f"({name} cannot write this program: {exc.diagnostics[0].full_message})"
    return printed


def steps(explanation: Explanation | EmptyStep | None) -> list[dict[str, Any]]:
    """Each step of the best answer's trace, its objects by their ids in the scene; with no
    answer, the steps up to the first that kept nothing."""
    if explanation is None:
        return []
    trace = explanation.steps if isinstance(explanation, Explanation) \
        else (*explanation.before, explanation.step)
    return [{**step.to_json(), "call": step.call(), "objects": [from_term(o) for o in step.objects]}
            for step in trace]


def quoted(explanation: Explanation | EmptyStep | None) -> list[str]:
    """The documents the best answer was quoted from, the span marked [[thus]] (a text
    operation's: `qlang.asp.text_facts.quotes`)."""
    if not isinstance(explanation, Explanation):
        return []
    return [quote for step in explanation.steps for quote in step.quotes]


def why_none(explanation: Explanation | EmptyStep | None) -> dict[str, Any] | None:
    """With no answer, the first step that kept nothing: its number, call and what it lacked."""
    if not isinstance(explanation, EmptyStep):
        return None
    return {"step": explanation.step.step, "call": explanation.step.call(), "what": explanation.what}


def objects(graph: Any) -> dict[str, Any] | None:
    """A scene graph's size and boxes, what the page draws and highlights, each box's label
    placed where no other is (None: nothing to draw, a scene given as ASP facts)."""
    if not isinstance(graph, dict):
        return None
    width, height = graph["width"], graph["height"]
    found = list(graph["objects"].items())
    boxes = [SeenBox(o["x"], o["y"], o["x"] + o["w"], o["y"] + o["h"]) for _, o in found]
    size = max(LABEL_SIZE, min(width, height) // 30)
    named = [labels(o["name"], o.get("confidence"), {}, o.get("text")) for _, o in found]
    placed = place(boxes, named, width, height,
                   lambda text: (LABEL_WIDTH * size * len(text) + 2 * PADDING,
                                 LABEL_HEIGHT * size + 2 * PADDING))
    shown = [{"id": oid, "name": o["name"], "confidence": o.get("confidence"),
              "x": o["x"], "y": o["y"], "w": o["w"], "h": o["h"], "label": _label(at, size)}
             for (oid, o), at in zip(found, placed, strict=True)]
    return {"width": width, "height": height, "objects": shown, "drawing": None}


#: The labels' font size in the picture's units, at least (a thirtieth of its smaller side, as
#: `perceive --draw` writes them); a character's width and a line's height in font sizes, which
#: the page holds the text to (SVG's textLength), so the placement is what it shows.
LABEL_SIZE, LABEL_WIDTH, LABEL_HEIGHT = 11, 0.6, 1.25


def _label(placed: Placed | None, size: int) -> dict[str, Any] | None:
    if placed is None:
        return None
    at = placed.box
    return {"text": placed.text, "x": at.x0, "y": at.y0, "w": at.width, "h": at.height, "size": size,
            "padding": PADDING, "leader": None if placed.leader is None else [list(p) for p in placed.leader]}


def background(used: Background) -> str:
    """What the server answers with besides the scene, in a line: each knowledge base's source
    (as its index records it) and the rules file, so an answer is read knowing what it used."""
    indexes = used.knowledge.indexes if used.knowledge is not None else ()
    knowledge = ", ".join(index.about.get("source", str(index.path)) for index in indexes) or "none"
    rules = "none" if used.rules is None else f"{used.rules.source.name} ({len(used.rules.rules)} rules)"
    return f"knowledge: {knowledge} · rules: {rules}"


def timings(stages: Stages) -> list[dict[str, Any]]:
    return [{"stage": stage, "seconds": seconds} for stage, seconds in stages.seconds.items()]
