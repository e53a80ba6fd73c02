"""The ImageNet labels WordNet files under a word outside GQA's classes: how a photo's perceiver
sees a thing a question names that GQA's vocabulary lacks ("Is there a rocket?": the bundled
classifier's `missile` is a kind of rocket).

A question's unknown word reaches a program only through `qlang.translate.unknown.spoken`; the
classifier on regions (`qlang.vision.regions`) then names each region whose label is filed
under the word by the word, so the scene holds a `rocket` the program can select.  A label is
taken in its first synonym's first sense that is a thing one can see, the word in its most
common sense, as `qlang.vision.kinds.kind_of` takes them.  Found now and then only, such a
class is never covered: a "no" about it needs its recall measured (`qlang.vision.recall`).
"""

from __future__ import annotations

from functools import cache

from qlang.ontology import load
from qlang.vision.labels import imagenet_classes
from qlang.wordnet import PHYSICAL, WordNetMissing, related, sense, senses


def open_class(word: str) -> bool:
    """Whether a class word is outside GQA's classes (a question's word put back)."""
    return word not in load().classes


@cache
def filed(word: str) -> frozenset[str]:
    """The bundled classifier's labels WordNet files under `word` (none without WordNet)."""
    try:
        general = sense(word)
    except WordNetMissing:
        return frozenset()
    if general is None:
        return frozenset()
    below = {general, *general.closure(lambda s: related(s, "hyponyms"))}
    return frozenset(label for label in imagenet_classes() if _thing(label) in below)


def _thing(label: str) -> object:
    """A label's first synonym in its first sense that is a thing one can see (None: none)."""
    first = label.split(",")[0].strip().lower()
    return next((s for s in senses(first) if s.lexname() in PHYSICAL), None)
