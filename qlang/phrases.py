"""Phrases a question says, in the form a vocabulary writes them: as said, else a plural's
singular (``microwave ovens`` for `microwave oven`), else a present verb's progressive where
that makes a relation (``drives on`` for `driving on`).  Shared by the small parser's copy
offers (`qlang.small.tokens`) and the passes that compare a program with what its question
says (`qlang.passes.shortened`, `qlang.passes.paired`), so that all read a question alike.

>>> names = frozenset({"car", "road", "driving on", "on", "tv stand", "standing at", "at"})
>>> reading("Is the car that drives on the road red?".lower().split(), names)
['car', 'driving on', 'road']
>>> reading("what's the tv stand at".split(), names)
['tv stand', 'at']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache, lru_cache

from qlang.ontology import load
from qlang.words import progressives, singulars

#: a question's words and punctuation, lower-cased (as the small parser reads them)
WORD = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*|[^\sa-z0-9]")
#: the most words a phrase is read from (``to the left of``)
LONGEST = 4
#: the words that join two phrases into one ("pink and red"); no name is one
JOINTS = frozenset({"and", "or"})

_singulars = lru_cache(maxsize=8192)(singulars)


@cache
def names() -> frozenset[str]:
    """Every name a question may say: the ontology's classes, values and relations (so that
    "the tv stand" is read as a stand, and its `stand` starts no relation)."""
    ontology = load()
    return frozenset(ontology.classes | ontology.values | ontology.relations)


@lru_cache(maxsize=64)
def said(question: str) -> tuple[str, ...]:
    """The names `question` says (`names`) and the joints between them, read left to right
    (`reading`): read once for all of a question's candidates, which are settled one after
    another (a few questions are kept, since each is kept whole, however long)."""
    return tuple(reading(WORD.findall(question.lower()), _sayable()))


@cache
def _sayable() -> frozenset[str]:
    return names() | JOINTS


def named(spoken: Sequence[str], words: frozenset[str]) -> str | None:
    """The phrase of `words` the words `spoken` say: themselves, else their last word singular
    (`microwave ovens` where `ovens` is a class of its own, so no plural mark split it), else
    their first word a progressive where that makes a relation (`drives on` for `driving on`)."""
    phrase = " ".join(spoken)
    if phrase in words:
        return phrase
    if phrase.endswith("s") and (one := next((w for w in _singulars(phrase) if w in words), None)):
        return one
    # a verb alone may be a noun ("a point" is no "pointing"), so a relation takes its rest too
    if len(spoken) > 1 and (rest := " ".join(spoken[1:])) in _progressive_relations():
        relations = load().relations
        return next((phrase for form in progressives(spoken[0])
                     if (phrase := f"{form} {rest}") in relations and phrase in words), None)
    return None


def longest(spoken: Sequence[str], start: int, words: frozenset[str]) -> tuple[str, int] | None:
    """The longest phrase of `words` the words `spoken` say from `start` on (`named`), with how
    many words it takes (None: none)."""
    for length in range(min(LONGEST, len(spoken) - start), 0, -1):
        phrase = named(spoken[start:start + length], words)
        if phrase is not None:
            return phrase, length
    return None


def reading(spoken: Sequence[str], words: frozenset[str]) -> list[str]:
    """The phrases of `words` the words `spoken` say, read left to right, each the longest one
    its first word starts (`longest`); a word inside one starts none ("tv stand at" is a stand,
    not `standing at`), and a word that starts none is skipped."""
    phrases: list[str] = []
    start = 0
    while start < len(spoken):
        found = longest(spoken, start, words)
        if found is None:
            start += 1
            continue
        phrases.append(found[0])
        start += found[1]
    return phrases


@cache
def _progressive_relations() -> frozenset[str]:
    """What follows the verb of each relation that starts with one (`on` of `sitting on`)."""
    return frozenset(rest for verb, _, rest in (r.partition(" ") for r in load().relations)
                     if rest and verb.endswith("ing"))
