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
class KnowledgeRelation:
    name: str
    symmetric: bool = False

    @property
    def conceptnet(self) -> str:
        """ConceptNet's name (``/r/<this>``): the snake-case name in camel case."""
        return "".join(part.title() for part in self.name.split("_"))


RELATIONS = (
    KnowledgeRelation("is_a"),
    KnowledgeRelation("instance_of"),
    KnowledgeRelation("part_of"),
    KnowledgeRelation("has_a"),
    KnowledgeRelation("member_of"),
    KnowledgeRelation("made_of"),
    KnowledgeRelation("used_for"),
    KnowledgeRelation("capable_of"),
    KnowledgeRelation("at_location"),
    KnowledgeRelation("located_near", symmetric=True),
    KnowledgeRelation("has_property"),
    KnowledgeRelation("related_to", symmetric=True),
    KnowledgeRelation("synonym", symmetric=True),
    KnowledgeRelation("antonym", symmetric=True),
    KnowledgeRelation("distinct_from", symmetric=True),
    KnowledgeRelation("similar_to", symmetric=True),
    KnowledgeRelation("causes"),
    KnowledgeRelation("causes_desire"),
    KnowledgeRelation("desires"),
    KnowledgeRelation("created_by"),
    KnowledgeRelation("receives_action"),
    KnowledgeRelation("has_subevent"),
    KnowledgeRelation("has_first_subevent"),
    KnowledgeRelation("has_last_subevent"),
    KnowledgeRelation("has_prerequisite"),
    KnowledgeRelation("motivated_by_goal"),
    KnowledgeRelation("obstructed_by"),
    KnowledgeRelation("symbol_of"),
    KnowledgeRelation("defined_as"),
    KnowledgeRelation("manner_of"),
    KnowledgeRelation("has_context"),
    KnowledgeRelation("form_of"),
    KnowledgeRelation("derived_from"),
    KnowledgeRelation("entails"),
    KnowledgeRelation("etymologically_related_to", symmetric=True),
    KnowledgeRelation("etymologically_derived_from"),
)
BY_NAME = {relation.name: relation for relation in RELATIONS}
BY_CONCEPTNET = {relation.conceptnet: relation for relation in RELATIONS}
#: the relations a walk follows backwards as well as forwards
SYMMETRIC = frozenset(relation.name for relation in RELATIONS if relation.symmetric)
