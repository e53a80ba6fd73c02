"""The knowledge one question needs, as clingo facts: the few edges, of a graph of perhaps
millions, that its operations (theory/knowledge.lp) can reach (a rules file's: `qlang.asp.background`).

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
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from functools import cache

import clingo

from qlang.asp.query import Query
from qlang.asp.scene import weight
from qlang.asp_names import from_term, relation_symbol, to_symbol
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.relations import SYMMETRIC
from qlang.knowledge.triples import Triple
from qlang.ontology import load
from qlang.passes.lower import Fact
from qlang.signatures import END, SIGNATURES
from qlang.text import ranking

#: The longest walk `infer` takes, and the longest ``is_a`` chain that makes a word a member
#: of a class (theory/knowledge.lp says the same).
HOPS = 3
#: The most edges each part of a question's knowledge grounds (see the module docstring).
LIMIT = 1000
IS_A = "is_a"


class WalkedKnowledge:
    """The knowledge as the operations walk it (module docstring): edges as walked, the
    hierarchy's among them."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.knowledge = knowledge

    def hops(self, words: Collection[str], *, into: bool = False, relations: Collection[str] | None = None,
             limit: int | None = None) -> list[Triple]:
        """The edges out of `words` (into them, with `into`), each as walked: the knowledge's
        hops (`Knowledge.hops`: a symmetric edge also from the end it was reached by, at most
        `limit`), from start to end, and the hierarchy's."""
        found = [Triple(hop.start, hop.triple.relation, hop.end, hop.weight)
                 for hop in self.knowledge.hops(words, into=into, relations=relations, limit=limit)]
        if relations is None or IS_A in relations:
            found += self.hierarchy(words, into)
        return found

    def hierarchy(self, words: Iterable[str], into: bool) -> list[Triple]:
        """GQA's ``is_a`` edges out of `words` (to their categories), or into them (from members)."""
        if into:
            members = load().class_members
            return [Triple(m, IS_A, w) for w in words for m in sorted(members.get(w, ()))]
        categories = _categories()
        return [Triple(w, IS_A, c) for w in words for c in categories.get(w, ())]

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
            edges = self.hops(frontier, into=into, relations=relations, limit=left)
            taken += edges
            frontier = {e.head if into else e.tail for e in edges} - seen
            seen = seen | frontier
        return taken


@cache
def _categories() -> dict[str, list[str]]:
    """Each class's GQA categories (`Ontology.ancestors`, for every class at once)."""
    found: dict[str, list[str]] = {}
    for category, members in sorted(load().class_members.items()):
        for member in members:
            found.setdefault(member, []).append(category)
    return found


def _first_word(fact: Fact) -> str:
    """A step's first literal: the relation ``know``/``verify_know`` ask, the class of ``infer``."""
    return str(fact.args[1 + len(SIGNATURES[fact.name].operands)])


def _relation(fact: Fact) -> str:
    """The name of the relation a program writes as a word (``used for``: `used_for`)."""
    return _first_word(fact).replace(" ", "_")


def _infer(graph: WalkedKnowledge, fact: Fact, classes: set[str], limit: int) -> list[Triple]:
    """What ``infer`` reads: the edges of the walks out of the classes that end in a word of
    the asked class, and the ``is_a`` chains that make those words its members (found walking
    up from the words reached, so a class of thousands of members costs no more than a small
    one); the rest of the walk's neighbourhood could not change the answer."""
    cls = _first_word(fact)
    walk = graph.reach(classes, HOPS, limit=limit)
    reached = classes | {edge.tail for edge in walk}
    chains = [e for e in graph.reach(reached, HOPS, relations={IS_A}, limit=limit) if e.relation == IS_A]
    below = _distances(cls, chains, into=True)  # is_a edges from each word to the class
    members = {word for word in reached if below.get(word, 0) > 0} - {cls}
    start, end = _distances(classes, walk), _distances(members, walk, into=True)
    return [*(e for e in walk if start.get(e.head, HOPS) + 1 + end.get(e.tail, HOPS) <= HOPS),
            *(e for e in chains if e.tail in below and e.head != cls)]


def _distances(words: Iterable[str] | str, edges: list[Triple], *, into: bool = False) -> dict[str, int]:
    """How few of `edges` lead from `words` to each word (to `words`, with `into`), up to `HOPS`."""
    following: dict[str, set[str]] = {}
    for edge in edges:
        start, end = (edge.tail, edge.head) if into else (edge.head, edge.tail)
        following.setdefault(start, set()).add(end)
    frontier = {words} if isinstance(words, str) else set(words)
    distance = dict.fromkeys(frontier, 0)
    for hops in range(1, HOPS + 1):
        frontier = {w for word in frontier for w in following.get(word, ()) if w not in distance}
        distance.update(dict.fromkeys(frontier, hops))
    return distance


#: What each operation reading knowledge grounds: (graph, its step, the scene's classes, limit).
NEEDS: dict[str, Callable[[WalkedKnowledge, Fact, set[str], int], list[Triple]]] = {
    "know": lambda g, f, classes, limit: g.hops(classes, relations={_relation(f)}, limit=limit),
    "verify_know": lambda g, f, classes, limit: g.hops(classes, relations={_relation(f)}, limit=limit),
    "infer": _infer,
}


