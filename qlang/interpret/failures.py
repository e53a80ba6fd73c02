"""Why a program has no answer over a scene graph: the failure classes of seed thesis §6.1.1.

They tell data problems (a missing edge, an attribute never annotated) from limits of what the
scene graph and the category knowledge can say, so unanswerable questions can be counted by
cause instead of silently dropped.
"""

from __future__ import annotations


class InterpretError(Exception):
    """A program has no (single) answer over a scene graph."""


class EmptyQuery(InterpretError):
    """No object, or no value of the queried category, to answer with."""


class AmbiguousAnswer(InterpretError):
    """Several answers remain, e.g. two shelves on different sides."""

    def __init__(self, candidates: frozenset[str]) -> None:
        self.candidates = candidates
        super().__init__(f"several answers remain: {', '.join(sorted(candidates))}")


class MissingEdge(InterpretError):
    """A relation the program traverses is not in the scene graph."""


class EmptyChoice(InterpretError):
    """None of the options of a choice holds (e.g. "which is healthier?")."""


class NonTrivialCategory(InterpretError):
    """The category needs knowledge beyond the scene graph (a place, an unannotated gender)."""


class NotInWordnet(InterpretError):
    """A category membership test with a word WordNet does not know as a noun."""


class IncompleteMetadata(InterpretError):
    """The ontology's category mapping lacks the value or category (and WordNet is off)."""


#: Failures that come from missing knowledge rather than from the scene graph's content.
KNOWLEDGE_ERRORS = (NonTrivialCategory, NotInWordnet, IncompleteMetadata)
