"""Stratified negation: the order rules are evaluated in, or the cycle through ``not`` that has none.

A rule depends on another when one of its body literals could match what the other derives:
the same predicate, and no position where both hold different words (a variable matches
anything; the category ``any`` matches every category but the class-valued ``class`` and
``name``, as the theory's ``has_attr(O, any, V)`` does).  This is coarser than the ground
program's dependencies, so a file accepted here is stratified however the scene binds its
variables: it has one model, which a Python evaluator computes stratum by stratum as clingo
does.  A negated literal that depends on its own rule through a cycle has no such order; the
cycle is named, rule by rule.

>>> from qlang.errors import Source
>>> from qlang.rules.check import read
>>> read(Source("class a, b.\\nclass(X, a) :- class(X, cup), not class(X, b).\\n"
...             "class(X, b) :- class(X, cup), not class(X, a).", "r.rules"))
Traceback (most recent call last):
...
qlang.errors.CheckError: r.rules:2:35: error: class(X, a) (line 2) depends on not class(X, b) (line 3),
which depends on not class(X, a) (line 2): negation in a cycle has no stratified meaning (a rule may
negate only what does not depend on its own head)
  class(X, a) :- class(X, cup), not class(X, b).
                                    ^~~~~~~~~~~
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from itertools import pairwise

from qlang.errors import Diagnostic
from qlang.rules.language import Atom, Literal, Rule, Word, show

#: Categories the theory's ``any`` does not collect (theory/qlang.lp).
_NOT_ANY = frozenset({"any", "class", "name"})

#: An atom's predicate and its words where a word is written (None for a variable), which
#: decide what it matches: ``attr(X, color, V)`` is ("attr", "color", None).
Key = tuple[str, str | None, str | None]


def key(atom: Atom) -> Key:
    first, second = (t.value if isinstance(t, Word) else None for t in atom.args[1:])
    return atom.predicate, first, second


def matches(literal: Key, head: Key) -> bool:
    """Whether a body literal could read a fact a head derives (their objects are variables)."""
    predicate, first, second = literal
    any_category = predicate == "attr" and first == "any" and head[1] not in _NOT_ANY
    return predicate == head[0] and (first is None or head[1] is None or first == head[1] or any_category) \
        and (second is None or head[2] is None or second == head[2])


class DependencyGraph:
    """Who depends on whom: the rules (nodes ``0..n-1``), each a node per distinct body literal
    (a query) that depends on the nodes of the head keys it matches, each of which depends on
    the rules with such a head.  Queries and keys are shared, so a long file's graph stays
    about as large as the file, where rule-to-rule edges could number its square."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        self.rules = rules
        #: node -> {node it depends on: the negated literal behind the edge, if any}
        self.edges: list[dict[int, Literal | None]] = [{} for _ in rules]
        self.heads: dict[Key, int] = {}
        for index, rule in enumerate(rules):
            for head in rule.heads:
                self.edges[self._node(self.heads, key(head))][index] = None
        self._index: dict[tuple[str, int, str | None], list[Key]] = {}
        for k in self.heads:
            for position in (1, 2):
                self._index.setdefault((k[0], position, k[position]), []).append(k)
        queries: dict[Key, int] = {}
        for index, rule in enumerate(rules):
            for condition in rule.body:
                if isinstance(condition, Literal):
                    query = key(condition.atom)
                    known = query in queries
                    node = self._node(queries, query)
                    if not known:
                        self.edges[node] = {self.heads[k]: None for k in self._matching(query)}
                    if self.edges[index].get(node) is None:
                        self.edges[index][node] = condition if condition.negated else None

    def _node(self, nodes: dict[Key, int], k: Key) -> int:
        if k not in nodes:
            nodes[k] = len(self.edges)
            self.edges.append({})
        return nodes[k]

    def _matching(self, query: Key) -> list[Key]:
        """The head keys a query matches, looked up by its most telling word."""
        predicate, first, second = query
        pool: Iterable[Key]
        if first is not None and second is not None and first != "any":
            pool = ((predicate, a, b) for a in (first, None) for b in (second, None))
            return [k for k in pool if k in self.heads]
        if first is not None and first != "any":
            pool = [*self._keys(predicate, 1, first), *self._keys(predicate, 1, None)]
        elif second is not None:
            pool = [*self._keys(predicate, 2, second), *self._keys(predicate, 2, None)]
        else:
            pool = (k for k in self.heads if k[0] == predicate)
        return [k for k in pool if matches(query, k)]

    def _keys(self, predicate: str, position: int, word: str | None) -> list[Key]:
        return self._index.get((predicate, position, word), [])


def components(edges: list[dict[int, Literal | None]]) -> list[list[int]]:
    """The strongly connected components, each after those it depends on (Tarjan's order),
    without recursion: a rules file may be long."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    stack: list[int] = []
    on_stack: set[int] = set()
    found: list[list[int]] = []
    for root in range(len(edges)):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, out = work[-1]
            for other in out:
                if other not in index:
                    index[other] = low[other] = len(index)
                    stack.append(other)
                    on_stack.add(other)
                    work.append((other, iter(edges[other])))
                    break
                if other in on_stack:
                    low[node] = min(low[node], index[other])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[int] = []
                    while not component or component[-1] != node:
                        component.append(stack.pop())
                        on_stack.discard(component[-1])
                    found.append(component)
    return found


def stratify(rules: Sequence[Rule]) -> tuple[tuple[tuple[int, ...], ...], list[Diagnostic]]:
    """The rules' indices stratum by stratum, and a diagnostic for each component of the
    graph that negates its own derivations."""
    graph = DependencyGraph(rules)
    order = components(graph.edges)
    problems = []
    for component in order:
        members = set(component)
        negated = [(rule, query, literal) for rule in sorted(members) if rule < len(rules)
                   for query, literal in graph.edges[rule].items()
                   if literal is not None and query in members]
        if negated:
            problems.append(_cycle(graph, members, *negated[0]))
    strata = (tuple(sorted(n for n in component if n < len(rules))) for component in order)
    return tuple(s for s in strata if s), problems


def _cycle(graph: DependencyGraph, members: set[int], start: int, query: int,
           literal: Literal) -> Diagnostic:
    """The cycle from the rule `start` through its negated literal, and back to `start`."""
    rules = graph.rules
    path = [start, *_path(graph.edges, members, query, start)]
    hops = [n for n in path if n < len(rules)]  # the rules, in order, `start` first and last
    steps = [f"{show(rules[start].head)} (line {rules[start].line})"]
    for here, there in pairwise(hops):
        via = path[path.index(here) + 1]
        sign = "not " if graph.edges[here][via] is not None else ""
        steps.append(f"{sign}{show(rules[there].head)} (line {rules[there].line})")
    message = steps[0] + " depends on " + ", which depends on ".join(steps[1:])
    return Diagnostic("unstratified", f"{message}: negation in a cycle has no stratified meaning",
                      literal.atom.span, "a rule may negate only what does not depend on its own head")


def _path(edges: list[dict[int, Literal | None]], members: set[int], source: int, target: int) -> list[int]:
    """A shortest path from `source` to `target` within their component (breadth first)."""
    before = {source: source}
    queue = deque([source])
    while target not in before:
        node = queue.popleft()
        for other in edges[node]:
            if other in members and other not in before:
                before[other] = node
                queue.append(other)
    path = [target]
    while path[-1] != source:
        path.append(before[path[-1]])
    return path[::-1]
