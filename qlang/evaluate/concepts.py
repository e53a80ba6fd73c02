"""Blind concept extraction (seed thesis §4.2): what a visual front end must look for.

From a program alone — no gold annotation — collect the classes, attribute categories, values
and relations its operations mention.  Generic concepts (`name`, `class`, `any`) are dropped;
an operation over *any* class (`relate_any`) asks for every known class, and `common` for every
attribute category.

>>> from qlang import parse
>>> c = extract(parse("query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)"))
>>> sorted(c.classes), sorted(c.relations), sorted(c.attributes)
(['person', 'shorts'], ['wearing'], [])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from qlang.ir import Node, postorder
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, Ontology, load
from qlang.signatures import SIGNATURES, Kind

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
            found["classes"] |= ontology.classes
        elif node.op == "common":
            found["attributes"] |= set(ontology.categories) - GENERIC
    return Concepts(**{name: frozenset(words) for name, words in found.items()})
