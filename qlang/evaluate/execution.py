"""Execution match ("test-suite accuracy", Zhong et al. 2020): same answers on a suite of scenes.

Exact match misses programs that mean the same but are written differently (filters in another
order, a `filter class` of what `select` already chose); answer accuracy on the one real scene
credits wrong programs that answer right by luck.  Text-to-SQL's answer is to run both queries
on a suite of small databases built to tell queries apart; here the databases are synthetic GQA
scenes built from the gold program's own vocabulary, so that its answer turns on what each
scene holds.

>>> from qlang import parse
>>> gold = parse("exist(filter(select(scene(), car), color, red))")
>>> execution_match(parse("exist(filter(filter(select(scene(), car), class, car), color, red))"), gold)
True
>>> execution_match(parse("exist(filter(select(scene(), car), color, blue))"), gold)
False

Each scene has objects of the classes the gold program names (a class category such as
`furniture` becomes a few of its members), some with and some without the values it filters,
verifies or chooses (drawn, per category, from a small palette of the mentioned values and a
few others, so that objects share values as often as they differ), linked by its relations
between objects of the classes its `relate` steps connect, plus a few random objects of any
class; boxes (for `hposition`/`vposition`) and the scene's location and weather are random.
Four times as many scenes as the suite keeps are drawn (three times that many while the gold
program has fewer than two different answers); the suite keeps scenes where the gold
program answers, cycling through its different answers, and up to a fifth where it fails, one
kind of failure after another.  The seed is a SHA-256 of the normalized gold program, so a
suite is the same in every process and on every machine, and equivalent programs get one suite.

Programs run in the Python interpreter with the ontology as its only knowledge (no WordNet: the
scenes use ontology class names), plus the gold program's own pairing of a value with a
category the ontology leaves it out of (`material: cloth`).  An outcome is the answer, the set
of answers when `unique` is ambiguous, or the kind of failure (`EmptyQuery`, `MissingEdge`...);
a candidate execution-matches when its outcome equals the gold's on every scene of the suite.

Measured on the 1,733 gold programs of testdev_ood_head.json (1,049 distinct), suites of 10:
the gold program has one answer on 78% of the scenes (at most 80% where it can fail, as a fifth
of the suite is kept for failures), on at least half of them in 96% of the suites, and more than
one outcome in 97%; the rest are mostly `query place`, which the scene graph cannot answer.
Mutants of the first 600 programs are told apart: a dropped filter 146 of 146, another value
470 of 474, another relation 322 of 322, the other direction 312 of 315.  A suite takes about
7 ms to build and a candidate 0.6 ms to run (2 busy cores), cached per gold program.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import chain, zip_longest
from typing import Any

from qlang.interpret import Membership, Scene, evaluate
from qlang.ir import Node, postorder
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, Ontology, load
from qlang.passes.canonical import normalize
from qlang.signatures import SIGNATURES, Kind

#: Scenes in a suite.
SIZE = 10
#: Scenes drawn per scene kept, and how many times as many when the gold answer never varies.
_DRAWS, _RETRIES = 4, 3
#: Categories a scene derives (name, box, scene-wide) rather than lists among an object's attributes.
_DERIVED = frozenset({*CLASS_CATEGORIES, ANY_CATEGORY, "hposition", "vposition", "location", "weather"})
#: How many objects stand for a class word of the program in a scene.
_COPIES = (0, 1, 1, 1, 2, 2)
_RELATING = frozenset({"relate", "relate_any", "verify_rel", "choose_rel"})
_WIDTH, _HEIGHT = 640, 480


@dataclass(frozen=True, slots=True)
class Result:
    """What a program gives on a scene: its answers (several when ambiguous), or why none."""

    answers: tuple[str, ...]
    failure: str | None = None

    @property
    def answered(self) -> bool:
        return len(self.answers) == 1


@dataclass(frozen=True, slots=True)
class Claims(Membership):
    """The ontology, plus the value-category pairs the gold program asserts and it lacks."""

    claims: frozenset[tuple[str, str]] = frozenset()

    def member(self, value: str, category: str) -> bool | None:
        listed = Membership.member(self, value, category)
        return True if listed is None and (value, category) in self.claims else listed


@dataclass(frozen=True)
class Suite:
    """The scenes built for one gold program, with its outcome on each."""

    scenes: tuple[Scene, ...]
    expected: tuple[Result, ...]
    membership: Claims

    @property
    def answered(self) -> float:
        """The share of scenes on which the gold program has one answer."""
        return sum(r.answered for r in self.expected) / len(self.expected)

    @property
    def distinct(self) -> int:
        """How many different outcomes the gold program has over the suite."""
        return len(set(self.expected))

    def matches(self, candidate: Node) -> bool:
        """Whether the candidate's outcome is the gold's on every scene."""
        normal = normalize(candidate)
        return all(run(normal, scene, self.membership) == expected
                   for scene, expected in zip(self.scenes, self.expected, strict=True))


def run(root: Node, scene: Scene, membership: Membership) -> Result:
    """A (checked) program's outcome on a scene."""
    outcome = evaluate(root, scene, membership)
    if outcome.answers:
        return Result(tuple(sorted(outcome.answers)))
    return Result((), type(outcome.failures[0]).__name__ if outcome.failures else "EmptyQuery")


