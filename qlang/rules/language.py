"""The rules language's structures, as read, and the predicates rules speak in.

A rule speaks of a scene as programs do (an object's class, its attribute values, its relations
to other objects) and of knowledge triples; `PREDICATES` gives each predicate its argument
sorts, and drives the checker, the lowering and the evaluator alike.  Locations are excluded
from equality, so that tests compare structures directly.

>>> show(Atom("rel", (Var("X"), Word("to the left of"), Var("Y"))))
'rel(X, to_the_left_of, Y)'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from qlang.asp_names import to_term
from qlang.errors import Span


class Sort(Enum):
    """What an argument position holds; a variable keeps one family of sorts everywhere."""

    OBJECT = "an object"
    CLASS = "a class"
    CATEGORY = "an attribute category"
    VALUE = "an attribute value"
    RELATION = "a relation"
    KNOWN = "a knowledge relation"
    #: the head or tail of a knowledge triple: a class or a value
    CONCEPT = "a concept"

    @property
    def family(self) -> str:
        """Sorts of one family may share a variable: a class is a value of the category
        ``class``, and a knowledge triple's ends are classes or values."""
        return "concept" if self in (Sort.CLASS, Sort.VALUE, Sort.CONCEPT) else self.name


#: The predicates a rule may use, with their argument sorts.  ``class(X, C)`` is the scene's
#: ``attr(X, class, C)``, which the checker writes it as.
PREDICATES: dict[str, tuple[Sort, ...]] = {
    "class": (Sort.OBJECT, Sort.CLASS),
    "attr": (Sort.OBJECT, Sort.CATEGORY, Sort.VALUE),
    "rel": (Sort.OBJECT, Sort.RELATION, Sort.OBJECT),
    "know": (Sort.CONCEPT, Sort.KNOWN, Sort.CONCEPT),
}
#: What a rule may derive (knowledge comes from knowledge bases only).
DERIVABLE = ("class", "attr", "rel")
#: The attribute category whose values are an object's classes.
CLASS = "class"


@dataclass(frozen=True, slots=True)
class Var:
    name: str
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)

    @property
    def anonymous(self) -> bool:
        return self.name == "_"


@dataclass(frozen=True, slots=True)
class Word:
    value: str
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)


Term = Var | Word


@dataclass(frozen=True, slots=True)
class Atom:
    predicate: str
    args: tuple[Term, ...]
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True, slots=True)
class Literal:
    """An atom of the body, or its negation as failure (``not``)."""

    atom: Atom
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Different:
    """``X != Y``: two terms that must differ."""

    left: Term
    right: Term
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)


Condition = Literal | Different


@dataclass(frozen=True, slots=True)
class Rule:
    head: Atom
    body: tuple[Condition, ...]
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)
    #: what it derives: its head and, for a class the ontology puts under others, those too (as
    #: the scene lists a class's ancestors); set by the checker
    heads: tuple[Atom, ...] = ()

    @property
    def line(self) -> int:
        return self.span.line if self.span else 0


@dataclass(frozen=True, slots=True)
class Declaration:
    """``class a, b.``, ``rel r.`` or ``attr category: value, value.``"""

    keyword: Word
    words: tuple[Word, ...]
    #: the words after ``:``, None without one
    values: tuple[Word, ...] | None
    span: Span | None = field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True, slots=True)
class Parsed:
    declarations: tuple[Declaration, ...]
    rules: tuple[Rule, ...]


def show(atom: Atom) -> str:
    """An atom as a rules file writes it (``attr(X, class, C)`` as ``class(X, C)``)."""
    args = atom.args
    if atom.predicate == "attr" and len(args) == 3 and args[1] == Word(CLASS):
        atom = Atom("class", (args[0], args[2]))
    relation = 1 if atom.predicate == "know" else -1  # a knowledge relation, by its name: used_for
    terms = (t.name if isinstance(t, Var) else t.value if i == relation else to_term(t.value)
             for i, t in enumerate(atom.args))
    return f"{atom.predicate}({', '.join(terms)})"
