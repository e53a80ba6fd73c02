"""Rules evaluated in Python: the facts a checked rules file derives from a scene's, stratum by
stratum, each stratum to its fixpoint.

This is the semantics the ASP lowering (`qlang.rules.statements`) is held to by the differential
tests: the checker's strata are stratified, so the rules have one model, the one computed here.
The scene is read as the theory reads it: facts derived under a real attribute category are
also facts of the category ``any`` (theory/qlang.lp's ``has_attr(O, any, V)``).

>>> from qlang.errors import Source
>>> from qlang.rules import read
>>> rules = read(Source("class(Y, cup) :- rel(X, on, Y), class(X, saucer), not attr(Y, color, _)."))
>>> scene = Facts(frozenset({("1", "class", "saucer"), ("2", "class", "mug")}), frozenset({("1", "on", "2")}))
>>> sorted(derive(rules, scene).attrs - scene.attrs)
[('2', 'class', 'cup'), ('2', 'class', 'tableware')]
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from qlang.rules import Rules
from qlang.rules.language import Atom, Condition, Different, Literal, Term, Var

#: (object, category, value), (subject, relation, object) or (head, relation, tail)
Triple = tuple[str, str, str]
Binding = dict[str, str]
#: Categories the theory's ``any`` does not collect (theory/qlang.lp).
_NOT_ANY = frozenset({"any", "class", "name"})


@dataclass(frozen=True, slots=True)
class Facts:
    """A scene's facts, words as words and objects by id, and the knowledge triples in use."""

    attrs: frozenset[Triple]
    rels: frozenset[Triple]
    knowledge: frozenset[Triple] = frozenset()


def derive(rules: Rules, facts: Facts) -> Facts:
    """The scene's facts and all the rules derive from them (and ``any`` from both)."""
    known: dict[str, set[Triple]] = {"attr": set(), "rel": set(facts.rels), "know": set(facts.knowledge)}
    for fact in facts.attrs:
        _add(known, "attr", fact)
    for stratum in rules.strata:
        members = [rules.rules[i] for i in stratum]
        while True:
            new = {(head.predicate, _ground(head, binding))
                   for rule in members for binding in _bindings(rule.body, known)
                   for head in rule.heads}
            new = {(predicate, fact) for predicate, fact in new if fact not in known[predicate]}
            if not new:
                break
            for predicate, fact in new:
                _add(known, predicate, fact)
    return Facts(frozenset(known["attr"]), frozenset(known["rel"]), facts.knowledge)


def _add(known: dict[str, set[Triple]], predicate: str, fact: Triple) -> None:
    known[predicate].add(fact)
    if predicate == "attr" and fact[1] not in _NOT_ANY:
        known["attr"].add((fact[0], "any", fact[2]))


def _bindings(body: tuple[Condition, ...], known: dict[str, set[Triple]]) -> Iterator[Binding]:
    """Every binding of the body's variables that satisfies it: positive literals joined in
    order, then negated literals and comparisons tested (their variables are bound by then)."""
    bindings: list[Binding] = [{}]
    for condition in body:
        if isinstance(condition, Literal) and not condition.negated:
            bindings = [extended for binding in bindings for fact in known[condition.atom.predicate]
                        if (extended := _match(condition.atom, fact, binding)) is not None]
    for binding in bindings:
        if all(_holds(c, binding, known) for c in body if not isinstance(c, Literal) or c.negated):
            yield binding


def _holds(condition: Condition, binding: Binding, known: dict[str, set[Triple]]) -> bool:
    if isinstance(condition, Different):
        return _value(condition.left, binding) != _value(condition.right, binding)
    atom = condition.atom
    return not any(_match(atom, fact, binding) is not None for fact in known[atom.predicate])


def _match(atom: Atom, fact: Triple, binding: Binding) -> Binding | None:
    """The binding extended so that the atom is the fact; None if it cannot be."""
    extended = binding
    for term, value in zip(atom.args, fact, strict=True):
        if isinstance(term, Var):
            if term.anonymous:
                continue
            bound = extended.get(term.name)
            if bound is None:
                extended = {**extended, term.name: value}
            elif bound != value:
                return None
        elif term.value != value:
            return None
    return extended


def _value(term: Term, binding: Binding) -> str:
    return binding[term.name] if isinstance(term, Var) else term.value


def _ground(atom: Atom, binding: Binding) -> Triple:
    first, second, third = (_value(t, binding) for t in atom.args)
    return first, second, third