def suite(gold: Node, size: int = SIZE) -> Suite:
    """The gold program's suite of `size` scenes; built once per program and size."""
    return _suite(normalize(gold), size)


def execution_match(candidate: Node, gold: Node, size: int = SIZE) -> bool:
    """Whether a checked candidate gives the gold program's outcome on every scene of its suite."""
    return suite(gold, size).matches(candidate)


# ----- building a suite ----------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _suite(gold: Node, size: int) -> Suite:
    rng = random.Random(int.from_bytes(hashlib.sha256(str(gold).encode()).digest()[:8], "big"))
    vocabulary = _Vocabulary.of(gold, rng)
    membership = Claims(wordnet=False, claims=vocabulary.claims)
    groups: dict[Result, list[Scene]] = defaultdict(list)
    for draw in range(_DRAWS * _RETRIES * size):
        if draw >= _DRAWS * size and sum(r.answered for r in groups) > 1:
            break
        scene = vocabulary.scene(rng)
        groups[run(gold, scene, membership)].append(scene)
    for scenes in groups.values():
        scenes.sort(key=_richness, reverse=True)
    answered = _round_robin([g for r, g in groups.items() if r.answered])
    failed = _round_robin([g for r, g in groups.items() if not r.answered])
    failing = min(len(failed), max(size // 5, size - len(answered)))
    scenes = answered[:size - failing] + failed[:failing]
    return Suite(tuple(scenes), tuple(run(gold, s, membership) for s in scenes), membership)


def _richness(scene: Scene) -> int:
    """Objects and relations: the more a scene has, the more a wrong step shows in its answer."""
    return sum(1 + len(o.outgoing) for o in scene.objects.values())


def _round_robin(groups: Sequence[list[Scene]]) -> list[Scene]:
    """One scene of each group in turn, so that every outcome is represented."""
    return [s for s in chain.from_iterable(zip_longest(*groups)) if s is not None]


@cache
def _values(category: str) -> tuple[str, ...]:
    """A category's values (`name`: the classes) in a fixed order: a seeded draw from a set
    would differ between processes, whose string hashes differ."""
    return tuple(sorted(load().categories[category]))


@cache
def _carried() -> tuple[str, ...]:
    """The categories whose values objects carry among their attributes."""
    return tuple(sorted(c for c in load().categories if c not in _DERIVED))


@dataclass(frozen=True)
class _Link:
    """A relation the program follows: from objects of `sources` to objects of `target`."""

    sources: frozenset[str]
    target: str
    relations: tuple[str, ...]
    subject: bool


@dataclass(frozen=True)
class _Vocabulary:
    """What the scenes of one suite are made of."""

    #: class word of the program -> the object names that stand for it
    names: dict[str, tuple[str, ...]]
    #: attribute category -> the values objects draw from: those mentioned, and others
    palettes: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
    #: values the program tests in any category that no category lists
    loose: tuple[str, ...]
    links: tuple[_Link, ...]
    claims: frozenset[tuple[str, str]]

    @classmethod
    def of(cls, gold: Node, rng: random.Random) -> _Vocabulary:
        ontology = load()
        terms: set[str] = set()
        values: dict[str, set[str]] = defaultdict(set)
        links = []
        for node in postorder(gold):
            words = _words(node)
            category = next(iter(words.get(Kind.ATTR, ())), ANY_CATEGORY)
            terms.update(w for w in words.get(Kind.CLASS, ()) if w != "_")
            for value in words.get(Kind.VALUE, ()):
                if category in CLASS_CATEGORIES:
                    terms.add(value)
                elif category != ANY_CATEGORY:
                    values[category].add(value)
                else:
                    values[next(iter(ontology.category_of(value)), ANY_CATEGORY)].add(value)
            if node.op in _RELATING:
                target = next(iter(words.get(Kind.CLASS, ())), "_")
                links.append(_Link(_sources(node.operands[0]), target, tuple(words[Kind.REL]),
                                   words[Kind.DIR][0] == "subject"))
        names = {t: _members(t, terms, ontology, rng) for t in sorted(terms)}
        palettes = {c: _palette(values.get(c, set()), _values(c), rng)
                    for c in sorted(set(values) | _categories(gold)) if c in _carried()}
        claims = frozenset((v, c) for c, vs in values.items() if c in _carried() for v in vs)
        loose = tuple(sorted(values.get(ANY_CATEGORY, set())))
        return cls(names, palettes, loose, tuple(links), claims)

    def scene(self, rng: random.Random) -> Scene:
        terms = [t for t in self.names for _ in range(rng.choice(_COPIES))]
        terms += ["_"] * rng.randint(1, 3)
        objects: list[dict[str, Any]] = []
        for term in terms:
            attributes = [v for palette in self.palettes.values() for v in _draw(palette, rng)]
            attributes += [v for v in self.loose if rng.random() < 0.5]
            if rng.random() < 0.3:
                attributes.append(rng.choice(_values(rng.choice(_carried()))))
            objects.append({"term": term, "attributes": list(dict.fromkeys(attributes)),
                            "relations": [], "x": rng.randrange(_WIDTH - 60),
                            "y": rng.randrange(_HEIGHT - 60), "w": 60, "h": 60,
                            "name": rng.choice(self.names.get(term) or _values("name"))})
        for link in self.links:
            for a, b in _pairs(objects, link, rng):
                subject, other = (b, a) if link.subject else (a, b)
                objects[subject]["relations"].append(
                    {"name": rng.choice(link.relations), "object": str(other)})
        return Scene.from_json({
            "width": _WIDTH, "height": _HEIGHT, "location": rng.choice(("indoors", "outdoors")),
            "weather": rng.choice(_values("weather")),
            "objects": {str(i): o for i, o in enumerate(objects)}})


def _words(node: Node) -> dict[Kind, list[str]]:
    words: dict[Kind, list[str]] = defaultdict(list)
    for kind, word in zip(SIGNATURES[node.op].literals, node.literals, strict=False):
        words[kind].append(word)
    return words


def _categories(gold: Node) -> set[str]:
    return {w for node in postorder(gold) for w in _words(node).get(Kind.ATTR, ())}


def _sources(node: Node) -> frozenset[str]:
    """The class words the objects of an Objects-valued step come from (`_`: any class)."""
    words = _words(node).get(Kind.CLASS)
    if words:
        return frozenset(words[:1])
    if node.op in ("scene", "relate_any") or not node.operands:
        return frozenset({"_"})
    if node.op == "negate":
        return _sources(node.operands[1])
    return frozenset().union(*(_sources(o) for o in node.operands))


def _members(term: str, terms: set[str], ontology: Ontology,
             rng: random.Random) -> tuple[str, ...]:
    """The names of objects standing for a class word: itself, or a category's members that the
    program names (`choose name: sofa, table` of a piece of furniture) and a few others."""
    members = sorted(ontology.class_members.get(term, ()))
    named = sorted(terms.intersection(members))
    others = [m for m in members if m not in named]
    return (*named, *rng.sample(others, min(len(others), 2))) if members else (term,)


def _palette(mentioned: set[str], listed: tuple[str, ...],
             rng: random.Random) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The mentioned values, and a few others of the category, so that values recur."""
    others = [v for v in listed if v not in mentioned]
    return tuple(sorted(mentioned)), tuple(rng.sample(others, min(len(others), 2)))


def _draw(palette: tuple[tuple[str, ...], tuple[str, ...]], rng: random.Random) -> list[str]:
    """An object's values of a category: usually one, a mentioned one half the time, sometimes
    two (a `filter` of white then of black wants a black and white object)."""
    drawn = []
    for chance in (0.8, 0.2):
        if rng.random() < chance:
            mentioned, others = palette
            drawn.append(rng.choice(mentioned if mentioned and (rng.random() < 0.5 or not others)
                                    else others))
    return drawn


def _pairs(objects: list[dict[str, Any]], link: _Link, rng: random.Random) -> Iterator[tuple[int, int]]:
    """Pairs (source, target) the link joins: most sources get one target, a few two."""
    for a, source in enumerate(objects):
        if "_" in link.sources or source["term"] in link.sources:
            targets = [b for b, target in enumerate(objects)
                       if b != a and link.target in ("_", target["term"])]
            for chance in (0.7, 0.2):
                if targets and rng.random() < chance:
                    yield a, rng.choice(targets)
