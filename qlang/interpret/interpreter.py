"""Running a program over a GQA scene graph in Python: the seed thesis's semantic interpreter.

Every operation of `SIGNATURES` is one method below.  `unique` does not guess: when several
objects qualify, each is tried in turn, and so are the several values a `query` or `choose`
may find; the program's answer is the set of answers over these choices (a shared `unique`
node chooses once for all its consumers, as in the ASP theory).  A choice that fails is
dropped; one answer left is *the* answer, several are `AmbiguousAnswer`, none re-raises the
first failure.  An empty input to `unique` is `MissingEdge` after a relation and `EmptyChoice`
after `compare`, since those name the reason best; otherwise it is `EmptyQuery`.

Two semantics.  ``thesis`` is §4.1 of the seed thesis, what its oracle did: a relation that
finds nothing raises `MissingEdge` wherever it is (so ``exist`` over it has no answer), and a
choice answers with its *first* option that holds.  ``qlang`` (the default here) follows the
ASP theory instead, so that the differential test can hold the two back ends to one meaning: an
empty relation is an empty set, and a choice answers with every option that holds (then
`AmbiguousAnswer` when several do).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from qlang.errors import QlangError
from qlang.interpret.failures import (
    AmbiguousAnswer,
    EmptyChoice,
    EmptyQuery,
    InterpretError,
    MissingEdge,
    NonTrivialCategory,
)
from qlang.interpret.knowledge_operations import HOPS, KnowledgeOperations
from qlang.interpret.membership import Membership
from qlang.interpret.scene import Scene, SceneObject
from qlang.ir import Node, postorder
from qlang.knowledge import graph, sources
from qlang.passes.vocabulary import RELATION_NAMES
from qlang.signatures import SIGNATURES
from qlang.syntax import gqa
from qlang.text.evidence import LYING, NOTHING, Evidence

Objects = tuple[str, ...]
_EMPTY_INPUT: Mapping[str, type[InterpretError]] = {
    "relate": MissingEdge, "relate_any": MissingEdge, "relate_attr": MissingEdge,
    "compare": EmptyChoice,
}
#: Spatial relations answer as the side: "to the left (of)" -> "left", "in front of" -> "front".
_SIDE = re.compile(r"to the (\w+)(?: of)?|in (\w+) of")
#: The interpreter's semantics (module docstring): the seed thesis's §4.1, or the ASP theory's.
SEMANTICS = ("thesis", "qlang")


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answers over every choice of objects and values, and why other choices failed."""

    answers: frozenset[str]
    failures: tuple[InterpretError, ...]

    @property
    def answer(self) -> str:
        if len(self.answers) > 1:
            raise AmbiguousAnswer(self.answers)
        if not self.answers:
            raise self.failures[0] if self.failures else EmptyQuery("no answer")
        return next(iter(self.answers))


def sanitize(answer: object) -> str:
    """The answer as GQA writes it: yes/no for Booleans, the side for a spatial relation.

    >>> sanitize(True), sanitize("to the left of"), sanitize("in front of"), sanitize("on top of")
    ('yes', 'left', 'front', 'on top of')
    """
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    side = _SIDE.fullmatch(str(answer))
    return next(filter(None, side.groups())) if side else str(answer)


def evaluate(root: Node, scene: Scene, membership: Membership | None = None,
             semantics: str = "qlang", knowledge: graph.Knowledge | None = None,
             text: Evidence = NOTHING) -> Outcome:
    """Every answer the program can give over the scene (`membership`: ontology and WordNet;
    `knowledge`: the knowledge base the knowledge operations read, the bundled one when not
    given; `text`: what the text operations found in the scene's documents)."""
    run = Run(scene, membership or Membership(), semantics == "thesis", knowledge, text)
    answers = frozenset(sanitize(a) for a in run.branches(postorder(root), 0, {}))
    return Outcome(answers, tuple(run.failures))


def interpret(root: Node, scene: Scene, membership: Membership | None = None,
              semantics: str = "qlang", knowledge: graph.Knowledge | None = None,
              text: Evidence = NOTHING) -> str:
    """The program's one answer over the scene, or the `InterpretError` saying why there is none."""
    return evaluate(root, scene, membership, semantics, knowledge, text).answer


def answerable(question: Mapping[str, Any], scene: Scene, membership: Membership | None = None,
               semantics: str = "thesis") -> bool:
    """Whether a GQA question's gold program yields its gold answer over its scene graph: the
    seed's filter, so that translations are judged only where the oracle can answer."""
    try:
        root = gqa.to_ir(gqa.steps_from_json(question["semantic"]))
        return bool(interpret(root, scene, membership, semantics) == question["answer"])
    except (InterpretError, QlangError):
        return False


