"""Training pairs for the knowledge operations, made by templates over the ontology and the
knowledge base: GQA has no question that `know`, `verify_know` or `infer` answers.

A family is one operation with one knowledge relation ("know made_of") and a few phrasings of
it, in GQA's register ("What is a {x} usually made of?").  Its words are real: a class of the
ontology with an edge of the relation in the knowledge (a tail it has, for `verify_know`), or,
for `infer`, a class category some word of which the walks from the class reach over a strong
path.  The bundled base has no ``used_for`` edge, so "What is the cup used for?" is made over
the classes of GQA's categories of made things: the program is right, and a ConceptNet file
given to ``--kb`` answers it.

GQA already asks "What is the table made of?" (the table's `material`) and "What vehicle is
this?" (`query(..., name)`), so the phrasings are ones GQA never uses: the knowledge is general
("usually", "made from", "a kind of"), and `infer`'s questions ask what a thing brings to mind,
not what is near it.  A noun phrase is said as GQA says it: "the cup", "this cup", "a cup",
"the cups", "cups"; a plural GQA has as a class of its own (`trees`) is that class.

Split: in each family, the phrasing whose text hashes lowest is held out (`dev`): its questions
measure how far the translator carries the operations to a phrasing it never saw.  The split is
by template, so it is the same for every seed and size; the seed draws the words.

>>> for pair in knowledge_pairs(14, seed=0)[6:]:
...     print(pair.split, pair.question)
...     print("     ", pair.program)
dev   Are the cloths usually made of woof?
      verify_know(unique(select(scene(), cloths)), made_of, woof)
train Is that sofa part of a living room?
      verify_know(unique(select(scene(), sofa)), part_of, living_room)
dev   Do these trucks usually have a bumper?
      verify_know(unique(select(scene(), trucks)), has_a, bumper)
train Is that bull usually masculine?
      verify_know(unique(select(scene(), bull)), has_property, masculine)
train Are the swamps a kind of wetland?
      verify_know(unique(select(scene(), swamp)), is_a, wetland)
train What kind of bird is associated with that lake?
      infer(select(scene(), lake), bird)
dev   What vegetable does this picture make you think of?
      infer(scene(), vegetable)
train What are bricks made from?
      know(unique(select(scene(), bricks)), made_of)
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol, TypeVar

from qlang.api import check
from qlang.interpret.knowledge_operations import KnowledgeOperations
from qlang.ir import Node, op
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.ontology import CLASS_CATEGORIES, Ontology, load
from qlang.passes.vocabulary import RELATION_NAMES
from qlang.syntax import SYNTAXES
from qlang.train.pairs import Pair
from qlang.words import article, plural, plural_only

#: the weakest best path an `infer` pair may rest on (one of Pattern's single-vote edges is 0.63)
MIN_PATH_WEIGHT = 0.5
#: GQA's categories of things made to be used: the classes "What is the X used for?" is asked of
USED_CATEGORIES = frozenset({"furniture", "vehicle", "appliance", "device", "container", "clothing",
                             "footwear", "accessory", "toy", "bag", "cooking utensil", "tableware",
                             "utensil", "instrument", "weapon", "office supplies", "bottle",
                             "aircraft", "watercraft"})
#: class categories no one asks "what kind of ... comes to mind": everything is one
_VAGUE = frozenset({*CLASS_CATEGORIES, "thing", "object"})
#: GQA's categories of stuff rather than things: said without "a" and never in the plural
_MASS = frozenset({"drink", "liquid", "material", "meat", "sauce", "flavor", "ingredient", "textile"})
#: how a noun phrase opens, of a thing, of stuff, of things ({x}: the class as said)
_SINGULAR = ("the {x}", "this {x}", "that {x}", "{a} {x}")
_STUFF = ("the {x}", "this {x}", "that {x}", "{x}")
_PLURAL = ("the {x}", "these {x}", "{x}")
_NAME = {relation: word for word, relation in RELATION_NAMES.items()}


@dataclass(frozen=True, slots=True)
class Family:
    """One operation (with its knowledge relation) and the phrasings that ask it.  Templates
    say {np} for the object's noun phrase, {be} and {do} agreeing with it, {y} / {a_y} for
    `verify_know`'s word, {c} / {a_c} for `infer`'s class."""

    operation: str
    relation: str | None
    templates: tuple[str, ...]
    #: `infer` over the whole scene ("What vehicle could this be?"), no noun phrase
    scene: bool = False

    @property
    def name(self) -> str:
        return f"{self.operation} {self.relation or ('scene' if self.scene else 'objects')}"

    @property
    def held_out(self) -> str:
        return held_out(self.templates)


def held_out(templates: tuple[str, ...]) -> str:
    """A family's dev phrasing: the one whose text hashes lowest (stable, seed-free)."""
    return min(templates, key=lambda t: hashlib.sha256(t.encode("utf-8")).digest())


