"""Reading a rules file (grammars/rules.lark) into the structures of `qlang.rules.language`.

The parser only builds: which predicates and declarations exist, and what their words may be,
is the checker's to say, so that a misspelt predicate gets a "did you mean" rather than a
syntax error, and every problem of a file is reported at once.

>>> parse(Source("class(X, mug) :- class(X, cup), not attr(X, color, white).")).rules[0].body[1]
Literal(atom=Atom(predicate='attr', args=(Var(name='X'), Word(value='color'), Word(value='white'))),
        negated=True)
"""

from __future__ import annotations

from typing import Any

from lark import Token

from qlang.errors import Source, Span
from qlang.rules.language import Atom, Declaration, Different, Literal, Parsed, Rule, Var, Word
from qlang.syntax import parsing


class _RulesBuilder(parsing.Builder):
    def word(self, children: list[Token]) -> Word:
        literal = parsing.literal(children[0])
        return Word(literal.value, literal.span)

    def variable(self, children: list[Token]) -> Var:
        return Var(children[0].value, parsing.span(children[0]))

    def atom(self, children: list[Any]) -> Atom:
        name, *args, close = children
        return Atom(name.value, tuple(args), parsing.span(name, close))

    def negated(self, children: list[Any]) -> Literal:
        return Literal(children[1], negated=True)

    def different(self, children: list[Any]) -> Different:
        left, sign, right = children
        return Different(left, right, parsing.span(sign))

    def rule(self, children: list[Any]) -> Rule:
        head, *body, end = children
        conditions = tuple(c if isinstance(c, Different | Literal) else Literal(c) for c in body)
        assert head.span is not None  # every atom the builder makes has one
        return Rule(head, conditions, Span(head.span.line, head.span.column, end.end_line, end.end_column))

    def words(self, children: list[Word]) -> tuple[Word, ...]:
        return tuple(children)

    values = words

    def declaration(self, children: list[Any]) -> Declaration:
        keyword, words, *values, end = children
        return Declaration(Word(keyword.value, parsing.span(keyword)), words,
                           values[0] if values else None, parsing.span(keyword, end))

    def start(self, children: list[Declaration | Rule]) -> Parsed:
        return Parsed(tuple(c for c in children if isinstance(c, Declaration)),
                      tuple(c for c in children if isinstance(c, Rule)))


GRAMMAR = parsing.Grammar("rules", _RulesBuilder)


def parse(source: Source) -> Parsed:
    """The declarations and rules of a rules file; a located `ParseError` if it is not one."""
    parsed: Parsed = GRAMMAR.parse(source)
    return parsed

