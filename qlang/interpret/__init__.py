"""The Python interpreter of programs over GQA scene graphs, and its WordNet helpers."""

from qlang.interpret.failures import (
    KNOWLEDGE_ERRORS,
    AmbiguousAnswer,
    EmptyChoice,
    EmptyQuery,
    IncompleteMetadata,
    InterpretError,
    MissingEdge,
    NonTrivialCategory,
    NotInWordnet,
)
from qlang.interpret.interpreter import (
    SEMANTICS,
    Outcome,
    answerable,
    evaluate,
    interpret,
    sanitize,
)
from qlang.interpret.membership import Membership
from qlang.interpret.scene import Scene

__all__ = [
    "KNOWLEDGE_ERRORS", "SEMANTICS", "AmbiguousAnswer", "EmptyChoice", "EmptyQuery",
    "IncompleteMetadata", "InterpretError", "Membership", "MissingEdge", "NonTrivialCategory",
    "NotInWordnet", "Outcome", "Scene", "answerable", "evaluate", "interpret", "sanitize",
]