FAMILIES = (
    Family("know", "made_of", ("What {be} {np} usually made of?", "What {be} {np} made from?",
                               "What {do} {np} consist of?", "What {be} {np} typically made of?",
                               "What substance {be} {np} made of?", "What {be} {np} normally made from?")),
    Family("know", "used_for", ("What {be} {np} used for?", "What can {np} be used for?",
                                "What do people use {np} for?", "What {be} {np} usually used for?",
                                "What is the purpose of {np}?", "What {be} {np} good for?")),
    Family("know", "part_of", ("What {be} {np} part of?", "What {be} {np} usually a part of?",
                               "What {be} {np} typically part of?", "Which whole {be} {np} a part of?")),
    Family("know", "has_a", ("What parts {do} {np} have?", "What {do} {np} usually have?",
                             "What are the parts of {np}?", "What {do} {np} typically have?",
                             "Which parts {do} {np} have?")),
    Family("know", "has_property", ("What {be} {np} usually like?", "What properties {do} {np} have?",
                                    "What {be} {np} typically like?",
                                    "What qualities {do} {np} usually have?")),
    Family("know", "is_a", ("What {be} {np} a kind of?", "What {be} {np} a type of?",
                            "{np} {be} a kind of what?", "What sort of thing {be} {np}?")),
    Family("verify_know", "made_of", ("{be} {np} usually made of {y}?", "{be} {np} made from {y}?",
                                      "{do} {np} consist of {y}?", "{be} {np} typically made of {y}?")),
    Family("verify_know", "part_of", ("{be} {np} part of {a_y}?", "{be} {np} usually a part of {a_y}?",
                                      "{be} {np} typically part of {a_y}?")),
    Family("verify_know", "has_a", ("{do} {np} usually have {a_y}?", "{do} {np} typically have {a_y}?",
                                    "{be} {a_y} one of the parts of {np}?",
                                    "{do} {np} normally have {a_y}?")),
    Family("verify_know", "has_property", ("{be} {np} usually {y}?", "{be} {np} typically {y}?",
                                           "{be} {np} generally {y}?", "{be} {np} normally {y}?")),
    Family("verify_know", "is_a", ("{be} {np} a kind of {y}?", "{be} {np} a type of {y}?",
                                   "{be} {np} some sort of {y}?")),
    Family("infer", None, ("What kind of {c} is associated with {np}?", "Which {c} is related to {np}?",
                           "What {c} comes to mind when you see {np}?", "What {c} might go with {np}?",
                           "Which {c} do you associate with {np}?", "Name {a_c} connected to {np}.")),
    Family("infer", None, ("What {c} does this picture make you think of?", "What {c} could this be?",
                           "Which {c} comes to mind when you look at this image?",
                           "What kind of {c} might this be?", "What {c} does this scene remind you of?"),
           scene=True),
)


@dataclass(frozen=True, slots=True)
class Thing:
    """A class as a question says it: the words, in the plural or not, and the class the
    program selects."""

    said: str
    many: bool
    cls: str
    stuff: bool = False

    def phrase(self, rng: random.Random) -> str:
        opening = rng.choice(_PLURAL if self.many else _STUFF if self.stuff else _SINGULAR)
        return opening.format(x=self.said, a=article(self.said))


def things(ontology: Ontology) -> list[Thing]:
    """Every class in the singular and the plural, as GQA writes them: a plural it has as a
    class of its own (`trees`) is that class; other plurals select the singular.  Stuff
    (`milk`, `wood`) is never counted."""
    found = []
    for cls in sorted(ontology.classes):
        if plural_only(cls):  # `trees`, `jeans`: only ever said as they are
            found.append(Thing(cls, True, cls))
            continue
        stuff = bool(_MASS.intersection(ontology.ancestors(cls)))
        found.append(Thing(cls, False, cls, stuff))
        if not stuff and plural(cls) not in ontology.classes:
            found.append(Thing(plural(cls), True, cls))
    return found


