"""Ground facts as ASP text: what a scene given as ASP is, and a question given as ASP too.

A scene given as ASP text goes into the same program as the question and the theory, so a rule
in it (``ans(banana).``, ``object(1..20000).``, ``#const``) could change the answer or slip past
the grounding guard, which counts the facts it can see.  So a scene is read here first, in full:
facts of `PREDICATES` whose arguments are constants, quoted strings or integers that clingo
holds exactly, with comments between them, spaced as clingo reads (no other space, no NUL).
Nothing else reaches clingo, so nothing can change a meaning or fail below Python.  A question
that arrives as ASP text is read by the same rules, with its own predicates
(`qlang.asp.query`).

>>> problem("object(1). has_attr(1, class, cat). % a cat")
>>> message, where = problem("object(1).\\nans(banana).")
>>> message.split(" (")[0], (where.line, where.column)
('ans/1 is not a scene predicate', (2, 1))
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from qlang.errors import Span

#: What the theory reads of a scene, by arity (and the text an object shows, which the text
#: operations read).
PREDICATES = {"object": 1, "has_attr": 3, "has_rel": 3, "has_obj_weight": 2, "has_text": 2}
#: clingo's integers are 32 bits wide: read from text they wrap silently beyond.
INT_RANGE = range(-(2**31), 2**31)

#: Terms as clingo reads them: integers without leading zeros, constants, strings with the
#: escapes it knows (any other is a lexer error).
_TERM = r'-?(?:0|[1-9][0-9]*)|_*[a-z][A-Za-z0-9_\']*|"(?:[^"\\\n]|\\[\\"n])*"'
#: The spaces clingo reads: another one (U+00A0, U+3000, a vertical tab) is a lexer error whose
#: message, for one that is not ASCII, clingo cannot even hand to Python (a PANIC below it).
_SPACE = r"[ \t\r\n]"
#: Spaces and comments; a block comment holds no other (clingo nests them).
_SKIP = re.compile(rf"(?:{_SPACE}+|%\*(?:(?!%\*).)*?\*%|%(?!\*)[^\n]*)*", re.DOTALL)


def _fact(space: str) -> re.Pattern[str]:
    return re.compile(rf"([a-z][A-Za-z0-9_]*)\({space}*((?:{_TERM})(?:{space}*,{space}*(?:{_TERM}))*)"
                      rf"{space}*\){space}*\.")


_FACT = _fact(_SPACE)
#: A fact but for other spaces: where one is, to say so.
_SPACED_FACT = _fact(r"\s")
_ODD_SPACE = re.compile(r'"(?:[^"\\\n]|\\.)*"|([^\S \t\r\n])')
#: What clingo cannot read anywhere: NUL ends its text, a surrogate is no UTF-8.
_UNREADABLE = re.compile("[\0\ud800-\udfff]")
_ARGUMENT = re.compile(_TERM)
INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True, slots=True)
class FactSchema:
    """What a text of ground facts may hold, and how an error names it."""

    #: "scene", "question"
    what: str
    #: its predicates, by arity
    arities: Mapping[str, int]
    #: its predicates as an error lists them
    listed: str


SCENE = FactSchema("scene", PREDICATES, ", ".join(f"{name}/{arity}" for name, arity in PREDICATES.items()))


class Invalid(Exception):
    """What is wrong with a text of ground facts, and where (its offset)."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.message = message
        self.position = position


def read(text: str, kind: FactSchema) -> Iterator[tuple[str, list[str], int]]:
    """Each fact of `text`: its predicate, its arguments as written and its offset; raises
    `Invalid` at the first thing that is not a ground fact of `kind`."""
    if (unreadable := _UNREADABLE.search(text)) is not None:
        found = unreadable[0]
        raise Invalid("a NUL character, where clingo's text would end" if found == "\0" else
                      f"a lone surrogate ({ascii(found)[1:-1]}), which is no text", unreadable.start())
    position = _SKIP.match(text, 0).end()  # type: ignore[union-attr]  # it matches the empty string
    while position < len(text):
        fact = _FACT.match(text, position)
        if fact is None:
            raise _not_a_fact(text, position, kind)
        arguments = _ARGUMENT.findall(fact[2])
        if kind.arities.get(fact[1]) != len(arguments):
            raise Invalid(f"{fact[1]}/{len(arguments)} is not a {kind.what} predicate ({kind.listed})",
                          position)
        if any(INTEGER.fullmatch(a) and not _held(a) for a in arguments):
            raise Invalid("an integer beyond clingo's 32 bits", position)
        yield fact[1], arguments, position
        position = _SKIP.match(text, fact.end()).end()  # type: ignore[union-attr]


def _held(integer: str) -> bool:
    """Whether clingo holds an integer exactly (a long one is not converted at all: Python's
    int refuses 4,300 digits)."""
    return len(integer) <= len(str(INT_RANGE.start)) and int(integer) in INT_RANGE


def _not_a_fact(text: str, position: int, kind: FactSchema) -> Invalid:
    """Why no ground fact starts at `position`: a space clingo does not read, where one is in
    the way (between facts, or between a fact's tokens), else what may be there."""
    spaced = _SPACED_FACT.match(text, position)
    end = spaced.end() if spaced else position + 1
    odd = next((m.start(1) for m in _ODD_SPACE.finditer(text, position, end) if m[1]), None)
    if odd is not None:
        return Invalid(f"{ascii(text[odd])[1:-1]} is a space clingo does not read (it reads spaces, "
                       "tabs and line breaks)", odd)
    return Invalid(f"only ground facts of {kind.listed} may be in an ASP {kind.what}", position)


def problem(text: str) -> tuple[str, Span] | None:
    """Why `text` is not a scene of ground facts, and where; None if it is one."""
    try:
        for _ in read(text, SCENE):
            pass
    except Invalid as exc:
        return exc.message, span(text, exc.position)
    return None


def span(text: str, position: int) -> Span:
    """The one-character span at an offset of `text`."""
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return Span(line, column, line, column + 1)
