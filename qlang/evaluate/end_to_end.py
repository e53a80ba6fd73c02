"""The seed thesis's Table 10: the translator inside the whole pipeline, against GQA's programs.

Four rows, each judged per question at every generosity and top-1/3/5:

- ``isolated``: the translation over the ground-truth scene graph (perfect information);
- ``base``: GQA's gold program over the weighted scene the visual front end made from the gold
  program's concepts;
- ``pipeline``: the translation over that same weighted scene;
- ``blind``: the translation over a weighted scene made from the translation's own concepts
  (§4.2's blind concept extraction), when such scenes are given.

A weighted-scene file (`qlang.asp.scene`'s format) holds scenes by question id — GS-VQA's are
question-specific, made for one question's concepts — or by image id; the question id wins.
"vs base" is, of the questions ``base`` answers right at top 1, the share the row answers
right too (at the same generosity): the thesis's figures are no ratio of accuracies (its
pipeline has 32.4 % to base's 38.8 %, 83.5 %, listed as 78.35 %), and this is the reading its
purpose suggests: how much of the base pipeline's success survives translation.

A line that is no usable question gets a failure record in the isolated row, and a question
whose translating or judging fails for no fault of the translation's counts as wrong with its
``failure`` (`qlang.evaluate.experiments`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qlang.errors import Diagnostic
from qlang.evaluate.answers import LEVELS, THESIS_JUDGING, TOP_K, Judged, JudgeOptions, judge
from qlang.evaluate.experiments import (
    LOG,
    Question,
    answered_program,
    failed,
    failure_record,
    failures,
    log_key,
    open_log,
)
from qlang.executors import Executor, Local
from qlang.records.batch import Progress, failure, run_batch
from qlang.records.output import Printed, printed, read_results
from qlang.translate.translator import Translates, Translation

if TYPE_CHECKING:
    from qlang.asp.scene import SceneLibrary

ROWS = ("isolated", "base", "pipeline", "blind")


@dataclass(frozen=True, slots=True)
class PipelineScenes:
    #: the ground-truth scene graphs by image id: the isolated row, and the oracle
    truth: SceneLibrary
    #: weighted scenes from the gold program's concepts: the base and pipeline rows
    weighted: SceneLibrary
    #: weighted scenes from the translation's concepts: the blind row
    blind: SceneLibrary | None = None


def run(questions: list[Question], out: Path, make_translator: Callable[[], Translates],
        scenes: PipelineScenes, syntax: str, *, judging: JudgeOptions = THESIS_JUDGING,
        progress: bool = True, executor: Executor | None = None) -> Path:
    """Translate each question once and judge every row it has scenes for, one log line per
    (row, question), resuming what the log already has, on `executor` (default: in this
    process); returns the log path."""
    kept = [q for q in questions
            if q.problem is not None or q.record.get("imageId") in scenes.truth.image_ids]
    with open_log(out) as output:
        missing = [(q, [row for row in _rows(q, scenes)
                        if output.pending(log_key({"config": row, "id": q.id}))]) for q in kept]
        todo = [(question, rows) for question, rows in missing if rows]
        run_batch(Judging(make_translator, scenes, syntax, judging), todo, output,
                  executor or Local(), batch=1, progress=Progress("pipeline", len(todo), shown=progress))
    return out / LOG


@dataclass(frozen=True)
class Judging:
    """The job of the pipeline experiment (`qlang.executors`): (question, its rows not yet
    logged) pairs in, the rows' log records out, printed; each worker makes the translator when
    it first needs it (a question with only its base row left needs none)."""

    make_translator: Callable[[], Translates]
    scenes: PipelineScenes
    syntax: str
    judging: JudgeOptions

    def setup(self) -> Callable[[list[tuple[Question, list[str]]]], list[Printed]]:
        translator = cache(self.make_translator)

        def records(question: Question, rows: list[str]) -> list[dict[str, Any]]:
            if question.problem is not None:
                return [_failed_row(question, row, question.problem) for row in rows]
            try:
                translation = translator().translate(question.text) if set(rows) - {"base"} else None
            except Exception as exc:  # its rows fail, and say why
                return [_failed_row(question, row, failure(exc).diagnostics[0]) for row in rows]
            return _judged(question, rows, translation, self.scenes, self.syntax, self.judging)

        return lambda pairs: [printed(records(question, rows)) for question, rows in pairs]


def _failed_row(question: Question, row: str, why: Diagnostic) -> dict[str, Any]:
    """The question's record in a row that failed: a failure record, counted as wrong."""
    judged = Judged.failed(str(question.id), question.record.get("answer"), why).to_json()
    return failure_record({"config": row, "id": question.id}, question, why) | {"program": None} | judged


