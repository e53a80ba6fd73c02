"""`infer`'s answers and paths against a plain breadth-first search, on generated graphs.

The search below is written from the definition alone (theory/knowledge.lp): walks of 0 to 3
edges out of the objects' classes, forwards (a symmetric relation's edges both ways, GQA's class
hierarchy as ``is_a`` edges of weight 1), each edge costing -1000 ln w; an answer is a word an
``is_a`` chain of 1 to 3 edges leads from to the class, ranked by its cheapest walk, then by the
fewest edges.  The theory must give every such answer, at that cost, and explain the best one
by a path of its edges of exactly that cost and length.
"""

from __future__ import annotations

import json
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qlang.asp import knowledge_facts
from qlang.asp.explain import explain
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary, weight
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.ir import op
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.index import build
from qlang.knowledge.relations import SYMMETRIC
from qlang.knowledge.triples import Triple
from qlang.ontology import load
from qlang.passes.lower import facts
from tests.strategies import CATEGORIES, KNOWLEDGE_WORDS, NAMES, knowledge_triples

Edges = dict[str, dict[tuple[str, str], int]]


def walked(triples: list[Triple], words: set[str]) -> Edges:
    """word -> (relation, word) -> cost of the cheapest such edge, walked forwards (a symmetric
    one also backwards), with the hierarchy's edges out of `words` and of their categories."""
    out: Edges = {}

    def add(head: str, relation: str, tail: str, w: float) -> None:
        edges = out.setdefault(head, {})
        edges[relation, tail] = min(edges.get((relation, tail), weight(w)), weight(w))

    for t in triples:
        add(t.head, t.relation, t.tail, t.weight)
        if t.relation in SYMMETRIC:
            add(t.tail, t.relation, t.head, t.weight)
    todo, done = list(words), set()
    while todo:  # the categories' own categories too
        word = todo.pop()
        if word not in done:
            done.add(word)
            for category in load().ancestors(word):
                add(word, "is_a", category, 1.0)
                todo.append(category)
    return out


def search(triples: list[Triple], starts: set[str], cls: str) -> dict[str, tuple[int, int]]:
    """Every answer with (its cheapest walk's cost, the fewest edges of such a walk)."""
    edges = walked(triples, {*starts, *KNOWLEDGE_WORDS})
    levels = [dict.fromkeys(starts, 0)]  # level d: the cheapest walk of exactly d edges to a word
    for _ in range(3):
        level: dict[str, int] = {}
        for word, cost in levels[-1].items():
            for (_, other), edge in edges.get(word, {}).items():
                level[other] = min(level.get(other, cost + edge), cost + edge)
        levels.append(level)
    best: dict[str, tuple[int, int]] = {}
    for hops, level in enumerate(levels):
        for word, cost in level.items():
            best[word] = min(best.get(word, (cost, hops)), (cost, hops))

    def member(word: str) -> bool:
        chain = {word}
        for _ in range(3):
            chain = {other for w in chain for (relation, other) in edges.get(w, {}) if relation == "is_a"}
            if cls in chain:
                return True
        return False

    return {word: rank for word, rank in best.items() if word != cls and member(word)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(triples=knowledge_triples(max_size=24), names=st.lists(st.sampled_from(NAMES), min_size=1, max_size=2),
       cls=st.sampled_from((*CATEGORIES, "pet", "metal")))
def test_infer_ranks_as_a_breadth_first_search(triples: list[Triple], names: list[str], cls: str) -> None:
    graph = {"width": 300, "height": 300, "objects": {
        str(i): {"name": name, "x": 10, "y": 10, "w": 20, "h": 20, "attributes": [], "relations": []}
        for i, name in enumerate(names)}}
    starts = {c for name in names for c in (name, *load().ancestors(name))}
    expected = search(triples, starts, cls)
    question = facts(op("infer", op("scene"), cls))
    with TemporaryDirectory() as folder:
        knowledge = Knowledge([build(triples, Path(folder) / "k.sqlite", {})])
        scene = "\n".join([SceneLibrary(Source(json.dumps(graph))).facts(),
                           *(f"{s}." for s in knowledge_facts.facts(knowledge, question, starts))])
    found = solve(question, scene, SolveOptions(top_k=len(expected) + 1, distinct=True)).answers
    assert {a.value: a.cost for a in found} == expected
    assert [a.cost for a in found] == sorted(expected.values())  # best first
    if not expected:
        return
    explanation = explain(question, scene)
    assert explanation is not None
    (step,) = [s for s in explanation.steps if s.op == "infer"]
    answer = explanation.answer.value
    cost, hops = expected[answer]
    edges = walked(triples, {*starts, *KNOWLEDGE_WORDS})
    # the walks (none at no hops), each of the answer's cost, then the shortest is_a chains
    walks = [p for p in step.paths if not p.startswith(f"{answer} ")] if hops else []
    chains = [p for p in step.paths if p not in walks]
    assert bool(walks) == bool(hops) and chains, step.paths
    for path in walks:
        assert path.split(" ")[0] in starts
        assert read(path, edges, answer) == (cost, hops), path
    lengths = {read(path, edges, cls)[1] for path in chains}
    assert len(lengths) == 1 and all(set(p.split(" ")[1::2]) == {"-is_a->"} for p in chains)
    assert lengths == {min(d for d in (1, 2, 3) if chain_of(edges, answer, cls, d))}


def read(path: str, edges: Edges, end: str) -> tuple[int, int]:
    """The cost and length of a shown path (``a -r-> b -s-> c``) ending in `end`, each of its
    edges an edge of the graph."""
    words = path.split(" ")
    assert words[-1] == end, path
    pairs = list(zip(words[1::2], words[2::2], strict=True))
    heads = [words[0], *(tail for _, tail in pairs)][:-1]
    return sum(edges[head][relation.strip("->"), tail]
               for head, (relation, tail) in zip(heads, pairs, strict=True)), len(pairs)


def chain_of(edges: Edges, word: str, cls: str, length: int) -> bool:
    """Whether `length` is_a edges lead from `word` to `cls`."""
    level = {word}
    for _ in range(length):
        level = {other for w in level for (relation, other) in edges.get(w, {}) if relation == "is_a"}
    return cls in level