class _Words:
    """The fillers of each family: what the ontology and the knowledge really connect."""

    def __init__(self, knowledge: Knowledge, ontology: Ontology) -> None:
        self.knowledge, self.ontology = knowledge, ontology
        self.graph = KnowledgeOperations(knowledge)
        self.things = things(ontology)
        self.sayable = ontology.classes | ontology.values
        self._tails: dict[str, dict[str, list[str]]] = {}
        self._subjects: dict[str, list[Thing]] = {}

    def tails(self, relation: str) -> dict[str, list[str]]:
        """Per class, the words it has an edge of `relation` to that a question can say so that
        a program copies them: one plain word, or a phrase of the ontology."""
        if relation not in self._tails:
            found: dict[str, list[str]] = {}
            for edge in self.knowledge.edges(self.ontology.classes, relations=[relation]):
                plain = edge.tail.isascii() and edge.tail.isalpha()
                if edge.tail != edge.head and (plain or edge.tail in self.sayable):
                    found.setdefault(edge.head, []).append(edge.tail)
            self._tails[relation] = found
        return self._tails[relation]

    def subjects(self, family: Family) -> list[Thing]:
        """The things a `know` or `verify_know` family asks about."""
        if family.name not in self._subjects:
            self._subjects[family.name] = [t for t in self.things if self._asked(family, t.cls)]
        return self._subjects[family.name]

    def _asked(self, family: Family, cls: str) -> bool:
        if family.relation == "used_for":
            return bool(USED_CATEGORIES.intersection(self.ontology.ancestors(cls)))
        assert family.relation is not None
        if family.operation == "verify_know":
            return cls in self.tails(family.relation)
        return cls in self.tails(family.relation) or bool(
            self.knowledge.edges([cls], relations=[family.relation]))

    @cached_property
    def categories(self) -> list[str]:
        return sorted(set(self.ontology.class_members) - _VAGUE)

    def reaches(self, thing: Thing, category: str) -> bool:
        """Whether `infer` from the thing finds a word of the category (the thing not being
        one) over a path of weight `MIN_PATH_WEIGHT` or more."""
        starts = [thing.cls, *self.ontology.ancestors(thing.cls)]
        if category in starts or self.graph.member(thing.cls, category):
            return False
        found = self.graph.infer(starts, category)
        return max(found.values(), default=0.0) >= MIN_PATH_WEIGHT


def _question(template: str, rng: random.Random, thing: Thing | None = None, y: str = "",
              c: str = "") -> str:
    many = thing is not None and thing.many
    text = template.format(np=thing.phrase(rng) if thing else "", be="are" if many else "is",
                           do="do" if many else "does", y=y, a_y=f"{article(y)} {y}", c=c,
                           a_c=f"{article(c)} {c}")
    return text[0].upper() + text[1:]


def _example(family: Family, template: str, words: _Words, rng: random.Random) -> tuple[str, Node] | None:
    """A question of one of the family's phrasings, drawn with its words, and its program (None
    when the draw found no words)."""
    if family.operation == "infer":
        category = rng.choice(words.categories)
        if family.scene:
            return _question(template, rng, c=category), op("infer", op("scene"), category)
        thing = rng.choice(words.things)
        if not words.reaches(thing, category):
            return None
        return (_question(template, rng, thing, c=category),
                op("infer", op("select", op("scene"), thing.cls), category))
    assert family.relation is not None
    subjects = words.subjects(family)
    if not subjects:
        return None
    thing = rng.choice(subjects)
    the = op("unique", op("select", op("scene"), thing.cls))
    relation = _NAME[family.relation]
    if family.operation == "know":
        return _question(template, rng, thing), op("know", the, relation)
    tail = rng.choice(words.tails(family.relation)[thing.cls])
    return _question(template, rng, thing, y=tail), op("verify_know", the, relation, tail)


#: draws in a row that find nothing new before a family is given up (its words are used up)
_TRIES = 200


def knowledge_pairs(n: int, *, seed: int = 0, syntax: str = "nested", knowledge: Knowledge | None = None,
                    ontology: Ontology | None = None) -> list[Pair]:
    """Up to `n` distinct (question, program) pairs, as `in_turns` makes them, each program
    checked against the knowledge."""
    knowledge = knowledge if knowledge is not None else sources.knowledge([])
    words = _Words(knowledge, ontology or load())
    rng = random.Random(seed)
    return in_turns(FAMILIES, n, lambda family, template: _example(family, template, words, rng),
                    lambda program: not [d for d in check(program, ontology=words.ontology,
                                                          knowledge=knowledge) if not d.warning],
                    SYNTAXES[syntax].print, "knowledge")


class Phrased(Protocol):
    """A family of phrasings: its name, its templates and the one held out."""

    @property
    def name(self) -> str: ...

    @property
    def templates(self) -> tuple[str, ...]: ...

    @property
    def held_out(self) -> str: ...


F = TypeVar("F", bound=Phrased)


def in_turns(families: Sequence[F], n: int, example: Callable[[F, str], tuple[str, Node] | None],
             well_formed: Callable[[Node], bool], printer: Callable[[Node], str], prefix: str) -> list[Pair]:
    """Up to `n` distinct (question, program) pairs, the families taking turns (while their
    words last: a family that makes no new well-formed example in `_TRIES` leaves) and each
    family's phrasings in turn; a held-out phrasing's are `dev`."""
    pairs: list[Pair] = []
    seen: set[str] = set()
    turns, made_of = list(families), Counter[str]()
    while turns and len(pairs) < n:
        family = turns[len(pairs) % len(turns)]
        template = family.templates[made_of[family.name] % len(family.templates)]
        for _ in range(_TRIES):
            made = example(family, template)
            if made is not None and made[0] not in seen and well_formed(made[1]):
                break
        else:
            turns.remove(family)
            continue
        question, program = made
        seen.add(question)
        made_of[family.name] += 1
        pairs.append(Pair(f"{prefix}-{len(pairs):05d}", "", question, printer(program),
                          "dev" if template == family.held_out else "train",
                          {"family": family.name, "template": template}))
    return pairs
