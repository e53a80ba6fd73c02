"""WordNet 3.0, read by nltk from a project-local folder: a word's senses and the one walk up
its hypernyms, shared by the interpreter (class and category membership), answer matching
(synonyms, hyponyms, hypernyms a few levels up) and the detector-label mapper.

`make install` (scripts/wordnet.sh) unpacks Debian's WordNet packages into
``.cache/nltk_data``; ``QLANG_NLTK_DATA`` points elsewhere.  Visual Genome maps each object name
to one synset; without that table a word's most common noun sense stands in, corrected by the
seed thesis's manual exceptions (``grey.n.01`` is a writer, so grey is ``grey.n.05``, a colour).
WordNet has no hypernyms for adjectives, so an adjective (``wooden``) is "nounified" through its
derivationally related nouns, or those of the head adjective it is a satellite
of (``wooden`` -> ``woody`` -> ``wood``), before it is placed under a category.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from qlang.paths import cache_dir

if TYPE_CHECKING:  # nltk takes seconds to import (it imports scipy): only when WordNet is read
    from nltk.corpus.reader.wordnet import Synset, WordNetCorpusReader  # type: ignore[import-untyped]

ENV_VAR = "QLANG_NLTK_DATA"
_DEFAULT = cache_dir("nltk_data")

#: Words whose most common noun sense is not the one a scene graph means.
EXCEPTIONS = {
    "grey": "grey.n.05",
    "gray": "grey.n.05",
    "pants": "trouser.n.01",
    "pattern": "design.n.04",
    "pose": "pose.n.02",
    "flavor": "flavor.n.01",
    "race": "race.n.03",
    "gender": "sex.n.04",
    "state": "state.n.02",
}


#: WordNet's lexicographer files of things a perceiver can see
PHYSICAL = frozenset({"noun.Tops", "noun.artifact", "noun.animal", "noun.food", "noun.plant", "noun.object"})


class WordNetMissing(RuntimeError):
    """WordNet is not installed where the interpreter looks for it."""


def data_dir() -> Path:
    return Path(os.environ.get(ENV_VAR) or _DEFAULT)


@cache
def reader() -> WordNetCorpusReader:
    root = data_dir().resolve()
    if not (root / "corpora" / "wordnet" / "lexnames").is_file():
        raise WordNetMissing(f"WordNet is not installed in {root}: run `make install` (or "
                             f"`sh scripts/wordnet.sh` once the venv exists), or set {ENV_VAR} "
                             "to an nltk_data folder holding corpora/wordnet")
    import nltk  # type: ignore[import-untyped]
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if str(root) not in nltk.data.path:
        nltk.data.path.insert(0, str(root))  # nltk reads only from folders on its data path
    with warnings.catch_warnings():  # Debian's WordNet has no multilingual data; we need none
        warnings.simplefilter("ignore")
        return WordNetCorpusReader(nltk.data.find("corpora/wordnet"), None)


def _lemma(word: str) -> str:
    return word.strip().lower().replace(" ", "_")


@cache
def senses(word: str) -> tuple[Synset, ...]:
    """The noun senses of a word, most common first; an adjective's through related nouns."""
    wn = reader()
    if word in EXCEPTIONS:
        return (wn.synset(EXCEPTIONS[word]),)
    nouns = wn.synsets(_lemma(word), wn.NOUN)
    if nouns:
        return tuple(nouns)
    adjectives = wn.synsets(_lemma(word), wn.ADJ)
    heads = [head for adjective in adjectives for head in related(adjective, "similar_tos")]
    forms = [form.synset() for adjective in (*adjectives, *heads)
               for lemma in adjective.lemmas()
               for form in (*lemma.derivationally_related_forms(), *lemma.pertainyms())
               if form.synset().pos() == wn.NOUN]
    return tuple(dict.fromkeys(forms))


def sense(word: str) -> Synset | None:
    """The one sense a class name or category stands for: the most common (or the exception)."""
    found = senses(word)
    return found[0] if found else None


def names(synset: Synset) -> list[str]:
    """The words a synset's lemmas spell, its synonyms (``tabby_cat`` -> ``tabby cat``)."""
    return [name.replace("_", " ").lower() for name in synset.lemma_names()]


def levels_above(synsets: Sequence[Synset], *, instances: bool = True) -> Iterator[tuple[Synset, ...]]:
    """The walk up WordNet: the synsets one step above `synsets`, then those two steps above,
    and so on to the top, each synset at the nearest level it is met on, in the order met.
    A step is to a hypernym, or with `instances` also from an instance to its class (the city
    Lhasa is a city).  Callers bound the walk (`itertools.islice`)."""
    seen, level = set(synsets), tuple(synsets)
    while level := tuple(dict.fromkeys(parent for synset in level for parent in _up(synset, instances)
                                       if parent not in seen)):
        seen.update(level)
        yield level


def related(synset: Synset, relation: str) -> list[Synset]:
    """The synsets a relation (``hypernyms``, ``part_meronyms``, ...) links `synset` to, by
    name: nltk keeps a synset's pointers in a set, whose order changes from process to process
    with the hash seed, and a walk that takes the first of them must not."""
    return sorted(getattr(synset, relation)(), key=lambda s: s.name())


def _up(synset: Synset, instances: bool) -> list[Synset]:
    parents = related(synset, "hypernyms")
    return parents + related(synset, "instance_hypernyms") if instances else parents


@cache
def hypernyms(synset: Synset) -> frozenset[Synset]:
    """A synset and everything above it."""
    return frozenset({synset}.union(*levels_above([synset])))


def is_hyponym(word: str, general: Synset, *, any_sense: bool) -> bool:
    """Whether a word (its main sense, or any with `any_sense`) is `general` or below it."""
    candidates = senses(word) if any_sense else senses(word)[:1]
    return any(general in hypernyms(s) for s in candidates)


def equal_or_hyponym(name: str, cls: str) -> bool:
    """Whether an object called `name` is a `cls` (the seed's utility; ``_`` is any class)."""
    if cls in ("_", name):
        return True
    general = sense(cls)
    return general is not None and is_hyponym(name, general, any_sense=False)
