"""Evaluating translations end to end: their answers over scene graphs, against the oracle.

For every translated question whose image has a scene graph, the translation is solved
(top-k answers) and matched against GQA's answer at each generosity level.  The oracle is the
Python interpreter running the gold program on the same graph: a question counts as answerable
when the gold program yields the gold answer, and accuracy is reported raw and over the
answerable questions only (the seed thesis's "accuracy vs. oracle").  Every translation is
counted: one that cannot be judged (its scene or question unusable, or a failure of qlang's)
counts as wrong, with the reason, which `eval` and the experiments report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qlang import api
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary
from qlang.errors import Diagnostic, QlangError
from qlang.evaluate import lenient as thesis_reader
from qlang.evaluate.matching import Generosity, top_k_match
from qlang.pipeline import Answered, solve_program
from qlang.records.batch import attempt

LEVELS = ("strict", "generous", "generous+")
TOP_K = (1, 3, 5)


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    """How translations' answers are judged: the program read as the thesis's converter read it
    (`lenient`, `qlang.evaluate.lenient`) or strictly; `semantics`, both the theory's
    (`qlang.asp.theory.SEMANTICS`) and the oracle's (`qlang.interpret.SEMANTICS`); at each
    generosity of `levels` and each k of `top_k`."""

    lenient: bool = False
    semantics: str = "qlang"
    levels: tuple[str, ...] = LEVELS
    top_k: tuple[int, ...] = TOP_K


DEFAULT_JUDGING = JudgeOptions()
#: How the experiments judge unless told otherwise: as the thesis did.
THESIS_JUDGING = JudgeOptions(lenient=True, semantics="thesis")


@dataclass(frozen=True, slots=True)
class Judged:
    id: str
    answerable: bool
    answers: tuple[str, ...]
    gold: object
    #: (generosity, k) -> correct
    correct: dict[tuple[str, int], bool]
    #: why the translation could not be judged (its scene or question cannot be used, or qlang
    #: failed): it counts as wrong, and the evaluation reports it (a Diagnostic, which worker
    #: processes can send, unlike an exception)
    error: Diagnostic | None = None

    @classmethod
    def failed(cls, record_id: str, gold: object, why: Diagnostic, levels: Sequence[str] = LEVELS,
               top_k: Sequence[int] = TOP_K) -> Judged:
        """A translation that could not be judged: no answers, wrong at every level and k."""
        wrong = dict.fromkeys(((level, k) for level in levels for k in top_k), False)
        return cls(record_id, False, (), gold, wrong, why)

    def to_json(self) -> dict[str, Any]:
        """The answer-level fields of an experiment's log record: the k best models' answers,
        correct at each generosity and k (``correct``: strict top-1), whether the oracle answers
        the question."""
        return {"answers": list(self.answers), "answerable": self.answerable,
                "correct": self.correct[("strict", 1)],
                "answer_correct": {f"{level}@{k}": ok for (level, k), ok in self.correct.items()}}


def judge(record_id: str, program: str | None, syntax: str, question: dict[str, Any],
          scenes: SceneLibrary, options: JudgeOptions = DEFAULT_JUDGING, facts: str | None = None) -> Judged:
    """The translation's answers (the best models) and their correctness, judged as `options`
    say.  The oracle runs on the question's scene graph in `scenes`; the program is solved over
    it too, or over `facts` (a weighted scene's, say) where given.

    Every translation is judged: one that does not read, check or solve has no answers; where
    anything else fails (the scene, the question, or qlang itself), it has none either, and
    the failure is the Judged's `error`."""

    def judged() -> Judged:
        scene = scenes.facts(question["imageId"]) if facts is None else facts
        answers = _answers(program, syntax, scene, options.lenient, options.semantics, max(options.top_k))
        correct = {(level, k): top_k_match(answers, question["answer"], k, Generosity.parse(level))
                   for level in options.levels for k in options.top_k}
        return Judged(record_id, oracle(question, scenes, options.semantics), answers, question["answer"],
                      correct)

    return attempt(judged, lambda why: Judged.failed(record_id, question.get("answer"), why.diagnostics[0],
                                                     options.levels, options.top_k))


def oracle(question: dict[str, Any], scenes: SceneLibrary, semantics: str) -> bool:
    """Whether GQA's gold program gives the gold answer over the question's scene graph (raises
    where the graph cannot be read)."""
    from qlang.interpret import Scene, answerable

    return answerable(question, Scene.from_json(scenes.graph(question["imageId"])), semantics=semantics)


def _answers(program: str | None, syntax: str, scene: str, lenient: bool, semantics: str,
             top_k: int) -> tuple[str, ...]:
    """The program's k best answers over the scene's facts: none where it does not read, check
    or solve (the translation's own failure); any other failure raises."""
    if program is None:
        return ()
    try:
        found = _solved(program, syntax, scene, lenient, semantics, top_k)
    except QlangError:
        return ()
    return tuple(answer.value for answer in found.answers)


def _solved(program: str, syntax: str, scene: str, lenient: bool, semantics: str, top_k: int) -> Answered:
    """The program answered through the pipeline, checked once: read strictly and lowered as it
    is, or read leniently and lowered as the thesis did (read twice: for the program, and by
    the lenient lowering)."""
    options = SolveOptions(top_k, semantics=semantics)
    if not lenient:
        return solve_program(api.compile(program, syntax), scene, options)
    return solve_program(thesis_reader.read(program, syntax), scene, options,
                         lowered=thesis_reader.lower(program, syntax))


def table(judged: Sequence[Judged], levels: Sequence[str] = LEVELS,
          top_k: Sequence[int] = TOP_K) -> list[dict[str, object]]:
    """Accuracy per generosity level and k: raw, and over the oracle-answerable questions."""
    answerable = [j for j in judged if j.answerable]
    rows = []
    for level in levels:
        for k in top_k:
            raw = sum(j.correct[(level, k)] for j in judged)
            answered = sum(j.correct[(level, k)] for j in answerable)
            rows.append({"generosity": level, "k": k, "questions": len(judged),
                         "accuracy": raw / len(judged) if judged else 0.0,
                         "answerable": len(answerable),
                         "vs_oracle": answered / len(answerable) if answerable else 0.0})
    return rows
