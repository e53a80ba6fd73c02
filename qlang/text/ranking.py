"""How `know` and `infer` rank their paths: by the edges' weights alone, or by the question as
well, as GATHER's ranker scores each path against the question.

A path's cost is the sum of its edges' (`qlang.asp.knowledge_facts`: -1000 ln w each), so a
ranking the solver can optimise must be a product over edges.  Ranked by the question, an
edge's weight is its own times how well its words match the question: (1 + cos) / 2 of the
MiniLM embeddings (`qlang.text.embedding`) of the question and of the edge said as words
("cup used for drinking"), so a path's score is its weight times the product of its edges'
matches.  The question is the English one where the program came from one (`ask`), else the
words of the program's own literals ("table made of").

An edge's words are embedded once per process (a question grounds tens to hundreds of edges,
and the questions over one base share most of them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from qlang.errors import QlangError, error
from qlang.knowledge.triples import Triple

if TYPE_CHECKING:  # numpy loads only to rank (a command's options name the rankings)
    import numpy as np

WEIGHT = "weight"
QUESTION = "question"
#: The rankings by the name the setting takes, the default first.
RANKS = (WEIGHT, QUESTION)
DEFAULT = WEIGHT

#: Each edge's words' embedding, by the words (`said`).
_VECTORS: dict[str, np.ndarray] = {}


def checked(rank: str) -> str:
    """The ranking `rank` names, or a clear error."""
    if rank not in RANKS:
        raise error(QlangError, "rank", f"no ranking {rank!r} (one of {', '.join(RANKS)})")
    return rank


def ready(rank: str) -> None:
    """Load what ranking by `rank` needs now (the embedding model, by `question`), so that
    no question's solving time pays for it: a server's worker, at its start.  Otherwise the
    model loads when a path is first ranked, so a program without `know` or `infer`, or one
    that fails its check, never pays the 0.5 GB and seconds of loading torch."""
    if checked(rank) == QUESTION:
        from qlang.text import embedding

        embedding.encode(["ready"])


def said(edge: Triple) -> str:
    """An edge as words: ``cup used for drinking``."""
    return f"{edge.head} {edge.relation.replace('_', ' ')} {edge.tail}"


def matches(edges: Sequence[Triple], question: str) -> np.ndarray:
    """How well each edge's words match the question, in (0, 1]: (1 + cos) / 2."""
    import numpy as np

    from qlang.text import embedding

    texts = [said(e) for e in edges]
    missing = sorted({t for t in texts if t not in _VECTORS})
    if missing:
        _VECTORS.update(zip(missing, embedding.encode(missing), strict=True))
    if not texts:
        return np.zeros(0, dtype=np.float32)
    cosines = np.stack([_VECTORS[t] for t in texts]) @ embedding.encode([question])[0]
    found: np.ndarray = np.clip((1 + cosines) / 2, 1e-3, 1.0)
    return found


def ranked(edges: list[Triple], rank: str, question: str) -> list[Triple]:
    """The edges with the weights `rank` ranks their paths by (the same edges by `weight`)."""
    if checked(rank) == WEIGHT or not edges:
        return edges
    return [edge._replace(weight=edge.weight * float(match))
            for edge, match in zip(edges, matches(edges, question), strict=True)]
