"""Solving many questions: JSON lines in, one result line per question, resumable, in parallel.

Input lines are ``{"id", "program", "image_id"}`` or GQA question records (``semantic``,
``imageId``).  Each line gets one output line, ``{"id", "answers": [...]}`` (with ``"bindings"``
where they are asked for) or ``{"id", "error": {kind, message, line, column}}``, written in
input order and flushed as soon as it and the lines before it are known, so an interrupted run
loses nothing: run again with the same output file and the ids already there are skipped (a
half-written last line is dropped and redone).  The questions are solved on an executor
(`qlang.executors`): by default in worker processes of this machine that are replaced every
`RECYCLE` questions, because clingo's symbol table only ever grows, or by the actors of a Ray
cluster.  Each worker keeps the last `SCENES` scenes grounded (`qlang.asp.multishot.GroundedScene`), so the
questions of one image share one grounding of its scene, and a task's questions of one image are
grounded and solved together (`GroundedScene.solve_all`).  Every question is solved with the
same background knowledge and rules, read and checked once by the parent (programs are checked
against the rules' words too).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from qlang.asp.background import NOTHING, Background
from qlang.asp.explain import trace
from qlang.asp.multishot import GroundedScene
from qlang.asp.options import DEFAULT_OPTIONS, SolveOptions
from qlang.asp.outcome import Solution
from qlang.asp.query import Query
from qlang.asp.scene import SceneLibrary
from qlang.executors import Executor, Local
from qlang.passes.lower import facts
from qlang.records.batch import failure, run_batch
from qlang.records.output import Output, Pending
from qlang.records.program_lines import Record, read_records

#: Questions a worker answers before it is replaced by a fresh process.
RECYCLE = 500
#: Scenes a process keeps grounded, the least recently asked dropped first.
SCENES = 16
#: Questions a task of a local worker process answers at most (the first tasks are shorter, so
#: the first results come at once): those of one image among them are solved in one search, so
#: clingo's calls are shared; a slow question holds up its task's others.
LOCAL_BATCH = 128
#: Questions a batch of a Ray actor answers: enough that scheduling costs little next to solving.
RAY_BATCH = 64


@dataclass(frozen=True, slots=True)
class Task:
    id: object
    line: int
    query: Query
    image_id: str | None
    #: the line's result when it failed before solving (it could not be compiled)
    failed: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class BatchSettings:
    """What every question of a batch is solved over and with."""

    #: read once by the parent; forked workers inherit it
    scenes: SceneLibrary
    #: with `atoms`, each answer's bindings too: every object each step of the best model bound
    options: SolveOptions = DEFAULT_OPTIONS


def run(lines: Iterable[bytes], settings: BatchSettings, output: Output, *, syntax: str | None = None,
        workers: int = 1, executor: Executor | None = None) -> bool:
    """Answer every line still pending, writing results to `output` in input order; True if
    every line succeeded.  `executor`: where the questions are solved (default: `workers` local
    processes)."""
    tasks = _tasks(read_records(enumerate(lines, start=1), syntax), output.pending,
                   settings.options.background)
    if executor is None:  # a task's questions may each take the timeout, and their search one more;
        # a worker is recycled after tasks of about RECYCLE questions, the ramp's short ones not counted
        executor = Local(workers, RECYCLE // LOCAL_BATCH + LOCAL_BATCH.bit_length(),
                         (LOCAL_BATCH + 1) * settings.options.limits.timeout + 60, ramp=True)
    batch = LOCAL_BATCH if isinstance(executor, Local) else RAY_BATCH
    return run_batch(Solving(settings), tasks, output, executor, batch=batch)


@dataclass(frozen=True, slots=True)
class Solving:
    """The job of a batch: its settings travel to each worker, which answers tasks with them."""

    settings: BatchSettings

    def setup(self) -> Callable[[list[Task]], list[dict[str, Any]]]:
        _init(self.settings)
        return _answer_all


def _tasks(records: Iterable[Record], pending: Pending, background: Background | None) -> Iterator[Task]:
    """The lines still to do, compiled here (cheap) so that workers only solve."""
    for record in records:
        if not pending(record.key):
            continue
        try:
            if record.error:
                raise record.error
            assert record.root is not None
            (background or NOTHING).check(record.root)
            question = facts(record.root)
        except Exception as exc:  # one line's failure must not end the batch
            yield Task(record.id, record.line, (), None, record.error_json(failure(exc)))
            continue
        image = record.data.get("image_id", record.data.get("imageId"))
        yield Task(record.id, record.line, question, None if image is None else str(image))


_SETTINGS: BatchSettings | None = None
#: the scenes grounded in this process, by image id, the most recently asked last
_SCENES: dict[str | None, GroundedScene] = {}


def _init(settings: BatchSettings) -> None:
    global _SETTINGS
    _SETTINGS = settings
    _SCENES.clear()


def _scene(image_id: str | None) -> GroundedScene:
    assert _SETTINGS is not None
    scene = _SCENES.pop(image_id, None)
    if scene is None:
        if len(_SCENES) >= SCENES:
            del _SCENES[next(iter(_SCENES))]
        scene = GroundedScene(_SETTINGS.scenes.facts(image_id), _SETTINGS.options)
    _SCENES[image_id] = scene
    return scene


def _answer_all(tasks: list[Task]) -> list[dict[str, Any]]:
    """The tasks' results, in order: those of one image solved together."""
    results: list[dict[str, Any]] = [{} for _ in tasks]
    images: dict[str | None, list[int]] = {}
    for index, task in enumerate(tasks):
        if task.failed is not None:
            results[index] = task.failed
        else:
            images.setdefault(task.image_id, []).append(index)
    for image, indices in images.items():
        try:
            solved: list[Solution | Exception] = _scene(image).solve_all([tasks[i].query for i in indices])
        except Exception as exc:  # a scene that cannot be read fails its questions alone
            solved = [exc] * len(indices)
        for index, outcome in zip(indices, solved, strict=True):
            results[index] = _result(tasks[index], outcome)
    return results


def _result(task: Task, outcome: Solution | Exception) -> dict[str, Any]:
    """A question's line: its answers (and bindings), or its error."""
    assert _SETTINGS is not None
    result: dict[str, Any] = {"id": task.id}
    if task.id is None:
        result["input_line"] = task.line
    try:
        if isinstance(outcome, Exception):
            raise outcome
        result["answers"] = [a.to_json() for a in outcome.answers]
        if _SETTINGS.options.atoms and outcome.answers:
            result["bindings"] = trace(outcome.answers[0], outcome.atoms).bindings()
        if not outcome.complete:
            result["complete"] = False
    except Exception as exc:  # one question's failure must not end the batch
        result["error"] = failure(exc).diagnostics[0].to_json()
    return result
