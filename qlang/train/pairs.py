"""Training pairs: real GQA questions with their gold programs, split so that nothing leaks.

A pair is a question and its gold program printed in a target syntax, with the GQA record it
came from.  The split is by image id, through a stable hash, so it is the same on every machine
and no image contributes questions to both sides; `exclude` removes every question (and every
image) of the given files, so evaluation questions can never become training data.  The same
question asked about several images usually has the same program: within a split such pairs
are kept once.  A dev question may still appear verbatim in train (asked of another image);
`verbatim` lets a report tell those apart.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qlang.errors import QlangError
from qlang.passes.canonical import canonicalize
from qlang.records.questions import questions_by_id
from qlang.syntax import SYNTAXES, gqa
from qlang.words import normal_question

SPLITS = ("train", "dev")


@dataclass(frozen=True, slots=True)
class Pair:
    id: str
    image: str
    question: str
    program: str
    split: str
    #: the GQA record it came from (answer, semantic, types ...), kept for evaluation
    record: dict[str, Any] = field(compare=False)

    def to_json(self) -> dict[str, Any]:
        return {**self.record, "id": self.id, "imageId": self.image, "question": self.question,
                "program": self.program, "split": self.split}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Pair:
        return cls(str(data["id"]), str(data.get("imageId", "")), data["question"],
                   data["program"], data.get("split", "train"), data)


def split_of(image: str, dev_percent: float) -> str:
    """`dev` for a stable `dev_percent` share of image ids, else `train`."""
    digest = hashlib.sha256(image.encode("utf-8")).digest()
    return "dev" if int.from_bytes(digest[:8], "big") % 10_000 < dev_percent * 100 else "train"


def make_pairs(files: Iterable[str | Path], *, syntax: str = "nested", dev_percent: float = 13.0,
               exclude: Iterable[str | Path] = ()) -> tuple[list[Pair], dict[str, int]]:
    """The deduplicated pairs of question files, split; and counts of what was left out."""
    excluded_ids: set[str] = set()
    excluded_images: set[str] = set()
    for path in exclude:
        for qid, record in questions_by_id(path).items():
            excluded_ids.add(qid)
            excluded_images.add(str(record.get("imageId", "")))
    excluded_images.discard("")
    counts = {"excluded": 0, "unreadable": 0, "duplicate": 0}
    seen: set[tuple[str, str, str]] = set()
    pairs = []
    for path in files:
        for qid, record in sorted(questions_by_id(path).items()):
            image = str(record.get("imageId", ""))
            if qid in excluded_ids or image in excluded_images:
                counts["excluded"] += 1
                continue
            pair = _pair(qid, image, record, syntax, dev_percent)
            if pair is None:
                counts["unreadable"] += 1
                continue
            key = (pair.split, normal_question(pair.question), pair.program)
            if key in seen:
                counts["duplicate"] += 1
                continue
            seen.add(key)
            pairs.append(pair)
    return pairs, counts


def _pair(qid: str, image: str, record: dict[str, Any], syntax: str, dev_percent: float) -> Pair | None:
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        return None
    try:
        root = canonicalize(gqa.to_ir(gqa.steps_from_json(record.get("semantic"))))
        program = SYNTAXES[syntax].print(root)
    except QlangError:
        return None
    return Pair(qid, image, question.strip(), program, split_of(image or qid, dev_percent), record)


def write_pairs(pairs: Iterable[Pair], path: str | Path) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for pair in pairs:
            out.write(json.dumps(pair.to_json(), ensure_ascii=False) + "\n")
            count += 1
    return count


def read_pairs(path: str | Path) -> Iterator[Pair]:
    for record in questions_by_id(path).values():
        if isinstance(record.get("question"), str) and isinstance(record.get("program"), str):
            yield Pair.from_json(record)
