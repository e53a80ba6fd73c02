"""Retrieval: how well each document matches a text, NeuroQL's ``neural_match``.

Two retrievers behind one setting, as NeuroQL offers "a trade-off between speed and accuracy":

- ``bm25``: Okapi BM25 by the `bm25s` library (sparse matrices; English stop words dropped,
  words stemmed by Snowball's English stemmer), the index built once per set of documents;
- ``dense``: all-MiniLM-L6-v2 sentence embeddings (`qlang.text.embedding`), the documents'
  vectors cached on disk, a score the cosine of a document's vector and the text's.

A retriever scores the documents of the `Documents` it was built over; `match` turns scores
into the best k of some candidates (objects, each with the documents about it), each with a
weight in (0, 1] (the best candidate of a query 1) that the solver prices as it prices a
scene's confidences.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from qlang.errors import QlangError, error
from qlang.text.documents import Documents

if TYPE_CHECKING:  # numpy comes with the extras: the core reads documents without it
    import numpy as np

#: The weight of a candidate whose documents do not match at all: kept (ranked last), not 0,
#: whose cost would be infinite.
FLOOR = 0.001


class Retriever(Protocol):
    """Scores every document of the `Documents` it was built over against a text."""

    name: str

    def scores(self, text: str) -> np.ndarray:
        """One score per document, greater is better."""
        ...  # pragma: no cover - a protocol

    def weight(self, score: float, best: float) -> float:
        """A score as a weight in (0, 1], given the best score among those compared."""
        ...  # pragma: no cover - a protocol


class BM25:
    """Okapi BM25 (`bm25s`), stop words dropped and words stemmed."""

    name = "bm25"

    def __init__(self, documents: Documents) -> None:
        bm25s = bm25s_package()
        self._stemmer = stemmer()
        self._size = len(documents)
        self._index: Any = bm25s.BM25()
        if self._size:
            tokens = bm25s.tokenize([d.text for d in documents.documents], stopwords="en",
                                    stemmer=self._stemmer, show_progress=False)
            self._index.index(tokens, show_progress=False)

    def scores(self, text: str) -> np.ndarray:
        import numpy as np

        if not self._size:
            return np.zeros(0, dtype=np.float32)
        words = bm25s_package().tokenize(text, stopwords="en", stemmer=self._stemmer, return_ids=False,
                                  show_progress=False)[0]
        found: np.ndarray = self._index.get_scores(words)
        return found

    def weight(self, score: float, best: float) -> float:
        return max(FLOOR, score / best) if best > 0 and score > 0 else FLOOR


class Dense:
    """Cosine similarity of MiniLM sentence embeddings, the documents' cached on disk."""

    name = "dense"

    def __init__(self, documents: Documents) -> None:
        import numpy as np

        from qlang.text import embedding

        self._embedding = embedding
        self._vectors = embedding.pool_embeddings([d.text for d in documents.documents]) \
            if len(documents) else np.zeros((0, 384), dtype=np.float32)

    def scores(self, text: str) -> np.ndarray:
        import numpy as np

        if not len(self._vectors):
            return np.zeros(0, dtype=np.float32)
        found: np.ndarray = self._vectors @ self._embedding.encode([text])[0]
        return found

    def weight(self, score: float, best: float) -> float:
        """The cosine as a weight: (1 + cos) / 2, over the best's, so the best weighs 1."""
        return max(FLOOR, (1 + score) / (1 + best)) if best > -1 else FLOOR


#: The retrievers by the name the setting takes.
RETRIEVERS: dict[str, Callable[[Documents], Retriever]] = {"bm25": BM25, "dense": Dense}
DEFAULT = "bm25"


def build(name: str, documents: Documents) -> Retriever:
    """The retriever `name` over `documents`."""
    if name not in RETRIEVERS:
        raise error(QlangError, "text", f"no retriever {name!r} (one of {', '.join(RETRIEVERS)})")
    return RETRIEVERS[name](documents)


@cache
def retriever(name: str, documents: Documents) -> Retriever:
    """The retriever `name` over `documents`, built once per process (the same `Documents`
    object answers every question of a run)."""
    return build(name, documents)


@dataclass(frozen=True, slots=True)
class Match:
    """A candidate that matched: its key, weight in (0, 1], score, and its best document."""

    key: str
    weight: float
    score: float
    document: int


class Candidates:
    """What `match` chooses among: keys (objects or classes), each with the numbers of its
    documents, arranged once as arrays, so that a match over ten thousand candidates is a few
    array operations, not a loop (a key without documents is no candidate)."""

    def __init__(self, owned: Mapping[str, Sequence[int]]) -> None:
        import numpy as np

        pairs = sorted((key, number) for key, numbers in owned.items() for number in set(numbers))
        self.keys = sorted({key for key, _ in pairs})
        place = {key: i for i, key in enumerate(self.keys)}
        self.owners = np.array([place[key] for key, _ in pairs], dtype=np.int64)
        self.documents = np.array([number for _, number in pairs], dtype=np.int64)


def match(retriever: Retriever, text: str, candidates: Candidates | Mapping[str, Sequence[int]],
          k: int) -> list[Match]:
    """The `k` candidates whose best document matches `text` best, best first (ties by key),
    each with that document (ties: the first).

    >>> from qlang.text.documents import Passage
    >>> docs = Documents([Passage("a", "the bass is amazing", "r"), Passage("b", "it is too heavy", "r")])
    >>> [(m.key, m.weight) for m in match(BM25(docs), "how is the bass?", {"x": [0], "y": [1]}, 2)]
    [('x', 1.0), ('y', 0.001)]
    """
    import numpy as np

    among = candidates if isinstance(candidates, Candidates) else Candidates(candidates)
    if k <= 0 or not among.keys:
        return []
    scores = retriever.scores(text)[among.documents]
    order = np.lexsort((among.documents, -scores, among.owners))  # by owner, best first
    owners = among.owners[order]
    firsts = order[np.r_[True, owners[1:] != owners[:-1]]]  # each owner's best pair, in key order
    ranked = firsts[np.argsort(-scores[firsts], kind="stable")[:k]]
    top = float(scores[ranked[0]])
    return [Match(among.keys[among.owners[pair]], retriever.weight(float(scores[pair]), top),
                  float(scores[pair]), int(among.documents[pair])) for pair in ranked]


def bm25s_package() -> Any:
    try:
        import bm25s
    except ImportError:
        raise error(QlangError, "text", "searching documents needs the package bm25s "
                    "(pip install 'qlang[translate]')") from None
    return bm25s


@cache
def stemmer() -> Any:
    try:
        import Stemmer
    except ImportError:
        raise error(QlangError, "text", "searching documents needs the package PyStemmer "
                    "(pip install 'qlang[translate]')") from None
    return Stemmer.Stemmer("english")
