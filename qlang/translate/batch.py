"""Translating a question file: one result line per question, in input order, resumable."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qlang.errors import Diagnostic
from qlang.executors import Executor, Local
from qlang.records.batch import Progress, attempt, run_batch
from qlang.records.output import Output
from qlang.records.questions import QuestionEntry
from qlang.translate.factory import Models, make
from qlang.translate.translator import Settings, Translates, Translation

#: questions decoded together in a batch (the small parser decodes a chunk at once)
CHUNK = 32


@dataclass(frozen=True)
class Translating:
    """The job of a batch (`qlang.executors`): the translator's settings and models travel to
    each worker, which makes its translator from them once; `translator` is one already made here."""

    settings: Settings
    models: Models = field(default_factory=Models)
    translator: Translates | None = None

    @property
    def gpus(self) -> float:
        """One GPU per worker where it runs a vLLM engine."""
        return 1.0 if self.models.needs_gpu(self.settings.translator) else 0.0

    def setup(self) -> Callable[[list[QuestionEntry]], list[dict[str, Any]]]:
        translator = self.translator or make(self.settings, self.models)
        return lambda entries: _translate_entries(translator, entries)


def run(job: Translating, entries: list[QuestionEntry], output: Output,
        executor: Executor | None = None) -> bool:
    """Translate the entries of a question file still pending, one result line each, in input
    order; True if every question translated.  `executor`: where (default: in this process,
    `CHUNK` questions at a time)."""
    todo = output.pending.todo(entries, lambda entry: entry.key)
    return run_batch(job, todo, output, executor or Local(), batch=CHUNK,
                     progress=Progress("translate", len(todo)))


def _translate_entries(translator: Translates, entries: list[QuestionEntry]) -> list[dict[str, Any]]:
    """One result per entry, in order: the questions translated together, and one by one
    if that fails, so that a question's failure costs only its own result."""
    questions = [entry.data.get("question") for entry in entries]
    texts = [q for q in questions if isinstance(q, str) and q.strip()]
    try:
        translated = iter(translator.translate_many(texts))
    except Exception:  # retried one by one below, where each failure is recorded
        translated = iter([_translate_one(translator, q) for q in texts])
    results = []
    for entry, question in zip(entries, questions, strict=True):
        key = {"id": entry.id} | ({"input_line": entry.number} if entry.id is None else {})
        if not isinstance(question, str) or not question.strip():
            problem = Diagnostic("input", entry.problem or "the record has no 'question' text")
            results.append({**key, "error": problem.to_json()})
        else:
            results.append({**key, **next(translated).to_json()})
    return results


def _translate_one(translator: Translates, question: str) -> Translation:
    """A question's translation, or why it failed (e.g. longer than the model's context)."""
    return attempt(lambda: translator.translate(question), lambda exc: Translation(question, error=exc))


