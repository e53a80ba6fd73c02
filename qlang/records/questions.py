"""Question files (translate, eval, the experiments, training data): a GQA question file (a
JSON object of records by id, or a list of records) or JSON lines, read tolerantly (an entry
that is no record costs only its own result) or strictly."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from qlang import jsontext, limits
from qlang.errors import QlangError, error
from qlang.records.jsonl import json_lines, resume_key


@dataclass(frozen=True, slots=True)
class QuestionEntry:
    """An entry of a question file: its place (its line, or its place among the file's
    records), its id and record, or why it is no record."""

    number: int
    id: object = None
    #: the GQA question record as the file holds it
    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None

    @property
    def key(self) -> str:
        """What identifies it across runs (`resume_key`)."""
        return resume_key({"id": self.id, "input_line": self.number})

    @property
    def record(self) -> dict[str, Any]:
        """The record with its id (a GQA question file holds the id as the record's key)."""
        return {"id": self.id, **self.data}


def read_questions(data: bytes, path: str, *, strict: bool = False,
                   limit: int | None = None) -> list[QuestionEntry]:
    """The first `limit` entries of a question file: a GQA question file (a JSON object of
    records by id, or a list of records) or JSON lines.

    Tolerant: an entry that is no record (a JSON line that is not UTF-8, not JSON or not an
    object) comes with its `problem`, so that it costs only its own result.  `strict`: such an
    entry, or a record without an id, raises a located QlangError instead.
    """
    try:
        whole = jsontext.loads(data.decode("utf-8-sig"))
    except ValueError:  # not one JSON document (nor UTF-8): JSON lines
        entries = _lines(data)
    else:
        if isinstance(whole, dict) and not _one_record(whole):  # records by id
            entries = [_entry(n, v, k) for n, (k, v) in enumerate(whole.items(), start=1)]
        elif isinstance(whole, list):
            entries = [_entry(n, v) for n, v in enumerate(whole, start=1)]
        elif isinstance(whole, dict):  # JSON lines of one line
            entries = _lines(data)
        else:
            raise error(QlangError, "input", "expected question records with 'id' and 'question'", path=path)
    entries = entries[:limit]
    for entry in entries if strict else ():
        problem = entry.problem or (f"entry {entry.number}: a question record without an id"
                                    if entry.id is None else None)
        if problem is not None:
            raise error(QlangError, "input", problem, path=path)
    return entries


def _one_record(whole: dict[str, Any]) -> bool:
    """Whether a JSON object is one question record (a file of one JSON line) rather than
    records by id: it has an id, or a question or program as text.  Records by id with a value
    that is no record stay records by id, that value an entry with its problem."""
    return "id" in whole or any(isinstance(whole.get(k), str) for k in ("question", "program"))


def _lines(data: bytes) -> list[QuestionEntry]:
    return [_entry(line.number, line.value, why=line.error) for line in json_lines(data)]


def _entry(number: int, value: object, key: object = None, why: Exception | None = None) -> QuestionEntry:
    if why is not None:
        reason = why.diagnostics[0].message if isinstance(why, QlangError) else f"not JSON: {why}"
        return QuestionEntry(number, problem=f"entry {number}: {reason}")
    if not isinstance(value, dict):  # kept by its id where the file gives it one
        return QuestionEntry(number, key, problem=f"entry {number}: not a question record")
    return QuestionEntry(number, value.get("id") if key is None else key, value)


def questions_by_id(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """The records of a question file by id, every entry a record with an id (`read_questions`,
    strict)."""
    try:
        data = limits.read(path, limits.QUESTIONS)
    except OSError as exc:
        raise error(QlangError, "input", f"cannot read: {exc}", path=path) from None
    return {str(entry.id): entry.data for entry in read_questions(data, str(path), strict=True)}
