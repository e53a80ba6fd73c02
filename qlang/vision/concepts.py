"""Blind concept extraction (seed thesis §4.2): what a visual front end must look for.

From a program alone — no gold annotation — collect the classes, attribute categories, values
and relations its operations mention.  Generic concepts (`name`, `class`, `any`) are dropped;
an operation over *any* class (`relate_any`) asks for every known class (but the pronouns, which
name no kind of object), and `common` for every attribute category.

>>> from qlang import parse
>>> c = extract(parse("query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)"))
>>> sorted(c.classes), sorted(c.relations), sorted(c.attributes)
(['person', 'shorts'], ['wearing'], [])

Before a detector looks, `expand` widens the concepts to what may answer to them (a class
category brings its members: `device` → laptop, camera, ...; an attribute category its
values).  `mentioned` is the rule-based extractor of the thesis's §3.2.1, which reads the
question itself rather than a program.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from qlang.ir import Node, postorder
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, PRONOUNS, Ontology, load
from qlang.signatures import SIGNATURES, Kind
from qlang.text.evidence import LYING
from qlang.words import singulars

#: The classes of the text regions a photo shows (`qlang.text.ocr.Region.kind`), which `read` reads.
READ = ("words", "number")
#: a text region's class -> the further classes it answers to ("Are there letters?" on a page)
READ_ALSO = {"words": ("letter", "letters")}

GENERIC = frozenset({ANY_CATEGORY, *CLASS_CATEGORIES})


@dataclass(frozen=True)
class Concepts:
    classes: frozenset[str] = field(default_factory=frozenset)
    attributes: frozenset[str] = field(default_factory=frozenset)
    values: frozenset[str] = field(default_factory=frozenset)
    relations: frozenset[str] = field(default_factory=frozenset)

    def to_json(self) -> dict[str, list[str]]:
        return {name: sorted(getattr(self, name))
                for name in ("classes", "attributes", "values", "relations")}


_FIELD = {Kind.CLASS: "classes", Kind.ATTR: "attributes", Kind.VALUE: "values", Kind.REL: "relations"}


def extract(root: Node, ontology: Ontology | None = None) -> Concepts:
    """The concepts of a (checked) program."""
    ontology = ontology or load()
    found: dict[str, set[str]] = {name: set() for name in _FIELD.values()}
    for node in postorder(root):
        signature = SIGNATURES[node.op]
        for kind, word in zip(signature.literals, node.literals, strict=False):
            if kind in _FIELD and word not in GENERIC:
                found[_FIELD[kind]].add(word)
        if node.op == "relate_any":
            found["classes"] |= ontology.classes - PRONOUNS
        elif node.op == "common":
            found["attributes"] |= set(ontology.categories) - GENERIC
        elif node.op == "read":  # the object's own words, or the text regions lying on it
            found["classes"] |= set(READ)
            found["relations"].update(LYING)
    return Concepts(**{name: frozenset(words) for name, words in found.items()})


def expand(concepts: Concepts, ontology: Ontology | None = None) -> Concepts:
    """The concepts with each class category's members and each attribute category's values.

    >>> {"cup", "saucer", "tableware"} <= expand(Concepts(classes=frozenset({"tableware"}))).classes
    True
    """
    ontology = ontology or load()
    members = [ontology.class_members.get(c, frozenset()) for c in concepts.classes]
    values = [ontology.categories.get(a, frozenset()) for a in concepts.attributes]
    return Concepts(concepts.classes.union(*members), concepts.attributes,
                    concepts.values.union(*values), concepts.relations)


_WORD = re.compile(r"[a-z]+(?:[-'][a-z]+)*")
_LONGEST = 4


def mentioned(question: str, ontology: Ontology | None = None) -> Concepts:
    """The ontology's words a question mentions (longest first, plurals too), expanded.

    >>> c = mentioned("Is the cup to the left of the brown dogs?")
    >>> sorted(c.relations), "cup" in c.classes, "dog" in c.classes, sorted(c.values)
    (['to the left of'], True, True, ['brown'])
    """
    ontology = ontology or load()
    words = _WORD.findall(question.lower())
    categories = frozenset(ontology.categories) - GENERIC
    found: dict[str, set[str]] = {name: set() for name in _FIELD.values()}
    start = 0
    while start < len(words):
        for length in range(min(_LONGEST, len(words) - start), 0, -1):
            phrase = " ".join(words[start:start + length])
            matches = [(field, word) for word in (phrase, *singulars(phrase))
                       for field, vocabulary in (("classes", ontology.classes),
                                                 ("relations", ontology.relations),
                                                 ("values", ontology.values - ontology.classes),
                                                 ("attributes", categories))
                       if word in vocabulary]
            if matches:
                for field, word in matches:
                    found[field].add(word)
                start += length
                break
        else:
            start += 1
    return expand(Concepts(**{name: frozenset(words) for name, words in found.items()}), ontology)
