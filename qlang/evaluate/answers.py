"""Evaluating translations end to end: their answers over scene graphs, against the oracle.

For every translated question whose image has a scene graph, the translation is solved
(top-k answers) and matched against GQA's answer at each generosity level.  The oracle is the
Python interpreter running the gold program on the same graph: a question counts as answerable
when the gold program yields the gold answer, and accuracy is reported raw and over the
answerable questions only (the seed thesis's "accuracy vs. oracle").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qlang import api
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import QlangError
from qlang.evaluate.matching import Generosity, top_k_match
from qlang.passes import lower

LEVELS = ("strict", "generous", "generous+")
TOP_K = (1, 3, 5)


@dataclass(frozen=True, slots=True)
class Judged:
    id: str
    answerable: bool
    answers: tuple[str, ...]
    gold: str
    #: (generosity, k) -> correct
    correct: dict[tuple[str, int], bool]


def judge(record_id: str, program: str | None, syntax: str, question: dict[str, Any],
          scenes: SceneLibrary, levels: Sequence[str] = LEVELS, top_k: Sequence[int] = TOP_K,
          lenient: bool = False, semantics: str = "qlang", facts: str | None = None) -> Judged:
    """The translation's answers (the best models) and their correctness; `lenient` reads the
    program as the thesis's converter did (`qlang.evaluate.lenient`); `semantics` is both the
    theory's (`qlang.asp.solve.SEMANTICS`) and the oracle's (`qlang.interpret.SEMANTICS`).
    The oracle runs on the question's scene graph in `scenes`; the program is solved over it
    too, or over `facts` (a weighted scene's, say) where given."""
    from qlang.evaluate import lenient as thesis_reader
    from qlang.interpret import Scene, answerable

    image = question["imageId"]
    oracle = answerable(question, Scene.from_json(scenes.graph(image)), semantics=semantics)
    answers: tuple[str, ...] = ()
    if program is not None:
        try:
            if lenient:
                lowered = thesis_reader.lower(program, syntax)
            else:
                lowered = lower.facts(api.compile(program, syntax))
            found = solve(lowered, scenes.facts(image) if facts is None else facts,
                          top_k=max(top_k), semantics=semantics)
            answers = tuple(a.value for a in found.answers)
        except QlangError:
            answers = ()
    correct = {(level, k): top_k_match(answers, question["answer"], k, Generosity.parse(level))
               for level in levels for k in top_k}
    return Judged(record_id, oracle, answers, question["answer"], correct)


def table(judged: Sequence[Judged], levels: Sequence[str] = LEVELS,
          top_k: Sequence[int] = TOP_K) -> list[dict[str, object]]:
    """Accuracy per generosity level and k: raw, and over the oracle-answerable questions."""
    answerable = [j for j in judged if j.answerable]
    rows = []
    for level in levels:
        for k in top_k:
            raw = sum(j.correct[(level, k)] for j in judged)
            oracle = sum(j.correct[(level, k)] for j in answerable)
            rows.append({"generosity": level, "k": k, "questions": len(judged),
                         "accuracy": raw / len(judged) if judged else 0.0,
                         "answerable": len(answerable),
                         "vs_oracle": oracle / len(answerable) if answerable else 0.0})
    return rows