def _rows(question: Question, scenes: PipelineScenes) -> list[str]:
    """The rows the question has scenes for (a line that is no usable question: isolated)."""
    if question.problem is not None:
        return ["isolated"]
    weighted = _scene(scenes.weighted, question.record) is not None
    blind = scenes.blind is not None and _scene(scenes.blind, question.record) is not None
    return ["isolated", *(["base", "pipeline"] if weighted else []), *(["blind"] if blind else [])]


def _judged(question: Question, rows: list[str], translation: Translation | None, scenes: PipelineScenes,
            syntax: str, judging: JudgeOptions) -> list[dict[str, Any]]:
    """The question's record in each row; a row that cannot be judged (its weighted scene
    unusable, say) fails alone."""
    record = dict(question.record) | {"id": question.id}
    raw = translation.raw[-1] if translation is not None and translation.raw else None
    translated = answered_program(translation.program if translation else None, raw, syntax, judging.lenient)
    over = {"isolated": None, "base": scenes.weighted, "pipeline": scenes.weighted,
            "blind": scenes.blind}

    def judged(row: str) -> dict[str, Any]:
        library = over[row]
        try:
            facts = None if library is None else _facts(library, record)
            if row == "base":  # the gold program, as GQA wrote it
                found = judge(str(question.id), json.dumps(record["semantic"]), "gqa", record, scenes.truth,
                              replace(judging, lenient=False), facts)
            else:
                found = judge(str(question.id), translated, syntax, record, scenes.truth, judging, facts)
        except Exception as exc:  # this row fails alone, and says why
            return _failed_row(question, row, failure(exc).diagnostics[0])
        return ({"config": row, "id": question.id, "program": translated if row != "base" else None}
                | found.to_json() | failed(found.error))

    return [judged(row) for row in rows]


def _scene(library: SceneLibrary, record: Mapping[str, Any]) -> str | None:
    """The key of the question's weighted scene: its question id, else its image id; None if
    neither (the scene is not read: a scene that cannot be fails its question only, when judged)."""
    return next((key for key in (str(record.get("id")), str(record.get("imageId")))
                 if key in library.image_ids), None)


def _facts(library: SceneLibrary, record: Mapping[str, Any]) -> str | None:
    """The question's weighted scene, encoded; None if the library has none for it."""
    key = _scene(library, record)
    return None if key is None else library.facts(key)


def table(results: list[dict[str, Any]]) -> list[str]:
    """Table 10 as Markdown: a line per row and generosity, top-1/3/5 and vs base."""
    by_row: dict[str, dict[str, dict[str, bool]]] = {}
    for result in results:
        by_row.setdefault(result["config"], {})[result["id"]] = result["answer_correct"]
    lines = ["| row | n | generosity | " + " | ".join(f"top {k}" for k in TOP_K) + " | top 1 vs base |",
             "|---|---:|---|" + "---:|" * (len(TOP_K) + 1)]
    base = by_row.get("base", {})
    for row in (r for r in ROWS if r in by_row):
        judged = by_row[row]
        for level in LEVELS:
            accuracy = [sum(c[f"{level}@{k}"] for c in judged.values()) / len(judged) for k in TOP_K]
            right = [q for q, c in base.items() if c[f"{level}@1"]]
            kept = [q for q in right if q in judged and judged[q][f"{level}@1"]]
            versus = f"{len(kept) / len(right):.2%}" if row != "isolated" and right else "–"
            lines.append(f"| {row} | {len(judged)} | {level} | "
                         + " | ".join(f"{a:.2%}" for a in accuracy) + f" | {versus} |")
    return lines


def write(out: Path, log: Path, command: str) -> Path:
    """Write `report.md` with Table 10, rebuilt from the log; returns its path."""
    results = read_results(str(log), log_key)
    questions = len({r["id"] for r in results})
    lines = ["# Experiment: pipeline (thesis Table 10)", "", f"Command: `{command}`", "",
             f"{questions} questions. isolated: the translation over the ground-truth scene graphs; "
             "base: GQA's gold program over the weighted scenes; pipeline: the translation over "
             "them; blind: the translation over scenes made from its own concepts. top k: the k "
             "best models; vs base: of the questions base answers right (top 1), the share this "
             "row answers right too.", *failures(results), "", *table(results)]
    report = out / "report.md"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report
