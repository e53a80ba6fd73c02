"""What a perceiver can see: the classes, attribute categories and relations it has a model for.

A "no" about anything else is no evidence: the embedded SSD has no notion of a flag, so a scene
it perceived has no flag in it whether or not the photo has one.  `unseen` lists a
program's words that a perceiver cannot see, so that `ask` says so instead of answering "no".

A class is seen when the perceiver names it, or names one of its members in the ontology (it
sees vehicles by seeing cars and buses); `qlang.vision.kinds.coarse` is the nearest class above
an unseen one that it does see (it sees a person, not whether the person is a man).  OWL-ViT
with CLIP is open vocabulary: it is asked for every word, so it sees them all.

Seeing a class is not covering it: a "no" needs a perceiver that would have found any object of
the class.  The SSD names a `plant` where COCO says "potted plant", so it finds no tree, and it
sees animals only as the ten COCO has; a class is covered when the perceiver names it and its
label is no narrower (`Sight.covers`), and how often it finds one that is there is measured
(`qlang.vision.recall`).

>>> from qlang import parse
>>> [word for _, word in unseen(SIGHTS["ssd"], parse("exist(select(scene(), flag))"))]
['flag']
>>> unseen(SIGHTS["ssd"], parse("query(unique(select(scene(), vehicle)), color)"))
()
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from qlang.ir import Node, postorder
from qlang.ontology import ANY_CATEGORY, load
from qlang.signatures import SIGNATURES, Kind
from qlang.vision.background import CLASSES as BACKGROUND
from qlang.vision.concepts import READ, READ_ALSO
from qlang.vision.geometry import KINDED, RELATIONS
from qlang.vision.labels import COCO, COCO_RENAMED, SHOWS, imagenet_classes
from qlang.vision.stuff import CLASSES as STUFF
from qlang.vision.subject import SUBJECT

#: Categories a scene answers for every object alike: its name and class (what was detected),
#: and where it is in the image (from the box).
EVERY_PERCEIVER = frozenset({"name", "class", "hposition", "vposition"})


@dataclass(frozen=True)
class Sight:
    """The words a perceiver has a model for; None: every word (open vocabulary)."""

    name: str
    classes: frozenset[str] | None
    categories: frozenset[str] | None
    relations: frozenset[str] | None
    #: classes it names by a label for a kind of them only: class -> the label (COCO's potted
    #: plant is named a plant)
    narrower: tuple[tuple[str, str], ...] = ()
    #: classes it finds only now and then, by a classifier named on regions (`regions`): seen,
    #: never covered
    glimpsed: frozenset[str] = frozenset()
    #: stuff it finds by colour, texture and place (`stuff`): seen, never covered
    cued: frozenset[str] = frozenset()
    #: text it finds by reading the photo (`qlang.vision.reading`): seen, never covered
    read: frozenset[str] = frozenset()

    def sees(self, kind: Kind, word: str) -> bool:
        """Whether the perceiver can tell this class, attribute category, value or relation."""
        if kind is Kind.CLASS:
            if self.classes is None:
                return True
            return word in _reached(self.classes | self.glimpsed | self.cued | self.read) \
                or self.glimpses(word)
        if kind is Kind.REL:
            return self.relations is None or word in self.relations
        if kind is Kind.ATTR:
            return word == ANY_CATEGORY or self.categories is None or word in self.categories
        if kind is Kind.VALUE:
            return self.categories is None or any(category in self.categories
                                                  for category in load().category_of(word))
        return True

    def glimpses(self, cls: str) -> bool:
        """Whether it finds the class only now and then, by the classifier on regions: one of
        `glimpsed`, or a word outside GQA's classes that WordNet files labels of it under
        (`qlang.vision.filed`)."""
        if cls in self.glimpsed:
            return True
        if not self.glimpsed:
            return False
        from qlang.vision.filed import filed, open_class  # WordNet: only for a word GQA lacks

        return open_class(cls) and bool(filed(cls))

    def covers(self, cls: str) -> bool:
        """Whether the perceiver would find any object of the class: it names the class, by a
        label no narrower (seeing cats and dogs covers no animal)."""
        return self.classes is None or (cls in self.classes and cls not in dict(self.narrower))

    def label(self, cls: str) -> str | None:
        """The narrower label the perceiver names a class by (None: none)."""
        return dict(self.narrower).get(cls)


def _ssd() -> Sight:
    """The embedded SSD: COCO's classes in GQA's words, ImageNet's glimpsed on regions (and the
    photo's subject, `this`, on the whole photo), stuff cued by colour and texture (and a
    plain background by the frame's colour), colour, shape and size (`describe`), and the relations
    boxes tell (`geometry`); and the photo's text, where its reader reads (`reading`)."""
    classes = frozenset(COCO_RENAMED.get(label, label) for label in COCO.values() if label)
    narrower = tuple((COCO_RENAMED[label], label) for label in NARROWER)
    imagenet = frozenset(c for c in imagenet_classes().values() if c is not None).union(*SHOWS.values())
    glimpsed = (imagenet | {SUBJECT}) - classes
    read = frozenset(READ).union(*READ_ALSO.values())
    return Sight("ssd", classes, EVERY_PERCEIVER | {"color", "shape", "size"},
                 frozenset({*RELATIONS, *KINDED}), narrower, glimpsed, (STUFF | BACKGROUND) - classes, read)


#: COCO's labels for a kind of the GQA class they are renamed to: a plant is not only potted,
#: a glove not only a baseball glove, a bat not only a baseball bat
NARROWER = ("potted plant", "baseball glove", "baseball bat")


#: perceiver name (`qlang.vision.perceiving.PERCEIVERS`) -> what it sees
SIGHTS = {"ssd": _ssd(), "owlvit": Sight("owlvit", None, None, None)}


@cache
def _reached(classes: frozenset[str]) -> frozenset[str]:
    """The classes seen through `classes`: themselves and every category above them."""
    ontology = load()
    return classes.union(*(ontology.ancestors(c) for c in classes))


def words(root: Node) -> list[tuple[Kind, str]]:
    """The classes, categories, values and relations a program names, in step order, each once
    (the generic `name`, `class` and `any` left out: every perceiver answers them)."""
    found: dict[tuple[Kind, str], None] = {}
    for node in postorder(root):
        for kind, word in zip(SIGNATURES[node.op].literals, node.literals, strict=False):
            if kind in (Kind.CLASS, Kind.ATTR, Kind.VALUE, Kind.REL) and word not in EVERY_PERCEIVER:
                found[kind, word] = None
    return list(found)


def unseen(sight: Sight, root: Node) -> tuple[tuple[Kind, str], ...]:
    """The words of a program the perceiver cannot see."""
    return tuple((kind, word) for kind, word in words(root) if not sight.sees(kind, word))
