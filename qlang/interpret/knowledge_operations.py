"""The knowledge operations in Python: what ``know``, ``verify_know`` and ``infer`` find in a
knowledge graph, written apart from the ASP theory (theory/knowledge.lp) for the differential
tests, from the same definitions:

- an edge is walked from head to tail, a symmetric relation's also from tail to head, and GQA's
  class hierarchy counts as ``is_a`` edges of weight 1 from a class to each of its categories;
- where one edge can be walked several ways, its greatest weight counts;
- ``infer`` walks 0 to `HOPS` edges from its starts, a walk weighing the product of its edges'
  weights, and keeps the words an ``is_a`` chain of 1 to `HOPS` edges leads from to the class.

>>> from qlang.knowledge.graph import Knowledge
>>> graph = KnowledgeOperations(Knowledge(()))
>>> graph.infer(["car"], "vehicle"), graph.infer(["car"], "animal")
({'car': 1.0}, {})
"""

from __future__ import annotations

from collections.abc import Iterable

from qlang.knowledge.graph import Knowledge
from qlang.knowledge.relations import SYMMETRIC
from qlang.ontology import load

#: The longest walk of `infer`, and the longest ``is_a`` chain to its class.
HOPS = 3
IS_A = "is_a"


class KnowledgeOperations:
    """A knowledge graph as the knowledge operations read it (module docstring)."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge
        self._out: dict[str, dict[tuple[str, str], float]] = {}

    def out(self, word: str) -> dict[tuple[str, str], float]:
        """The edges out of `word` as (relation, word) -> weight (remembered)."""
        if word not in self._out:
            edges: dict[tuple[str, str], float] = {}
            walked = [(e.relation, e.tail, e.weight) for e in self.knowledge.edges([word])]
            walked += [(e.relation, e.head, e.weight) for e in self.knowledge.edges([word], into=True)
                       if e.relation in SYMMETRIC]
            walked += [(IS_A, category, 1.0) for category in load().ancestors(word)]
            for relation, other, weight in walked:
                edges[relation, other] = max(edges.get((relation, other), 0.0), weight)
            self._out[word] = edges
        return self._out[word]

    def know(self, classes: Iterable[str], relation: str) -> dict[str, float]:
        """The words the classes have a `relation` edge to, each with its strongest edge's weight."""
        found: dict[str, float] = {}
        for cls in classes:
            for (name, other), weight in self.out(cls).items():
                if name == relation:
                    found[other] = max(found.get(other, 0.0), weight)
        return found

    def member(self, word: str, cls: str) -> bool:
        """Whether a chain of 1 to `HOPS` ``is_a`` edges leads from `word` to `cls`."""
        level = {word}
        for _ in range(HOPS):
            level = {other for w in level for (name, other) in self.out(w) if name == IS_A}
            if cls in level:
                return True
        return False

    def infer(self, starts: Iterable[str], cls: str) -> dict[str, float]:
        """The words of `cls` (but `cls`) that walks of 0 to `HOPS` edges from `starts` reach,
        each with its best walk's weight."""
        level = dict.fromkeys(starts, 1.0)  # the best walk of exactly d edges to each word
        best = dict(level)
        for _ in range(HOPS):
            following: dict[str, float] = {}
            for word, weight in level.items():
                for (_, other), edge in self.out(word).items():
                    following[other] = max(following.get(other, 0.0), weight * edge)
            level = following
            for word, weight in level.items():
                best[word] = max(best.get(word, 0.0), weight)
        return {word: weight for word, weight in best.items() if word != cls and self.member(word, cls)}
