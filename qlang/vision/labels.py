"""Detector labels in GQA's words, through the ontology and WordNet.

COCO's and ImageNet's names are WordNet nouns, so a label becomes the first GQA class met among
its own synonyms, its head noun and its hypernyms: `Egyptian cat` → cat, `tennis racket` →
racket, `sports ball` → ball.  A compound that GQA also lists is kept, unless its WordNet
parent is its own head noun, the word GQA's annotators use (`dining table` → table).  The
scene encoder then adds the ontology's categories (table → furniture, cat → animal).

An ImageNet label is a WordNet 3.0 synset's lemma list, and ImageNet names each class by its
synset (`imagenet_synsets.txt`, shipped beside the table), so `imagenet_senses` reads each
label's synset exactly (the bird and the machine `crane`).  A detector's label alone is read as
its words' shared sense, else its first word's first sense a thing one can see (`boxer` is the
dog).  A word of the synset or its hypernyms names it only where the GQA class stands for the
same kind of thing (a sea star is no star, a toy dog no plaything, a mountain bike a bicycle,
not WordNet's motorbike `bike`); a class of people only where the sense is a person: a
cassette player is no player, a scorpion no person.  A name whose other words are GQA attribute
values is named by its head before its hypernyms, as GQA gives those words as attributes (a
stone wall is a wall of stone, though WordNet files it under fence; a sea lion, `sea` being
no attribute, stays a seal).

>>> gqa_class("dining table"), gqa_class("Egyptian cat"), gqa_class("tabby, tabby cat")
('table', 'cat', 'cat')
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import islice
from typing import TYPE_CHECKING

from qlang.knowledge.wordnet_base import own_sense
from qlang.ontology import ANY_CATEGORY, load
from qlang.paths import package_data
from qlang.wordnet import PHYSICAL, hypernyms, levels_above, names, reader, senses

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
#: ImageNet's 1,000 classes as WordNet 3.0 synset ids (`n01440764`), in class order: from timm
#: (Apache-2.0), see qlang/data/vision/README.md.
SYNSETS = package_data("vision", "imagenet_synsets.txt")


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
#: WordNet's lexicographer files of animate things (a plant and its fruit share their names)
_ANIMATE = frozenset({"noun.animal", "noun.person"})


@cache
def gqa_class(label: str, sense: Synset | None = None) -> str | None:
    """The GQA class a detector label names (None when none fits): of `sense`, the synset the
    label names where a list of labels says (`imagenet_senses`), else of its own."""
    classes = load().classes
    synonyms = _synonyms(label)
    exact, sense = sense is not None, sense or _sense(synonyms)
    person = sense is not None and any(s.name() == "person.n.01" for s in hypernyms(sense))

    def names_it(word: str, met: Synset | None, *, own_name: bool = False) -> bool:
        known = met is None or _means(word, met, own_name)
        return word in classes and (person or not _people(word)) and known

    for index, name in enumerate(synonyms):  # a guessed sense may be another's (COCO's `banana`)
        if names_it(name, sense if exact else None, own_name=index == 0):
            head = name.split()[-1]
            general = head != name and name not in _KEEP and head in classes and head in _above(sense, 1)
            return head if general else name
    levels = islice(levels_above((sense,) if sense is not None else (), instances=False), _DEPTH)
    met = [*((sense,) if sense is not None else ()), *(s for level in levels for s in level)]
    heads = [(name.split()[-1], sense) for name in synonyms]
    kinds = [(head, at) for head, at in heads if sense is not None and own_sense(head) in hypernyms(sense)]
    described = [(head, sense) for head in _described(synonyms[0])]
    return next((word for word, at in (*kinds, *described, *((w, s) for s in met for w in names(s)), *heads)
                 if word not in _TOO_GENERAL and names_it(word, at)), None)


def imagenet_senses() -> list[Synset]:
    """The synset of each of ImageNet's 1,000 classes, in class order: ImageNet names a class by
    its WordNet 3.0 noun's offset (`SYNSETS`), and the classifier's label is its lemma list."""
    wordnet = reader()
    ids = SYNSETS.read_text(encoding="utf-8").split()
    return [wordnet.synset_from_pos_and_offset(wnid[0], int(wnid[1:])) for wnid in ids]


def imagenet_table(labels: Sequence[str]) -> dict[str, str | None]:
    """Each of the classifier's labels, in ImageNet's class order -> its GQA class."""
    return {label: gqa_class(label, sense) for label, sense in zip(labels, imagenet_senses(), strict=True)}


def _described(name: str) -> list[str]:
    """The head of a name whose other words are all GQA attribute values: GQA names such a
    thing by its head and gives it those words as attributes (a stone wall is a wall of stone,
    though WordNet files it under fence)."""
    *modifiers, head = name.split()
    values = load().categories[ANY_CATEGORY]
    return [head] if modifiers and all(word in values for word in modifiers) else []


def _synonyms(label: str) -> list[str]:
    return [s.strip().lower() for s in label.split(",") if s.strip()]


def _sense(synonyms: list[str]) -> Synset | None:
    """The one synset a label names on its own (a detector's, no lemma list): of its first
    word's senses, the first that another of its words names too (`rule, ruler` is the
    measuring stick), else the first that is a thing one can see (a detector's `boxer` is the
    dog), else the first."""
    found = senses(synonyms[0]) if synonyms else ()
    others = {name.replace(" ", "_") for name in synonyms[1:]}
    return next((s for s in found if others & _lemmas(s)), None) or _preferred(found)


def _preferred(found: Sequence[Synset]) -> Synset | None:
    return next((s for s in found if s.lexname() in PHYSICAL), found[0] if found else None)


def _lemmas(synset: Synset) -> set[str]:
    return {name.lower() for name in synset.lemma_names()}


def _means(word: str, synset: Synset, own_name: bool) -> bool:
    """Whether a class word met on `synset` names it: unless the class stands for another kind
    of thing one can see (a sea star is no star, a toy dog no plaything).  A label's own name
    (its first word) is refused only an animal for a thing or back (ImageNet's `kite` is the
    bird): the class's sense may be another such thing (GQA's `chain`)."""
    own: Synset | None = own_sense(word)
    if own is None or own.lexname() not in PHYSICAL:
        return True
    if own_name:
        return bool((own.lexname() in _ANIMATE) == (synset.lexname() in _ANIMATE))
    return bool(own.lexname() == synset.lexname())


def _people(cls: str) -> bool:
    """Whether a class is of people: a label names one only where its sense is a person (a
    cassette player is no player)."""
    return load().is_a(cls, "person")


def _above(sense: Synset | None, depth: int) -> list[str]:
    """The words above a label's sense, nearest first; a label names a kind, so no step from
    an instance to its class (the dog `Lhasa` is no city)."""
    levels = levels_above((sense,) if sense is not None else (), instances=False)
    return [w for level in islice(levels, depth) for s in level for w in names(s)]
