"""Knowledge as data: a triple *(head, relation, tail, weight)*, its words as the ontology spells
them, and the one way a source's own weights become qlang's.

Words are normalised as the GQA ontology's are (lower case, single spaces; ``_`` is a space, as
in ConceptNet's URIs and in ASP constants), so ``Ice_Cream`` and ``ice  cream`` are one word;
every string still goes through `qlang.asp_names.to_term` on its way to ASP.  A weight is in
(0, 1] and a path weighs the product of its edges' weights, so a longer path never outranks
the best of its prefixes.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from qlang.errors import Diagnostic, QlangError, Source, shown

#: The most characters a word may have (ConceptNet's longest English concepts have about 100).
MAX_WORD = 200
#: a word already in normal form but for its underscores (ConceptNet's, mostly): no checks needed
_PLAIN = re.compile(r"[a-z0-9]+(?:[ _][a-z0-9]+)*")


class KnowledgeError(QlangError):
    """A knowledge file (or index) is malformed, too large, or not what it claims to be."""


def failure(message: str, name: str, hint: str | None = None) -> KnowledgeError:
    """A `KnowledgeError` of a whole file (or option) `name`, shown ``name: error: message``
    (a line's error is `Line.error`)."""
    return KnowledgeError([Diagnostic("knowledge", message, hint=hint)], Source("", name))


class Triple(NamedTuple):
    """A named tuple, not a dataclass: a query of the index builds thousands of them (a
    frozen dataclass costs four `object.__setattr__` each), and tuples order alike."""

    head: str
    relation: str
    tail: str
    weight: float = 1.0


def normal_word(text: str) -> str:
    """A word as the ontology spells it; raises ValueError saying what is wrong with it.

    >>> normal_word("  Ice_Cream  cone ")
    'ice cream cone'
    """
    if len(text) <= MAX_WORD and _PLAIN.fullmatch(text):
        return text.replace("_", " ")
    word = " ".join(text.replace("_", " ").lower().split())
    if not word:
        raise ValueError("an empty word")
    if len(word) > MAX_WORD:
        raise ValueError(f"a word of {len(word)} characters (at most {MAX_WORD})")
    if not word.isprintable():  # controls, NUL, lone surrogates, format characters
        bad = next(c for c in word if not c.isprintable())
        raise ValueError(f"a word holding the unprintable character U+{ord(bad):04X}")
    return word


def normal_weight(text: str) -> float:
    """A weight written in qlang's own files: a number in (0, 1]; raises ValueError saying what
    is wrong with it (the reader names the field: "the weight: ...").

    >>> normal_weight("0.5")
    0.5
    """
    try:
        weight = float(text)
    except ValueError:
        raise ValueError(f"{shown(text.strip())} is not a number") from None
    if not 0 < weight <= 1:  # NaN fails too
        raise ValueError(f"{shown(text.strip())} is not in (0, 1]")
    return weight


def source_weight(strength: float) -> float:
    """A source's unbounded strength (ConceptNet's weight, about the number of sources that
    assert an edge: 1 for one, more for more) as a weight in (0, 1]: ``1 - exp(-strength)``,
    which keeps the order, gives one source 0.63, two 0.86, four 0.98, and never reaches 0 for
    a positive strength.

    >>> round(source_weight(1.0), 3), source_weight(50.0)
    (0.632, 1.0)
    """
    return -math.expm1(-strength)
