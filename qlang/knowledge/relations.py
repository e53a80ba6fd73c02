"""The knowledge relations: ConceptNet 5's, named in snake case (``/r/UsedFor`` is `used_for`),
so that a ConceptNet file, a TSV file and the bundled base mix.

A symmetric relation (``related_to``, ``antonym``) holds both ways, so a walk over the graph
follows its edges backwards too; ConceptNet stores each such edge once.  ConceptNet's negated
relations (``NotUsedFor``, ...) are left out: qlang's knowledge is positive facts, and a path
through a negation would mean nothing.  ``member_of`` is WordNet's member meronymy, which
ConceptNet files under ``PartOf``.

>>> BY_CONCEPTNET["UsedFor"].name, BY_NAME["related_to"].symmetric
('used_for', True)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Relation:
    name: str
    symmetric: bool = False

    @property
    def conceptnet(self) -> str:
        """ConceptNet's name (``/r/<this>``): the snake-case name in camel case."""
        return "".join(part.title() for part in self.name.split("_"))


RELATIONS = (
    Relation("is_a"),
    Relation("instance_of"),
    Relation("part_of"),
    Relation("has_a"),
    Relation("member_of"),
    Relation("made_of"),
    Relation("used_for"),
    Relation("capable_of"),
    Relation("at_location"),
    Relation("located_near", symmetric=True),
    Relation("has_property"),
    Relation("related_to", symmetric=True),
    Relation("synonym", symmetric=True),
    Relation("antonym", symmetric=True),
    Relation("distinct_from", symmetric=True),
    Relation("similar_to", symmetric=True),
    Relation("causes"),
    Relation("causes_desire"),
    Relation("desires"),
    Relation("created_by"),
    Relation("receives_action"),
    Relation("has_subevent"),
    Relation("has_first_subevent"),
    Relation("has_last_subevent"),
    Relation("has_prerequisite"),
    Relation("motivated_by_goal"),
    Relation("obstructed_by"),
    Relation("symbol_of"),
    Relation("defined_as"),
    Relation("manner_of"),
    Relation("has_context"),
    Relation("form_of"),
    Relation("derived_from"),
    Relation("entails"),
    Relation("etymologically_related_to", symmetric=True),
    Relation("etymologically_derived_from"),
)
BY_NAME = {relation.name: relation for relation in RELATIONS}
BY_CONCEPTNET = {relation.conceptnet: relation for relation in RELATIONS}
#: the relations a walk follows backwards as well as forwards
SYMMETRIC = frozenset(relation.name for relation in RELATIONS if relation.symmetric)
