"""Where class and category membership come from: the GQA ontology, WordNet, or both.

The seed thesis runs its interpreter "pure" (WordNet only) or "with metadata" (the curated
GQA mapping first, WordNet as the fallback).  `Membership` says which sources are on; with the
ontology alone it decides exactly as the ASP scene encoder does, which the differential test
relies on.  Where no source on can decide, the interpreter raises the seed's failure class for
it (`IncompleteMetadata`, `NotInWordnet`) instead of guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from qlang import wordnet
from qlang.interpret.failures import IncompleteMetadata, NonTrivialCategory, NotInWordnet
from qlang.interpret.scene import SCENE_ATTRIBUTES, Scene, SceneObject
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, load

_POSITIONS = ("hposition", "vposition")
#: Categories whose values come (also) from somewhere else than the object's attributes.
_DERIVED = frozenset({*CLASS_CATEGORIES, ANY_CATEGORY, *_POSITIONS, *SCENE_ATTRIBUTES})


@dataclass(frozen=True, slots=True)
class Membership:
    ontology: bool = True
    wordnet: bool = True

    def is_a(self, name: str, cls: str) -> bool:
        """Whether an object called `name` belongs to `cls` (``_`` is any class)."""
        if cls in ("_", name):
            return True
        members = load().class_members.get(cls) if self.ontology else None
        if members is not None:  # curated: WordNet's first senses make a calculator a person
            return name in members
        return self.wordnet and wordnet.equal_or_hyponym(name, cls)

    def member(self, value: str, category: str) -> bool | None:
        """Whether an attribute value belongs to a category; None when no source on can tell."""
        onto = load()
        listed = onto.categories.get(category) if self.ontology else None
        if listed is not None:
            if value in listed:
                return True
            if onto.category_of(value):  # another category claims it
                return False
        if not self.wordnet:
            return None
        general = wordnet.sense(category)
        if general is None:
            raise NotInWordnet(f"category {category!r} is not a noun of WordNet")
        return wordnet.is_hyponym(value, general, any_sense=True)

    def classes(self, obj: SceneObject) -> tuple[str, ...]:
        """The object's name and the class categories above it."""
        return (obj.name, *(load().ancestors(obj.name) if self.ontology else ()))

    def values(self, scene: Scene, obj: SceneObject, category: str) -> tuple[str, ...]:
        """The object's values of a category, from its attributes, box, name or the scene."""
        if category == "name":
            return (obj.name,)
        if category == "class":
            return self.classes(obj)
        if category in CLASS_CATEGORIES:
            raise NonTrivialCategory(f"the {category} needs knowledge beyond the scene graph")
        if category == ANY_CATEGORY:
            return (*obj.attributes, *(scene.position(obj, axis) for axis in _POSITIONS))
        if category in _POSITIONS + SCENE_ATTRIBUTES:  # the box or the scene, or a listed value
            derived = ((scene.position(obj, category),) if category in _POSITIONS
                       else (scene.context[category],) if category in scene.context else ())
            listed = load().categories.get(category, frozenset())
            return tuple(dict.fromkeys((*derived, *(v for v in obj.attributes if v in listed))))
        verdicts = {v: self.member(v, category) for v in obj.attributes}
        known = tuple(v for v, holds in verdicts.items() if holds)
        if not known and None in verdicts.values():
            unknown = sorted(v for v, holds in verdicts.items() if holds is None)
            raise IncompleteMetadata(f"the ontology does not say whether {', '.join(unknown)} "
                                     f"is a {category}")
        return known

    def has(self, scene: Scene, obj: SceneObject, category: str, value: str) -> bool:
        """Whether the object has `value` as its `category`."""
        if category == "class":
            return self.is_a(obj.name, value)
        if category in _DERIVED:
            return value in self.values(scene, obj, category)
        if value not in obj.attributes:
            return False
        holds = self.member(value, category)
        if holds is None:
            raise IncompleteMetadata(f"the ontology does not say whether {value!r} is a {category}")
        return holds

    def has_anywhere(self, scene: Scene, obj: SceneObject, value: str) -> bool:
        """Whether the object has `value` in any category, its class included."""
        return value in self.values(scene, obj, ANY_CATEGORY) or value in self.classes(obj)

    def categories(self, value: str) -> tuple[str, ...]:
        """The attribute categories a value belongs to (the seed's get_category); none for a
        value only WordNet could place when WordNet is off, as in the ASP encoding."""
        onto = load()
        found = onto.category_of(value) if self.ontology else []
        if not found and self.wordnet:
            found = [c for c in sorted(onto.categories)
                     if c not in CLASS_CATEGORIES and c != ANY_CATEGORY and _safe(self, value, c)][:1]
        return tuple(c for c in found if c not in _POSITIONS)


def _safe(membership: Membership, value: str, category: str) -> bool:
    """Membership where a category WordNet lacks simply does not apply."""
    try:
        return bool(membership.member(value, category))
    except NotInWordnet:
        return False
