"""In-context examples: a pool of questions with gold programs, and which of them to show.

The pool is any question file, read as every command reads one (`qlang.records.questions.read_questions`:
GQA's records by id, a list of records, or JSON lines); each gold `semantic` program is read
into the IR and canonicalised, and a record that does not convert is skipped and counted.
`select` ranks the pool by similarity to the question (`random`, `jaccard`, `embedding`), takes
the best `n`, and with `cover_operators` adds examples until every operation of the pool is
shown once (seed thesis §3.1.2).  The question itself is never among its examples, nor is any
question twice: the same question about another image is still the same question.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from qlang import limits
from qlang.errors import QlangError, error
from qlang.ir import Node, postorder
from qlang.passes.canonical import canonicalize
from qlang.paths import GQA_QUESTIONS
from qlang.records.questions import QuestionEntry, read_questions
from qlang.syntax import gqa
from qlang.words import normal_question

#: the shared pool: GQA validation questions (the project's data lives outside the package)
DEFAULT_POOL = GQA_QUESTIONS / "val_balanced_tail.json"


@dataclass(frozen=True, slots=True)
class Example:
    qid: str
    question: str
    #: the canonical gold program
    root: Node


@dataclass(frozen=True, slots=True)
class ExamplePool:
    examples: tuple[Example, ...]
    #: ids of the records whose gold program could not be read
    skipped: tuple[str, ...]


def read_pool(path: str | Path = DEFAULT_POOL) -> ExamplePool:
    """The examples of a question file; raises QlangError if it cannot be read or holds none."""
    try:
        entries = read_questions(limits.read(path, limits.QUESTIONS), str(path))
    except OSError as exc:
        raise error(QlangError, "input", f"cannot read the example pool: {exc}", path=path) from None
    examples, skipped = [], []
    for entry in entries:
        example = _example(entry)
        if example is None:
            skipped.append(str(entry.id) if entry.id is not None else f"entry {entry.number}")
        else:
            examples.append(example)
    if not examples:
        why = next((entry.problem for entry in entries if entry.problem), None)
        raise error(QlangError, "input", "the example pool holds no question with a gold program qlang "
                    "reads", hint=why, path=path)
    return ExamplePool(tuple(examples), tuple(skipped))


def load_pool(path: str | Path | None = None) -> list[Example]:
    """The examples of a GQA question file (None: `DEFAULT_POOL`)."""
    return list(read_pool(DEFAULT_POOL if path is None else path).examples)


def _example(entry: QuestionEntry) -> Example | None:
    record = entry.data  # empty where the entry is no record
    if not (isinstance(record.get("question"), str) and record["question"].strip()):
        return None
    try:
        root = gqa.to_ir(gqa.steps_from_json(record.get("semantic")))
    except QlangError:
        return None
    return Example(str(entry.id), record["question"].strip(), canonicalize(root))


def operations(example: Example) -> frozenset[str]:
    """The IR operations the example's program uses."""
    return frozenset(node.op for node in postorder(example.root))


# ----- similarity ------------------------------------------------------------------------------

def _words(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[a-z0-9]+", text.lower()))


def jaccard(a: str, b: str) -> float:
    """Word overlap of two questions, ignoring case and punctuation.

    >>> jaccard("Is the cup white?", "is the CUP red")
    0.6
    """
    x, y = _words(a), _words(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def _random_scores(pool: Sequence[Example], question: str, seed: int) -> list[float]:
    rng = random.Random(f"{seed}\0{normal_question(question)}")  # str seeds are stable across runs
    return [rng.random() for _ in pool]


def _jaccard_scores(pool: Sequence[Example], question: str, seed: int) -> list[float]:
    return [jaccard(e.question, question) for e in pool]


def _embedding_scores(pool: Sequence[Example], question: str, seed: int) -> list[float]:
    from qlang.text.embedding import similarities

    return similarities([e.question for e in pool], question)


#: sampling name -> one score per pool example, higher is more similar
SAMPLERS: dict[str, Callable[[Sequence[Example], str, int], list[float]]] = {
    "random": _random_scores,
    "jaccard": _jaccard_scores,
    "embedding": _embedding_scores,
}


def select(pool: Sequence[Example], question: str, n: int, sampling: str = "jaccard",
           cover_operators: bool = False, seed: int = 0) -> list[Example]:
    """The examples to show for `question`, the most similar last.

    `random` is a shuffle drawn from `seed` and the question, so a run can be repeated exactly.
    The most similar example comes last, nearest the question: models weigh the end of the
    prompt most, and Liu et al. (2022, "What Makes Good In-Context Examples for GPT-3?") found
    this order slightly better than the reverse.  Ties keep the pool's order.
    """
    if sampling not in SAMPLERS:
        raise ValueError(f"unknown sampling {sampling!r} (one of {', '.join(SAMPLERS)})")
    scores = SAMPLERS[sampling](pool, question, seed)
    ranking = sorted(_candidates(pool, question), key=lambda i: (-scores[i], i))
    chosen = ranking[:n]
    if cover_operators:
        covered = frozenset().union(*(operations(pool[i]) for i in chosen))
        for i in ranking[n:]:  # in ranking order: each is the most similar that adds something
            new = operations(pool[i]) - covered
            if new:
                chosen.append(i)
                covered |= new
    return [pool[i] for i in reversed(chosen)]


def _candidates(pool: Sequence[Example], question: str) -> list[int]:
    """Positions of the pool's distinct questions, without `question` itself."""
    seen = {normal_question(question)}
    positions = []
    for i, example in enumerate(pool):
        text = normal_question(example.question)
        if text not in seen:
            seen.add(text)
            positions.append(i)
    return positions
