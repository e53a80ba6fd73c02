"""Checked rules as clingo statements: structures built directly, never text clingo parses.

A rule's head becomes a fact of its own predicate, numbered by the rule (``derived_attr(N, X,
A, V)``, ``derived_rel(N, X, R, Y)``), and two fixed rules make every derived fact a scene fact
(``has_attr(X, A, V) :- derived_attr(_, X, A, V)``, the same for ``has_rel``).  Its body reads
the scene's predicates as the theory does (``has_attr``, ``has_rel``), so rules read the scene
and one another's conclusions alike, and the knowledge triples a question grounds
(``knowledge(H, R, T)``, a relation spelled as programs spell it: `asp_names.relation_symbol`).  Why this way:

- the theory stays as it is: it reads ``has_attr``/``has_rel``, and a derived fact is one of
  them, so every operation (``select``, ``filter``, ``relate``, ``query``...) sees derived
  classes, values and relations with no rule of the theory changed, and the theory's own
  ``has_attr(O, any, V)`` collects derived values too;
- a rules file can define nothing else: its heads are only ``derived_attr``/``derived_rel``,
  predicates neither the theory, a scene (`qlang.asp.facts` admits only the scene's
  predicates) nor a question uses; its words are clingo symbols made as `to_term` spells them
  (a constant or a string), its variables come from the grammar, and no text of it reaches
  clingo's parser, so a ``#`` directive or a rule hidden in a word cannot either;
- the rule's number in each derived fact tells `explain` which rules derived it.

On an uncertain scene a derived fact that the scene also holds as a choice makes that choice
hold, and its model pays the fact's price, as if perceived.

>>> from qlang.errors import Source
>>> from qlang.rules.check import read
>>> for s in lower(read(Source('class "cup-like".\\n'
...                          'class(X, "cup-like") :- class(X, cup), not attr(X, color, _).'))):
...     print(s)
has_attr(O,A,V) :- derived_attr(_,O,A,V).
derived_attr(1,X,class,"cup-like") :- has_attr(X,class,cup); not has_attr(X,color,_).
"""

from __future__ import annotations

from collections.abc import Iterable

import clingo
from clingo import ast

from qlang.asp_names import relation_symbol, to_symbol
from qlang.errors import Span
from qlang.rules.check import Rules
from qlang.rules.language import PREDICATES, Atom, Condition, Different, Sort, Term, Var, Word

#: The scene's predicate each predicate of the rules reads, and the knowledge triples'.
READS = {"attr": "has_attr", "rel": "has_rel", "know": "knowledge"}
#: The predicate each derivable predicate's heads become (its first argument: the rule's number).
DERIVES = {"attr": "derived_attr", "rel": "derived_rel"}


def lower(rules: Rules) -> list[ast.AST]:
    """The statements: for each predicate the rules derive, the rule making its derived facts
    scene facts; then each rule, once per fact it derives."""
    name = rules.source.name
    derived = sorted({head.predicate for rule in rules.rules for head in rule.heads})
    statements = [_bridge(predicate, name) for predicate in derived]
    for number, rule in enumerate(rules.rules, 1):
        where = _location(rule.span, name)
        body = [_condition(c, where) for c in rule.body]
        for head in rule.heads:
            statements.append(ast.Rule(where, _literal(_derived(number, head, where)), body))
    return statements


def add(ctl: clingo.Control, statements: Iterable[ast.AST]) -> None:
    """Add lowered statements to the ``base`` program of a Control, before it is grounded."""
    with ast.ProgramBuilder(ctl) as builder:
        for statement in statements:
            builder.add(statement)


def _bridge(predicate: str, name: str) -> ast.AST:
    where = _location(None, name)
    variables = [ast.Variable(where, v) for v in "OAV"]
    head = ast.Function(where, READS[predicate], variables, False)
    body = ast.Function(where, DERIVES[predicate], [ast.Variable(where, "_"), *variables], False)
    return ast.Rule(where, _literal(head), [_literal(body)])


def _derived(number: int, head: Atom, where: ast.Location) -> ast.AST:
    arguments = [ast.SymbolicTerm(where, clingo.Number(number)), *(_term(t, where) for t in head.args)]
    return ast.Function(where, DERIVES[head.predicate], arguments, False)


def _condition(condition: Condition, where: ast.Location) -> ast.AST:
    if isinstance(condition, Different):
        guard = ast.Guard(ast.ComparisonOperator.NotEqual, _term(condition.right, where))
        return ast.Literal(where, ast.Sign.NoSign, ast.Comparison(_term(condition.left, where), [guard]))
    atom = condition.atom
    sorts = PREDICATES[atom.predicate]
    arguments = [ast.SymbolicTerm(where, relation_symbol(t.value)) if isinstance(t, Word) and s is Sort.KNOWN
                 else _term(t, where) for t, s in zip(atom.args, sorts, strict=True)]
    function = ast.Function(where, READS[atom.predicate], arguments, False)
    return _literal(function, negated=condition.negated)


def _literal(function: ast.AST, negated: bool = False) -> ast.AST:
    sign = ast.Sign.Negation if negated else ast.Sign.NoSign
    return ast.Literal(function.location, sign, ast.SymbolicAtom(function))


def _term(term: Term, where: ast.Location) -> ast.AST:
    if isinstance(term, Var):
        return ast.Variable(where, term.name)
    return ast.SymbolicTerm(where, to_symbol(term.value))


def _location(span: Span | None, name: str) -> ast.Location:
    """Where a statement comes from, for clingo's messages."""
    line, column, end_line, end_column = span or (1, 1, 1, 1)
    return ast.Location(ast.Position(name, line, column), ast.Position(name, end_line, end_column))