class Run:
    """One program run over one scene: a method per operation, and why choices failed."""

    def __init__(self, scene: Scene, membership: Membership, thesis: bool,
                 knowledge: graph.Knowledge | None = None, text: Evidence = NOTHING) -> None:
        self.scene = scene
        self.text = text
        self.k = membership
        self.thesis = thesis
        self.failures: list[InterpretError] = []
        self._knowledge = knowledge
        self._graph: KnowledgeOperations | None = None

    def branches(self, order: list[Node], index: int, values: dict[Node, Any]) -> Iterator[Any]:
        """The root's value for each choice made at the nodes from `index` on."""
        if index == len(order):
            yield values[order[-1]]
            return
        node = order[index]
        try:
            options = OPERATIONS[node.op](self, node, *(values[x] for x in node.operands),
                                           *node.literals)
        except InterpretError as failure:
            self.failures.append(failure)
            return
        for option in options:
            values[node] = option
            yield from self.branches(order, index + 1, values)

    # ----- helpers --------------------------------------------------------------------------

    def obj(self, oid: str) -> SceneObject:
        return self.scene.objects[oid]

    def values(self, oid: str, category: str) -> tuple[str, ...]:
        return self.k.values(self.scene, self.obj(oid), category)

    def has(self, oid: str, category: str, value: str) -> bool:
        return self.k.has(self.scene, self.obj(oid), category, value)

    def related(self, xs: Objects, rel: str, direction: str, cls: str) -> Objects:
        """Objects of `cls` linked to one of `xs` by `rel`; `subject`: they are its subject."""
        found = (r.other for x in xs
                 for r in (self.obj(x).incoming if direction == "subject" else self.obj(x).outgoing)
                 if r.name == rel and self.k.is_a(self.obj(r.other).name, cls))
        return tuple(dict.fromkeys(found))

    @property
    def graph(self) -> KnowledgeOperations:
        """The knowledge graph, opened on first use (the bundled base unless one was given)."""
        if self._graph is None:
            knowledge = self._knowledge if self._knowledge is not None else sources.knowledge([])
            self._graph = KnowledgeOperations(knowledge)
        return self._graph

    def keep(self, xs: Objects, test: Callable[[str], bool]) -> list[Objects]:
        return [tuple(x for x in xs if test(x))]

    def traversed(self, found: Objects, what: str) -> list[Objects]:
        """A relation's result; the thesis's `relate` fails on finding nothing."""
        if self.thesis and not found:
            raise MissingEdge(f"no {what}")
        return [found]

    def chosen(self, held: list[str]) -> list[str]:
        """A choice's answers: the thesis's `choose` takes the first option that holds."""
        return held[:1] if self.thesis else held

    def described(self, xss: Sequence[Objects], category: str) -> list[set[str]]:
        """Each object's values of `category`; comparing objects the graph says nothing of is
        beyond it."""
        values = [set(self.values(x, category)) for xs in xss for x in xs]
        if not all(values):
            raise NonTrivialCategory(f"an object compared by {category} has no {category}")
        return values

    # ----- Objects -------------------------------------------------------------------------

    def scene_(self, _: Node) -> list[Objects]:
        return [tuple(self.scene.objects)]

    def select(self, _: Node, xs: Objects, cls: str) -> list[Objects]:
        return self.keep(xs, lambda x: self.k.is_a(self.obj(x).name, cls))

    def filter(self, _: Node, xs: Objects, category: str, value: str) -> list[Objects]:
        return self.keep(xs, lambda x: self.has(x, category, value))

    def filter_any(self, _: Node, xs: Objects, value: str) -> list[Objects]:
        return self.keep(xs, lambda x: self.k.has_anywhere(self.scene, self.obj(x), value))

    def relate(self, _: Node, xs: Objects, cls: str, rel: str, direction: str) -> list[Objects]:
        role = "subject" if direction == "subject" else "object"
        return self.traversed(self.related(xs, rel, direction, cls),
                              f"{cls} is the {role} of a {rel!r} edge of the input")

    def relate_any(self, node: Node, xs: Objects, rel: str, direction: str) -> list[Objects]:
        return self.relate(node, xs, "_", rel, direction)

    def relate_attr(self, _: Node, xs: Objects, cls: str, category: str) -> list[Objects]:
        def shares(o: str) -> bool:
            mine = set(self.values(o, category))
            return any(x != o and mine & set(self.values(x, category)) for x in xs)

        (found,) = self.keep(tuple(self.scene.objects),
                             lambda o: self.k.is_a(self.obj(o).name, cls) and shares(o))
        return self.traversed(found, f"{cls} shares the input's {category}")

    def unique(self, node: Node, xs: Objects) -> list[str]:
        return self.one(xs, node.operands[0].op)

    def one(self, xs: Objects, source: str) -> list[str]:
        """`unique`'s choices: each of `xs`; none fails as the operation `source` explains best."""
        if not xs:
            raise _EMPTY_INPUT.get(source, EmptyQuery)(f"{source} found no object")
        return list(xs)

    def negate(self, _: Node, removed: Objects, xs: Objects) -> list[Objects]:
        return self.keep(xs, lambda x: x not in removed)

    def match(self, _: Node, xs: Objects, text: str, count: str) -> list[Objects]:
        """The input objects among the `count` best matches of `text`: those fewer than `count`
        input objects match strictly better (so ties at the last place are all kept)."""
        costs = self.text.matches.get(text, {})
        found = {x: costs[x] for x in xs if x in costs}
        return [tuple(x for x, c in found.items() if sum(d < c for d in found.values()) < int(count))]

    def compare(self, _: Node, xs: Objects, ys: Objects, value: str, mode: str) -> list[Objects]:
        def holds(o: str) -> bool:
            return self.k.has_anywhere(self.scene, self.obj(o), value) == (mode == "true")

        pairs = [(x, y) for x in xs for y in ys if holds(x) != holds(y)]
        return [tuple(dict.fromkeys(x if holds(x) else y for x, y in pairs))]

    # ----- Values ----------------------------------------------------------------------------

    def query(self, _: Node, x: str, category: str) -> Sequence[str]:
        values = self.values(x, category)
        if not values:
            raise EmptyQuery(f"{self.obj(x).name} ({x}) has no {category}")
        return values

    def choose_attr(self, _: Node, x: str, category: str, *options: str) -> list[str]:
        held = [v for v in options if self.has(x, category, v)]
        if not held:
            raise EmptyChoice(f"{self.obj(x).name} ({x}) is neither {' nor '.join(options)}")
        return self.chosen(held)

    def choose_rel(self, _: Node, x: str, cls: str, rel0: str, rel1: str, direction: str) -> list[str]:
        held = [r for r in (rel0, rel1) if self.related((x,), r, direction, cls)]
        if not held:
            raise MissingEdge(f"no {cls} is {rel0} or {rel1} {self.obj(x).name} ({x})")
        return self.chosen(held)

    def common(self, _: Node, x: str, y: str) -> list[str]:
        shared = set(self.obj(x).attributes) & set(self.obj(y).attributes)
        found = sorted({c for v in shared for c in self.k.categories(v)})
        if not found:
            raise EmptyQuery(f"{self.obj(x).name} and {self.obj(y).name} share no attribute")
        return found

    def know(self, _: Node, x: str, relation: str) -> list[str]:
        found = self.graph.know(self.k.classes(self.obj(x)), RELATION_NAMES[relation])
        if not found:
            raise EmptyQuery(f"{self.obj(x).name} ({x}) has no {relation!r} edge in the knowledge")
        return sorted(found)

    def infer(self, _: Node, xs: Objects, cls: str) -> list[str]:
        starts = dict.fromkeys(c for x in xs for c in self.k.classes(self.obj(x)))
        found = self.graph.infer(starts, cls)
        if not found:
            raise EmptyQuery(f"no {cls} within {HOPS} knowledge edges of the input's classes")
        return sorted(found)

    def extract(self, _: Node, xs: Objects, question: str) -> list[str]:
        spans = self.text.answers.get(question, {})
        found = {spans[x].text for x in xs if x in spans}
        if not found:
            raise EmptyQuery(f"no document of the input answers {question!r}")
        return sorted(found)

    def read(self, _: Node, x: str) -> list[str]:
        """The texts the object shows, and those of the objects lying on it."""
        lying = [r.other for r in self.obj(x).incoming if r.name in LYING]
        found = {f.text for o in (x, *lying) for f in self.text.shown.get(o, ())}
        if not found:
            raise EmptyQuery(f"{self.obj(x).name} ({x}) shows no text")
        return sorted(found)

    # ----- Bools -----------------------------------------------------------------------------

    def verify_attr(self, _: Node, x: str, category: str, value: str) -> list[bool]:
        return [self.has(x, category, value)]

    def verify_rel(self, _: Node, x: str, cls: str, rel: str, direction: str) -> list[bool]:
        return [bool(self.related((x,), rel, direction, cls))]

    def verify_know(self, _: Node, x: str, relation: str, word: str) -> list[bool]:
        return [word in self.graph.know(self.k.classes(self.obj(x)), RELATION_NAMES[relation])]

    def exist(self, _: Node, xs: Objects) -> list[bool]:
        return [bool(xs)]

    def all_same(self, _: Node, xs: Objects, category: str) -> list[bool]:
        values = self.described([xs], category)
        return [all(v == values[0] for v in values)]

    def all_different(self, _: Node, xs: Objects, category: str) -> list[bool]:
        values = self.described([xs], category)
        return [not any(values[i] & values[j] for i in range(len(values)) for j in range(i))]

    def two_same(self, _: Node, xs: Objects, ys: Objects, category: str) -> list[bool]:
        left, right = self.described([xs], category), self.described([ys], category)
        return [any(a & b for a in left for b in right)]

    def two_different(self, _: Node, xs: Objects, ys: Objects, category: str) -> list[bool]:
        left, right = self.described([xs], category), self.described([ys], category)
        return [any(not (a == b and len(a) == 1) for a in left for b in right)]

    def and_(self, _: Node, a: bool, b: bool) -> list[bool]:
        return [a and b]

    def or_(self, _: Node, a: bool, b: bool) -> list[bool]:
        return [a or b]


#: One method per operation of the table; a missing one fails at import, not mid-run.
OPERATIONS: dict[str, Callable[..., Sequence[Any]]] = {
    name: getattr(Run, {"scene": "scene_", "and": "and_", "or": "or_"}.get(name, name))
    for name in SIGNATURES
}
