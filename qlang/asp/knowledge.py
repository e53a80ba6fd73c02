"""The knowledge one question needs, as clingo facts: the few edges, of a graph of perhaps
millions, that its operations (theory/knowledge.lp) and a rules file can reach.

Each edge is ``knowledge(H, R, T)`` and ``knowledge_cost(H, R, T, W)``, W its weight w as a
cost, -1000 ln w (`qlang.asp.scene.weight`, as the scene's confidences), so that a path's cost
is the sum of its edges' and the cheapest path is the one of greatest product.  Words are
spelled as the scene spells them (`qlang.asp_names.to_symbol`); a relation as a program writes
it (``used_for``, the word ``used for``).

The graph the operations read is the knowledge in use as a walk sees it, so the theory never
needs to know a relation's properties:

- a symmetric relation's edge (``related_to``) holds both ways, and is stated both ways;
- GQA's class hierarchy is knowledge too: a class ``is_a`` each of its GQA categories, weight 1
  (``car is_a vehicle``), as the scene states for its objects (``has_attr(O, class, vehicle)``).

What a question grounds, each part bounded by `limit` edges (the strongest first, as
`qlang.knowledge.graph.Knowledge.reach` picks them):

- ``know`` and ``verify_know``: the asked relation's edges out of the scene's classes;
- ``infer``: every edge a walk of at most `HOPS` edges out of the scene's classes can take, and
  the ``is_a`` edges of chains of at most `HOPS` into the asked class (its members);
- with `rules` (a rules file that reads knowledge): every edge out of the scene's classes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

import clingo

from qlang.asp.question import Question
from qlang.asp.scene import weight
from qlang.asp_names import to_symbol
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.relations import SYMMETRIC
from qlang.knowledge.triples import Triple
from qlang.ontology import Ontology, load
from qlang.passes.lower import Fact
from qlang.signatures import SIGNATURES

#: The longest walk `infer` takes, and the longest ``is_a`` chain that makes a word a member
#: of a class (theory/knowledge.lp says the same).
HOPS = 3
#: The most edges each part of a question's knowledge grounds (see the module docstring).
LIMIT = 1000
IS_A = "is_a"


class Graph:
    """The knowledge as the operations walk it (module docstring): edges as walked, the
    hierarchy's among them."""

    def __init__(self, knowledge: Knowledge, ontology: Ontology | None = None) -> None:
        self.knowledge = knowledge
        self.ontology = ontology or load()

    def steps(self, words: Collection[str], *, into: bool = False, relations: Collection[str] | None = None,
              limit: int | None = None) -> list[Triple]:
        """The edges out of `words` (into them, with `into`), each as walked (a symmetric one
        from the end it was reached by), with the hierarchy's, at most `limit` of the knowledge."""
        found = [Triple(step.start, step.triple.relation, step.end, step.weight)
                 for step in self.knowledge.steps(words, into=into, relations=relations, limit=limit)]
        if relations is None or IS_A in relations:
            found += self.hierarchy(words, into)
        return found

    def hierarchy(self, words: Iterable[str], into: bool) -> list[Triple]:
        """GQA's ``is_a`` edges out of `words` (to their categories), or into them (from members)."""
        members = self.ontology.class_members
        if into:
            return [Triple(m, IS_A, w) for w in words for m in sorted(members.get(w, ()))]
        return [Triple(w, IS_A, c) for w in words for c in self.ontology.ancestors(w)]

    def reach(self, words: Iterable[str], hops: int, *, into: bool = False,
              relations: Collection[str] | None = None, limit: int = LIMIT) -> list[Triple]:
        """Every edge a walk of at most `hops` edges out of `words` (into them, with `into`)
        takes, breadth first, at most about `limit`, the strongest of each level first."""
        seen = frontier = set(words)
        taken: list[Triple] = []
        for _ in range(hops):
            left = limit - len(taken)
            if not frontier or left <= 0:
                break
            edges = self.steps(frontier, into=into, relations=relations, limit=left)
            taken += edges
            frontier = {e.head if into else e.tail for e in edges} - seen
            seen = seen | frontier
        return taken


def _first_word(fact: Fact) -> str:
    """A step's first literal: the relation ``know``/``verify_know`` ask, the class of ``infer``."""
    return str(fact.args[1 + len(SIGNATURES[fact.name].operands)])


def _relation(fact: Fact) -> str:
    """The name of the relation a program writes as a word (``used for``: `used_for`)."""
    return _first_word(fact).replace(" ", "_")


#: What each operation reading knowledge grounds: (graph, its step, the scene's classes, limit).
NEEDS: dict[str, Callable[[Graph, Fact, set[str], int], list[Triple]]] = {
    "know": lambda g, f, classes, limit: g.steps(classes, relations={_relation(f)}, limit=limit),
    "verify_know": lambda g, f, classes, limit: g.steps(classes, relations={_relation(f)}, limit=limit),
    "infer": lambda g, f, classes, limit: [*g.reach(classes, HOPS, limit=limit),
                                           *g.reach([_first_word(f)], HOPS, into=True, relations={IS_A},
                                                    limit=limit)],
}


def edges(knowledge: Knowledge, question: Question, classes: Iterable[str], *, rules: bool = False,
          limit: int = LIMIT, ontology: Ontology | None = None) -> list[Triple]:
    """The edges (as walked) a question needs, each once with its greatest weight, sorted."""
    graph = Graph(knowledge, ontology)
    scene = set(classes)
    found = graph.steps(scene, limit=limit) if rules else []
    for fact in question:
        if fact.name in NEEDS:
            found += NEEDS[fact.name](graph, fact, scene, limit)
    best: dict[tuple[str, str, str], float] = {}
    for edge in found:
        ends = [(edge.head, edge.tail), (edge.tail, edge.head)] if edge.relation in SYMMETRIC \
            else [(edge.head, edge.tail)]
        for head, tail in ends:
            key = (head, edge.relation, tail)
            best[key] = max(best.get(key, 0.0), edge.weight)
    return sorted(Triple(*key, w) for key, w in best.items())


def facts(knowledge: Knowledge, question: Question, classes: Iterable[str], *, rules: bool = False,
          limit: int = LIMIT, ontology: Ontology | None = None) -> list[clingo.Symbol]:
    """``knowledge/3`` and ``knowledge_cost/4`` for the edges a question needs (`edges`):
    `question` its lowered facts, `classes` every class the scene's objects have (their names
    and categories, and any a rules file derives), `rules` whether a rules file reads knowledge."""
    symbols: list[clingo.Symbol] = []
    for edge in edges(knowledge, question, classes, rules=rules, limit=limit, ontology=ontology):
        words = [to_symbol(edge.head), to_symbol(edge.relation.replace("_", " ")), to_symbol(edge.tail)]
        symbols.append(clingo.Function("knowledge", words))
        symbols.append(clingo.Function("knowledge_cost", [*words, clingo.Number(weight(edge.weight))]))
    return symbols
