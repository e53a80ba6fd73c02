"""The GQA vocabulary: classes, attribute categories and their values, relations.

Read from the GQA ontology files bundled in `qlang/data/ontology` (GQA, Hudson & Manning
2019, CC BY 4.0; copied unchanged from the project's shared data).  Besides the categories the
attribute file lists, GQA programs use a few the scene graph itself provides: `name` and
`class` (object classes), `hposition`/`vposition` (from the bounding box), `place`,
`location` (indoors/outdoors) and `any` (an attribute of any category, for GQA's
category-less `verify`, `choose` and `filter`).

The attribute file's value lists are incomplete (`cloth` is no `material` there), so a value
is admitted for a category when the category lists it or no other category claims it; `white`
is still refused as a `material`.  GQA programs also select the pronouns `he`, `she`, `this`.

Which category GQA's programs give a value no category lists is not in the ontology: its
programs filter `happy` by `face expression` and `cloth` by `material`, but `open` and `ripe`
by none (`filter_any`).  `program_categories.json` records the categories the programs of the
real training pairs give such values (`qlang.train.categories`; `qlangc data` writes it).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from qlang.paths import package_data
from qlang.signatures import CLOSED_KINDS, Kind

ANY_CATEGORY = "any"
#: Categories whose values are object classes rather than attribute values.
CLASS_CATEGORIES = ("name", "class", "place")
#: The pronouns GQA's programs select, resolved to an object by the scene (not kinds of object).
PRONOUNS = frozenset({"he", "she", "this"})
_CLOSED = {kind: frozenset(words) for kind, words in CLOSED_KINDS.items()}


@dataclass(frozen=True, eq=False)
class Ontology:
    """The words of each kind.  Equal only to itself, and hashed by identity: what is derived
    from one is remembered per ontology (`qlang.passes.typecheck`)."""

    classes: frozenset[str]
    #: class category (e.g. ``furniture``) -> its member classes
    class_members: dict[str, frozenset[str]]
    #: attribute category -> the values it lists
    categories: dict[str, frozenset[str]]
    #: attribute category -> the values a program may use with it (see the module docstring)
    admissible: dict[str, frozenset[str]]
    values: frozenset[str]
    relations: frozenset[str]
    #: a value no category lists -> the categories GQA's training programs give it (not `any`)
    program_categories: dict[str, frozenset[str]] = field(default_factory=dict)

    def vocabulary(self, kind: Kind, category: str | None = None) -> frozenset[str]:
        """The words a literal of `kind` may be; values narrow to `category` when known."""
        if kind is Kind.CLASS:
            return self.classes
        if kind is Kind.ATTR:
            return self.category_names
        if kind is Kind.REL:
            return self.relations
        if kind is Kind.VALUE:
            if category is not None and category in self.admissible:
                return self.admissible[category]
            return self.values
        return _CLOSED[kind]

    @cached_property
    def category_names(self) -> frozenset[str]:
        return frozenset(self.categories)

    def ancestors(self, name: str) -> list[str]:
        """The class categories a class belongs to (`table` -> `furniture`), sorted."""
        return sorted(cat for cat, members in self.class_members.items() if name in members)

    def is_a(self, name: str, category: str) -> bool:
        """Whether a class is `category` or among its members (`man` is a `person`)."""
        return name == category or name in self.class_members.get(category, ())

    def known_categories(self, value: str) -> frozenset[str]:
        """The categories a value has: those that list it, and those GQA's programs give it."""
        return frozenset(self.category_of(value)) | self.program_categories.get(value, frozenset())

    def category_of(self, value: str) -> list[str]:
        """The attribute categories a value belongs to, sorted (excluding `any`)."""
        return sorted(c for c, vs in self.categories.items()
                      if value in vs and c != ANY_CATEGORY and c not in CLASS_CATEGORIES)


def suggestions(word: str, vocabulary: frozenset[str], n: int = 3) -> list[str]:
    """Closest known words, for "did you mean" hints."""
    return difflib.get_close_matches(word, sorted(vocabulary), n=n, cutoff=0.75)


def _lines(name: str) -> set[str]:
    text = package_data("ontology", name).read_text(encoding="utf-8")
    return {line.strip() for line in text.splitlines() if line.strip() and line.strip() != "<unk>"}


def _json(name: str) -> Any:
    return json.loads(package_data("ontology", name).read_text(encoding="utf-8"))


@cache
def load() -> Ontology:
    class_json = _json("gqa_all_class.json")
    attr_json = _json("gqa_all_attribute.json")
    class_members = {cat: frozenset(members) for cat, members in class_json.items()}
    classes = frozenset(_lines("name_gqa.txt") | PRONOUNS
                        | set(class_members).union(*class_members.values()))
    categories = {cat: frozenset(values) for cat, values in attr_json.items()}
    categories |= {
        "hposition": frozenset({"left", "middle", "right"}),
        "vposition": frozenset({"top", "middle", "bottom"}),
        "location": frozenset({"indoors", "outdoors"}),
    }
    attribute_values = frozenset(_lines("attr_gqa.txt").union(*categories.values()))
    unclaimed = attribute_values.difference(*categories.values())
    admissible = {cat: values | unclaimed for cat, values in categories.items()}
    class_valued = {"name": classes, "class": classes, "place": class_members.get("place", frozenset())}
    categories |= class_valued | {ANY_CATEGORY: attribute_values}
    admissible |= class_valued | {ANY_CATEGORY: attribute_values}
    # "same color" is listed as a relation, but in programs it is relate_attr's GQA spelling.
    relations = frozenset(r for r in _lines("rel_gqa.txt") | set(_json("gqa_relation.json"))
                          if not r.startswith("same "))
    program_categories = {value: frozenset(used) for value, used in _json("program_categories.json").items()}
    return Ontology(classes, class_members, categories, admissible, attribute_values | classes,
                    relations, program_categories)
