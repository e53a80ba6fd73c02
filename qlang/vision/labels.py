"""Detector labels in GQA's words, through the ontology and WordNet.

COCO's and ImageNet's names are WordNet nouns, so a label becomes the first GQA class met among
its own synonyms, its head noun and its hypernyms: `Egyptian cat` → cat, `tennis racket` →
racket, `sports ball` → ball.  A compound that GQA also lists is kept, unless its WordNet
parent is its own head noun, the word GQA's annotators use (`dining table` → table).  The
scene encoder then adds the ontology's categories (table → furniture, cat → animal).

A label's words are synonyms of one WordNet sense, read once for all of them: the sense its
words share (ImageNet's `rule, ruler` is the measuring stick, not a principle), else its first
word's first sense that is a thing one can see (ImageNet's `boxer` is the dog, its `screw` no
prison guard).  A class of people names a label only where that sense is a person: a cassette
player is no player, a passenger car (a coach) no coach.  Before this, eleven ImageNet labels
(a scorpion, a weasel, a ruler, a plunger, a loafer, ...) were persons, so any of them seen on
a region was an answer to "Is there a person?".

>>> gqa_class("dining table"), gqa_class("Egyptian cat"), gqa_class("tabby, tabby cat")
('table', 'cat', 'cat')
"""

from __future__ import annotations

from functools import cache
from itertools import islice
from typing import TYPE_CHECKING

from qlang.ontology import load
from qlang.paths import package_data
from qlang.wordnet import PHYSICAL, hypernyms, levels_above, names, senses

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset  # type: ignore[import-untyped]

#: COCO's 90 category ids (80 used) as the TensorFlow model zoo numbers them.
COCO = dict(enumerate((
    "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat",
    "traffic light", "fire hydrant", None, "stop sign", "parking meter", "bench", "bird", "cat",
    "dog", "horse", "sheep", "cow", "elephant", "bear", "zebra", "giraffe", None, "backpack",
    "umbrella", None, None, "handbag", "tie", "suitcase", "frisbee", "skis", "snowboard",
    "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard",
    "tennis racket", "bottle", None, "wine glass", "cup", "fork", "knife", "spoon", "bowl",
    "banana", "apple", "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut",
    "cake", "chair", "couch", "potted plant", "bed", None, "dining table", None, None, "toilet",
    None, "tv", "laptop", "mouse, computer mouse", "remote", "keyboard", "cell phone", "microwave", "oven",
    "toaster", "sink", "refrigerator", None, "book", "clock", "vase", "scissors", "teddy bear",
    "hair drier", "toothbrush"), start=1))

#: The COCO labels `gqa_class` renames (the rest are GQA classes as they are), kept here because
#: reading WordNet takes seconds; tests/test_vision.py holds it equal to `gqa_class`.
COCO_RENAMED = {
    "sports ball": "ball", "baseball bat": "bat", "baseball glove": "glove", "tennis racket": "racket",
    "potted plant": "plant", "dining table": "table", "tv": "television",
    "mouse, computer mouse": "computer mouse", "remote": "remote control", "hair drier": "hair dryer",
}

#: The bundled ImageNet classifier's labels as GQA classes (`gqa_class`), kept in a file because
#: reading WordNet takes seconds; tests/test_vision_regions.py holds it equal to `gqa_class`.
IMAGENET = package_data("vision", "imagenet.json")


#: ImageNet's scenes -> the GQA classes a photo of one shows, though WordNet files it elsewhere
#: (a lakeside is a shore, not water)
SHOWS: dict[str, frozenset[str]] = {
    label: frozenset({"water"}) for label in (
        "lakeside, lakeshore", "seashore, coast, seacoast, sea-coast", "sandbar, sand bar", "boathouse",
        "dock, dockage, docking facility", "breakwater, groin, groyne, mole, bulwark, seawall, jetty",
        "coral reef", "geyser", "fireboat", "gondola", "canoe", "speedboat", "lifeboat",
        "paddle, boat paddle")
}


@cache
def imagenet_classes() -> dict[str, str | None]:
    """Each ImageNet label of the bundled classifier -> its GQA class (None: none fits)."""
    import json

    return dict(json.loads(IMAGENET.read_text(encoding="utf-8"))["classes"])


#: Compounds GQA's questions name as such, though WordNet files them under their head noun.
_KEEP = frozenset({"traffic light", "fire hydrant"})
#: GQA classes too general to name a detection by.
_TOO_GENERAL = frozenset({"thing", "object", "item", "material", "part", "whole", "unit", "device",
                          "equipment", "animal", "organism", "container", "food"})
_DEPTH = 6


@cache
def gqa_class(label: str) -> str | None:
    """The GQA class a detector label names (None when none fits)."""
    classes = load().classes
    synonyms = [s.strip().lower() for s in label.split(",") if s.strip()]
    sense = _sense(synonyms)
    person = sense is not None and any(s.name() == "person.n.01" for s in hypernyms(sense))
    for name in synonyms:
        if name in classes and (person or not _people(name)):
            head = name.split()[-1]
            general = head != name and name not in _KEEP and head in classes and head in _above(sense, 1)
            return head if general else name
    own = names(sense) if sense is not None else []
    for word in (*own, *(name.split()[-1] for name in synonyms), *_above(sense, _DEPTH)):
        if word in classes and word not in _TOO_GENERAL and (person or not _people(word)):
            return word
    return None


def _sense(synonyms: list[str]) -> Synset | None:
    """The one synset a label names, all its words being synonyms: of its first word's senses,
    the first that another of its words names too (`rule, ruler` is the measuring stick), else
    the first that is a thing one can see (a detector's `boxer` is the dog), else the first."""
    found = senses(synonyms[0]) if synonyms else ()
    others = {name.replace(" ", "_") for name in synonyms[1:]}
    shared = next((s for s in found if others & {n.lower() for n in s.lemma_names()}), None)
    return shared or next((s for s in found if s.lexname() in PHYSICAL), found[0] if found else None)


def _people(cls: str) -> bool:
    """Whether a class is of people: a label names one only where its sense is a person (a
    cassette player is no player)."""
    return cls == "person" or "person" in load().ancestors(cls)


def _above(sense: Synset | None, depth: int) -> list[str]:
    """The words above a label's sense, nearest first; a label names a kind, so no step from
    an instance to its class (the dog `Lhasa` is no city)."""
    levels = levels_above((sense,) if sense is not None else (), instances=False)
    return [w for level in islice(levels, depth) for s in level for w in names(s)]
