"""The calls and words of a nested, code-like or flat text as written, whatever it holds.

The parsers read whole programs or refuse them; an editor asks about texts being written.  This
reads the grammar's own tokens (`Grammar.tokens`, stray characters kept) into calls, each with
its name, its commas and its closing parenthesis, and words, each knowing the call and argument
position it stands in: what completion, hover and navigation need, since the operation table
says what each position holds.  It never fails: an unbalanced parenthesis ends or opens a call,
and a new statement (code's ``name =``, flat's ``.``) ends every call still open.  What differs
between the syntaxes is their `CallShape`, the record the parser's fast path reads too; why the
two readers stay two is said in `qlang.syntax.descent`.

>>> calls = read("code", "v = unique(select(scene(), cat))\\nexist(v)")
>>> [(w.token.value, w.role.value, w.call and w.call.name.value, w.position) for w in calls.words]
[('v', 'definition', None, 0), ('cat', 'word', 'select', 1), ('v', 'reference', 'exist', 0)]
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

from qlang.signatures import END, SIGNATURES
from qlang.syntax import SYNTAXES
from qlang.syntax.descent import CallShape, Tok

#: A place in a text: 1-based line and column, the column of the character after it.
Point = tuple[int, int]


class Role(Enum):
    WORD = "word"
    #: a code-like variable assigned, or a flat step numbered
    DEFINITION = "definition"
    #: a code-like variable or a flat step used
    REFERENCE = "reference"


@dataclass(eq=False)
class Call:
    """``name(arg, ...)`` as written; `close` is None where it is left open."""

    name: Tok
    parent: Call | None
    #: its argument position in the parent (as the IR counts: a flat step's own number is -1)
    position: int
    #: the statement it belongs to (code-like: a line; flat: a fact; nested: 0)
    statement: int
    commas: list[Tok] = field(default_factory=list)
    close: Tok | None = None
    #: the last token read inside it (its closing parenthesis, where it has one)
    last: Tok | None = None
    #: where its arguments stop: its ")", the next statement, or nowhere (the end of the text)
    stop: Point = (1 << 62, 0)
    #: its arguments that are words
    words: list[PlacedWord] = field(default_factory=list)

    @property
    def end(self) -> Point:
        last = self.last or self.name
        return last.end_line, last.end_column

    def holds(self, point: Point) -> bool:
        """Whether `point` lies between its parentheses."""
        return (self.name.end_line, self.name.end_column + 1) <= point <= self.stop


@dataclass(frozen=True, slots=True)
class PlacedWord:
    """A name, quoted string or step number that does not name a call, and where it stands."""

    token: Tok
    role: Role
    #: the call it is an argument of (None at the top of a statement)
    call: Call | None
    position: int
    statement: int


@dataclass(eq=False)
class Calls:
    shape: CallShape
    calls: list[Call]
    words: list[PlacedWord]

    def __post_init__(self) -> None:
        marks: list[Call | PlacedWord] = sorted([*self.calls, *self.words], key=_start)
        self._marks = marks
        self._starts = [_start(m) for m in marks]
        self._call_starts = [_start(c) for c in self.calls]

    @property
    def roots(self) -> list[Call]:
        return [c for c in self.calls if c.parent is None]

    def at(self, point: Point) -> Call | PlacedWord | None:
        """The call name or word whose token holds `point` (or ends right at it)."""
        index = bisect.bisect_left(self._starts, point)
        for mark in self._marks[max(0, index - 1):index + 1]:
            token = mark.name if isinstance(mark, Call) else mark.token
            if (token.line, token.column) <= point <= (token.end_line, token.end_column):
                return mark
        return None

    def open_at(self, point: Point) -> tuple[Call, int] | None:
        """The innermost call whose parentheses hold `point`, and the argument position there."""
        before = self.calls[:bisect.bisect_left(self._call_starts, point)]
        inner = next((call for call in reversed(before) if call.holds(point)), None)
        if inner is None:
            return None
        commas = sum(1 for c in inner.commas if (c.end_line, c.end_column) <= point)
        return inner, commas - (1 if self.shape.numbered else 0)

    @cached_property
    def defined(self) -> dict[str, tuple[PlacedWord, Call | None]]:
        """Each code-like variable or flat step by its key (`key`): where it is first defined,
        and the call that gives its value."""
        tops = {c.statement: c for c in reversed(self.roots)}
        found: dict[str, tuple[PlacedWord, Call | None]] = {}
        for word in self.words:
            if word.role is Role.DEFINITION:
                value = word.call if word.call is not None else tops.get(word.statement)
                found.setdefault(key(word), (word, value))
        return found


def key(word: PlacedWord) -> str:
    """What names a variable or step: its name, or its number (``01`` is step 1)."""
    value = word.token.value
    return value.lstrip("0") or "0" if word.token.type == "INT" else value


def _start(mark: Call | PlacedWord) -> Point:
    token = mark.name if isinstance(mark, Call) else mark.token
    return token.line, token.column


def read(syntax: str, text: str) -> Calls:
    """The calls and words of a text of a call-shaped syntax (nested, code-like, flat)."""
    grammar = SYNTAXES[syntax].grammar
    if grammar is None or grammar.shape is None:
        raise ValueError(f"{syntax} is not call-shaped")
    return _Reader(grammar.shape).read(grammar.tokens(text, strays=True))


def is_operand(operation: str, position: int) -> bool:
    """Whether `position` of `operation` holds an operation (every position of an unknown one,
    as the code-like parser reads it)."""
    signature = SIGNATURES.get(operation)
    return position >= 0 and (signature is None or position < len(signature.operands))


class _Reader:
    def __init__(self, shape: CallShape) -> None:
        self.shape = shape
        #: the number a word's position is less than its index among the call's arguments
        self.first = 1 if shape.numbered else 0
        #: whether a name may be a variable (code-like's, assigned with `shape.assign`)
        self.variables = shape.assign is not None
        self.calls: list[Call] = []
        self.words: list[PlacedWord] = []
        self.stack: list[Call] = []
        self.statement = -1
        self.assigning = False  # code-like: a name and "=" read, its call not yet

    def read(self, toks: list[Tok]) -> Calls:
        previous: Tok | None = None
        opening = False  # the token is the "(" of the call just read
        for i, tok in enumerate(toks[:-1]):
            following = toks[i + 1].value
            if opening:
                opening = False
            elif tok.type == "NAME" and following == "(":
                self.call(tok)
                opening = True
            elif tok.type == "NAME" and following == self.shape.assign:
                self.end_statement(previous, tok)
                self.statement += 1
                self.words.append(PlacedWord(tok, Role.DEFINITION, None, 0, self.statement))
                self.assigning = True
            elif tok.value == "," and self.stack:
                self.stack[-1].commas.append(tok)
            elif tok.value == ")" and self.stack:
                call = self.stack.pop()
                call.close = call.last = tok
                call.stop = (tok.line, tok.column)
            elif tok.value == self.shape.end:
                self.end_statement(previous, tok)
            elif tok.type in ("NAME", "STRING", "INT"):
                self.word(tok)
            previous = tok
        self.end_statement(previous, None)
        return Calls(self.shape, self.calls, self.words)

    def end_statement(self, last: Tok | None, next_statement: Tok | None) -> None:
        """Every call still open ends with `last`, its arguments before `next_statement`."""
        for call in self.stack:
            call.last = last
            if next_statement is not None:
                call.stop = (next_statement.line, next_statement.column)
        self.stack.clear()
        self.assigning = False

    def place(self) -> tuple[Call | None, int]:
        """The call the next argument goes to, and its position there."""
        if not self.stack:
            return None, 0
        call = self.stack[-1]
        return call, len(call.commas) - self.first

    def call(self, name: Tok) -> None:
        if not self.stack and not self.assigning:
            self.statement += 1
        self.assigning = False
        parent, position = self.place()
        call = Call(name, parent, position, self.statement)
        self.calls.append(call)
        self.stack.append(call)

    def word(self, tok: Tok) -> None:
        call, position = self.place()
        if call is None:
            self.statement += 1
            role = Role.REFERENCE if self.variables and tok.type == "NAME" else Role.WORD
        elif tok.type == "INT":
            own = position == -1 and call.name.value != END
            role = Role.DEFINITION if own else Role.REFERENCE
        elif self.variables and tok.type == "NAME" and is_operand(call.name.value, position):
            role = Role.REFERENCE
        else:
            role = Role.WORD
        word = PlacedWord(tok, role, call, position, self.statement)
        self.words.append(word)
        if call is not None:
            call.words.append(word)
