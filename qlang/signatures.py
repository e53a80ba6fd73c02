"""The operation table: the one place that says what every operation takes and yields.

The type checker, every printer, the ASP lowering, the grammar generator, the hypothesis
strategies and the documented table are all derived from `SIGNATURES`.  Operand order and arity
follow the seed thesis's ASP theory (Appendix 7.2): in the flat form an operation is
``op(T, operand..., literal...)``, operands first, literals after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from qlang.frozen import by_fields


class Type(Enum):
    """What an operation yields; `OBJECT` is a subtype of `OBJECTS` (a set of one)."""

    OBJECTS = "Objects"
    OBJECT = "Object"
    BOOL = "Bool"
    VALUE = "Value"

    def accepts(self, other: Type) -> bool:
        return self is other or (self is Type.OBJECTS and other is Type.OBJECT)

    @property
    def is_answer(self) -> bool:
        """Whether a program may end in this type (what `end` accepts)."""
        return self in (Type.BOOL, Type.VALUE)


class Kind(Enum):
    """The kind of a literal argument; decides which vocabulary it is checked against."""

    CLASS = "class"
    ATTR = "attr"
    VALUE = "value"
    REL = "rel"
    DIR = "dir"
    MODE = "mode"
    #: a knowledge relation (`qlang.passes.vocabulary`): ``used for``, ``is a``, ...
    KREL = "krel"
    #: free text (a query for a document): any printable text of at most `MAX_TEXT`
    #: characters, always quoted in the call-shaped syntaxes
    TEXT = "text"
    #: how many objects a retrieval keeps, written as a quoted number (``"5"``)
    COUNT = "count"


#: The longest free-text literal: a question or a phrase, never a document.
MAX_TEXT = 200


#: Closed literal kinds: their whole vocabulary is fixed by the language itself.
CLOSED_KINDS: dict[Kind, tuple[str, ...]] = {
    Kind.DIR: ("subject", "object"),
    Kind.MODE: ("true", "false"),
    Kind.COUNT: tuple(str(k) for k in range(1, 21)),
}


@dataclass(frozen=True, slots=True)
class Signature:
    name: str
    operands: tuple[Type, ...]
    literals: tuple[Kind, ...]
    result: Type
    doc: str
    #: the operands may be swapped without changing the meaning (`and`, `two_same`, ...)
    symmetric: bool = False
    #: positions (among the literals) of alternatives that form a set: a choice's two options
    alternatives: tuple[int, ...] = ()
    #: it reads the knowledge in use, so its class and value literals may also be any word
    #: the knowledge knows (`qlang.passes.typecheck`)
    knowledge: bool = False
    #: it reads the texts bound to objects (documents, words read from a photo), which are
    #: searched in Python before solving (`qlang.text`)
    documents: bool = False
    #: operands and literals together (set from them; every checked node reads it)
    arity: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "arity", len(self.operands) + len(self.literals))

    def kind(self, position: int) -> Kind | None:
        """The literal kind at an argument position (operands first), or None for an operand
        or a position past the arity."""
        literal = position - len(self.operands)
        return self.literals[literal] if 0 <= literal < len(self.literals) else None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_fields(self)  # compiled, a frozen dataclass cannot unpickle field by field


_O, _1, _B, _V = Type.OBJECTS, Type.OBJECT, Type.BOOL, Type.VALUE
_C, _A, _VAL, _R, _D, _M = Kind.CLASS, Kind.ATTR, Kind.VALUE, Kind.REL, Kind.DIR, Kind.MODE
_K, _T, _N = Kind.KREL, Kind.TEXT, Kind.COUNT

_TABLE = (
    Signature("scene", (), (), _O, "all objects of the scene"),
    Signature("select", (_O,), (_C,), _O, "the objects of a class (or a subclass)"),
    Signature("filter", (_O,), (_A, _VAL), _O, "the objects whose attribute has a value"),
    Signature("filter_any", (_O,), (_VAL,), _O, "the objects with a value in any attribute"),
    Signature("relate", (_O,), (_C, _R, _D), _O,
              "objects of a class related to the input; `subject`: they are the relation's subject"),
    Signature("relate_any", (_O,), (_R, _D), _O, "objects of any class related to the input"),
    Signature("relate_attr", (_O,), (_C, _A), _O,
              "other objects of a class sharing the input's value of an attribute"),
    Signature("unique", (_O,), (), _1, "exactly one object of the input (the most confident)"),
    Signature("negate", (_O, _O), (), _O,
              "the second input without the objects of the first (`filter not(...)`)"),
    Signature("compare", (_O, _O), (_VAL, _M), _O,
              "of two inputs, the one that has the value (`true`) or lacks it (`false`)"),
    Signature("query", (_1,), (_A,), _V, "the object's value of an attribute"),
    Signature("verify_attr", (_1,), (_A, _VAL), _B, "whether the object has the value"),
    Signature("verify_rel", (_1,), (_C, _R, _D), _B,
              "whether an object of the class is related to the object"),
    Signature("choose_attr", (_1,), (_A, _VAL, _VAL), _V,
              "which of two values the object has", alternatives=(1, 2)),
    Signature("choose_rel", (_1,), (_C, _R, _R, _D), _V,
              "which of two relations links the object to an object of the class",
              alternatives=(1, 2)),
    Signature("exist", (_O,), (), _B, "whether the input is non-empty"),
    Signature("all_same", (_O,), (_A,), _B, "whether all input objects share the attribute's value"),
    Signature("all_different", (_O,), (_A,), _B, "whether no two input objects share a value"),
    Signature("two_same", (_O, _O), (_A,), _B, "whether the two inputs share the attribute's value",
              symmetric=True),
    Signature("two_different", (_O, _O), (_A,), _B, "whether the two inputs differ in the attribute",
              symmetric=True),
    Signature("common", (_1, _1), (), _V, "the attribute category two objects have in common",
              symmetric=True),
    Signature("and", (_B, _B), (), _B, "conjunction", symmetric=True),
    Signature("or", (_B, _B), (), _B, "disjunction", symmetric=True),
    Signature("know", (_1,), (_K,), _V,
              "a word the object's class has an edge of the knowledge relation to, the strongest first",
              knowledge=True),
    Signature("verify_know", (_1,), (_K, _VAL), _B,
              "whether the object's class has an edge of the knowledge relation to the word",
              knowledge=True),
    Signature("infer", (_O,), (_C,), _V,
              "a word of the class (by `is a`) within 3 knowledge edges of the input's classes, "
              "the strongest path first", knowledge=True),
    Signature("match", (_O,), (_T, _N), _O,
              "the k input objects whose documents best match the text, the best match first",
              documents=True),
    Signature("extract", (_O,), (_T,), _V,
              "the span of the input objects' documents that answers the text's question",
              documents=True),
    Signature("read", (_1,), (), _V,
              "the text the object shows: its words, or those of the text regions lying on it",
              documents=True),
)

SIGNATURES: dict[str, Signature] = {sig.name: sig for sig in _TABLE}

#: The flat form's root marker; not an operation of the IR (the root is the program's answer).
END = "end"


def markdown_table() -> str:
    """The operation table of `docs/language.md`, generated so documentation cannot drift from code."""
    rows = ["| op | operands | literals | result | meaning |", "|---|---|---|---|---|"]
    for sig in _TABLE:
        operands = ", ".join(t.value for t in sig.operands) or "–"
        literals = ", ".join(k.value for k in sig.literals) or "–"
        rows.append(f"| `{sig.name}` | {operands} | {literals} | {sig.result.value} | {sig.doc} |")
    return "\n".join(rows)