def edges(knowledge: Knowledge, question: Query, classes: Iterable[str], *,
          together: Mapping[str, Collection[str]] | None = None, limit: int = LIMIT) -> list[Triple]:
    """The edges (as walked) a question needs, each once with its greatest weight, sorted;
    `together`, where given, narrows where a step's walks start (`starts`)."""
    graph = WalkedKnowledge(knowledge)
    scene = set(classes)
    steps = {fact.args[0]: fact for fact in question if fact.name != END}
    found: list[Triple] = []
    for fact in question:
        if fact.name in NEEDS:
            found += NEEDS[fact.name](graph, fact, starts(steps, fact, scene, together or {}), limit)
    return walked(found)


def walked(found: Iterable[Triple]) -> list[Triple]:
    """The edges as walked, stated for the theory: a symmetric relation's both ways (so the
    theory never needs to know a relation's properties), each once with its greatest weight,
    sorted.  (`qlang.asp.background` states the rules' knowledge so too.)"""
    best: dict[tuple[str, str, str], float] = {}
    for edge in found:
        ends = [(edge.head, edge.tail), (edge.tail, edge.head)] if edge.relation in SYMMETRIC \
            else [(edge.head, edge.tail)]
        for head, tail in ends:
            key = (head, edge.relation, tail)
            best[key] = max(best.get(key, 0.0), edge.weight)
    return sorted(Triple(*key, w) for key, w in best.items())


def starts(steps: Mapping[int | str, Fact], fact: Fact, scene: set[str],
           together: Mapping[str, Collection[str]]) -> set[str]:
    """The classes the objects of a step's input may have: those of the scene's objects of the
    class that input selects (through filters and `unique`), where the scene has such objects;
    else every class of the scene.  (A walk out of classes no input object has is wasted, and
    over a large base it spends the edge limit before the walk gets deep.)"""
    step = steps.get(fact.args[1])
    while step is not None:
        if step.name in _SELECTING:
            found = together.get(str(step.args[2]))
            return set(found) if found else scene
        if step.name not in _KEEPING:
            break
        step = steps.get(step.args[1])
    return scene


#: Steps whose objects are all of the class they name (their first literal, after their input).
_SELECTING = frozenset({"select", "relate", "relate_attr"})
#: Steps whose objects are some of their input's.
_KEEPING = frozenset({"filter", "filter_any", "unique"})


def facts(knowledge: Knowledge, question: Query, classes: Iterable[str], *,
          together: Mapping[str, Collection[str]] | None = None, limit: int = LIMIT,
          rank: str = ranking.DEFAULT, text: str | None = None) -> list[clingo.Symbol]:
    """``knowledge/3`` and ``knowledge_cost/4`` for the edges a question needs (`edges`):
    `question` its lowered facts, `classes` every class the scene's objects have (their names
    and categories, and any a rules file derives); each edge's cost from its weight as `rank`
    ranks paths (`qlang.text.ranking`), against the English question `text` where there is
    one, else the question's own words (`said`)."""
    symbols: list[clingo.Symbol] = []
    needed = edges(knowledge, question, classes, together=together, limit=limit)
    for edge in ranking.ranked(needed, rank, said(question) if text is None else text):
        known = stated(edge)
        cost = clingo.Number(weight(edge.weight))
        symbols += [known, clingo.Function("knowledge_cost", [*known.arguments, cost])]
    return symbols


def said(question: Query) -> str:
    """A question's own words, for want of its English: its steps' literals in order, a
    relation as words (``table made of``)."""
    return " ".join(str(a).replace("_", " ") for fact in question if fact.name != END
                    for a in fact.args[1 + len(SIGNATURES[fact.name].operands):])


def stated(edge: Triple) -> clingo.Symbol:
    """``knowledge(H, R, T)`` of an edge, its words spelled as the scene and programs spell them."""
    words = [to_symbol(edge.head), relation_symbol(edge.relation), to_symbol(edge.tail)]
    return clingo.Function("knowledge", words)


#: The edge behind a step's answer, as the theory leaves it: step, place on its path, edge.
PATH = "knowledge_path"


def paths(atoms: Iterable[clingo.Symbol]) -> dict[int, list[str]]:
    """The knowledge paths behind each step's answer, read off a model's ``knowledge_path(T, I,
    H, R, X)`` atoms (edge I of a path; a second path, `infer`'s ``is_a`` chain to its class,
    numbered -1, -2, ...) and shown as ``kb paths`` shows them: ``cup -used_for-> drinking``, a
    path of two edges ``sandwich -is_a-> food -related_to-> ketchup``."""
    edges: dict[tuple[int, bool], dict[int, list[tuple[str, str, str]]]] = {}
    for atom in atoms:
        if atom.name == PATH and len(atom.arguments) == 5:
            step, place, *words = atom.arguments
            head, relation, tail = (from_term(str(w)) for w in words)
            edges.setdefault((step.number, place.number < 0), {}).setdefault(abs(place.number), []).append(
                (head, relation.replace(" ", "_"), tail))
    found: dict[int, list[str]] = {}
    for (number, _), places in sorted(edges.items()):
        found.setdefault(number, []).extend(_chains(places))
    return found


def _chains(places: dict[int, list[tuple[str, str, str]]]) -> list[str]:
    """Every path through the edges, edge i + 1 starting where edge i ends, shown."""
    chains: list[Sequence[tuple[str, str, str]]] = [[edge] for edge in sorted(places.get(1, []))]
    for place in range(2, max(places) + 1):
        chains = [[*chain, edge] for chain in chains for edge in sorted(places.get(place, []))
                  if edge[0] == chain[-1][2]]
    return [" ".join([chain[0][0], *(f"-{relation}-> {tail}" for _, relation, tail in chain)])
            for chain in chains]
