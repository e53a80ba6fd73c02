"""Translating a question file: one result line per question, in input order, resumable."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qlang.errors import Diagnostic, QlangError
from qlang.executors import Executor, Local
from qlang.records import internal_error, resume_key, write, writing
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

    def setup(self) -> Callable[[list[dict[str, Any]]], list[dict[str, Any]]]:
        translator = self.translator or make(self.settings, self.models)
        return lambda records: _translate_records(translator, records)


def run(job: Translating, records: list[dict[str, Any]], path: str, output: str | None,
        executor: Executor | None = None) -> bool:
    """Translate the question records of the file `path`, one result line each, in input order;
    True if every question translated.  `executor`: where (default: in this process, `CHUNK`
    questions at a time)."""
    from tqdm import tqdm

    ok = True
    with writing(output, path) as (out, pending):
        todo = [r for r in records if pending(resume_key(r))]
        with tqdm(total=len(todo), desc="translate", unit="q", file=sys.stderr, disable=None) as bar:
            for result in (executor or Local()).map(job, todo, batch=CHUNK):
                ok = ok and "error" not in result
                write(out, result)
                bar.update(1)
    return ok


def _translate_records(translator: Translates, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One result per record, in order: the questions translated together, and one by one
    if that fails, so that a question's failure costs only its own result."""
    questions = [r.get("question") for r in records]
    texts = [q for q in questions if isinstance(q, str) and q.strip()]
    try:
        translated = iter(translator.translate_many(texts))
    except Exception:  # retried one by one below, where each failure is recorded
        translated = iter([_translate_one(translator, q) for q in texts])
    results = []
    for record, question in zip(records, questions, strict=True):
        key = {"id": record.get("id")}
        key |= {"input_line": record["input_line"]} if "input_line" in record else {}
        if not isinstance(question, str) or not question.strip():
            problem = Diagnostic("input", record.get("problem", "the record has no 'question' text"))
            results.append({**key, "error": problem.to_json()})
        else:
            results.append({**key, **next(translated).to_json()})
    return results


def _translate_one(translator: Translates, question: str) -> Translation:
    try:
        return translator.translate(question)
    except QlangError as exc:
        return Translation(question, error=exc)
    except Exception as exc:  # one question's failure (e.g. longer than the context) must not end the batch
        return Translation(question, error=internal_error(exc))


