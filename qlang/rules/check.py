"""Checking a rules file: every problem at its location, then the checked rules.

What is checked, per statement:
- declarations: ``class`` and ``rel`` list words, ``attr`` one category and its values after
  ``:``; the words declared join the ontology's (`DeclaredWords.extend`), for the rules and for
  the programs that use what they derive;
- predicates exist ("did you mean"), with their arity; only ``class``, ``attr`` and ``rel``
  may be derived (knowledge comes from knowledge bases);
- sorts: an object position holds a variable (a rules file holds for every scene, so it
  cannot name a scene's objects), a word position a word of the ontology or of the file's
  declarations (values narrowed to a constant category, "did you mean" otherwise), and a
  variable keeps one family of sorts (an object is never a word);
- safety: every variable of the head, of a negated literal and of a comparison is bound by a
  positive literal of the body; ``_`` may stand only in the body's literals;
- stratification (`qlang.rules.strata`), once the rest is sound;
- size: a body of at most `limits.RULE_BODY` conditions, a file of at most
  `limits.RULE_CONDITIONS` (clingo's grounding, which no deadline interrupts, grows steeply
  with them), checked first.

>>> from qlang.rules.language import show
>>> rules = read(Source("class big_cup.\\nclass(X, big_cup) :- class(X, cup), attr(X, size, large)."))
>>> [show(h) for h in rules.rules[0].heads]
['class(X, big_cup)']
>>> [show(h) for h in read(Source("class(X, table) :- class(X, desk).")).rules[0].heads]
['class(X, table)', 'class(X, furniture)']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from qlang import limits
from qlang.asp_names import to_term
from qlang.errors import SHOWN, CheckError, Diagnostic, Source, Span, shown
from qlang.knowledge.relations import BY_NAME
from qlang.ontology import Ontology, load, suggestions
from qlang.rules import strata
from qlang.rules.language import (
    CLASS,
    DERIVABLE,
    PREDICATES,
    Atom,
    Condition,
    Declaration,
    Different,
    Literal,
    Parsed,
    Rule,
    Sort,
    Var,
    Word,
)
from qlang.rules.syntax import parse
from qlang.signatures import Kind

#: The sorts the ontology has words for, as the program checker's literal kinds.
_KINDS = {Sort.CLASS: Kind.CLASS, Sort.CATEGORY: Kind.ATTR, Sort.VALUE: Kind.VALUE,
          Sort.RELATION: Kind.REL}
#: The knowledge relations (a knowledge base has no others).
_KNOWN = frozenset(BY_NAME)
_DECLARATIONS = {"class": Sort.CLASS, "attr": Sort.CATEGORY, "rel": Sort.RELATION}


@dataclass(frozen=True, slots=True)
class DeclaredWords:
    """The words a rules file declares."""

    classes: frozenset[str] = frozenset()
    #: category -> the values declared for it
    categories: dict[str, frozenset[str]] = field(default_factory=dict)
    relations: frozenset[str] = frozenset()

    def extend(self, ontology: Ontology) -> Ontology:
        """The ontology with these words: what rules, and programs over what they derive, are
        checked against (a declared class is a value of the class-valued categories too)."""
        values = frozenset().union(*self.categories.values())
        categories = dict(ontology.categories)
        admissible = dict(ontology.admissible)
        for category, declared in [*self.categories.items(), ("any", values),
                                   *((c, self.classes) for c in ("name", "class"))]:
            categories[category] = categories.get(category, frozenset()) | declared
            admissible[category] = admissible.get(category, frozenset()) | declared
        return dataclasses.replace(
            ontology, classes=ontology.classes | self.classes, categories=categories,
            admissible=admissible, values=ontology.values | values | self.classes,
            relations=ontology.relations | self.relations)


@dataclass(frozen=True, slots=True)
class Rules:
    """A checked rules file: its rules (``class`` written as ``attr(X, class, C)``), in file
    order, and the order they are evaluated in."""

    rules: tuple[Rule, ...]
    declared: DeclaredWords
    #: the rules' indices, stratum by stratum: a stratum reads what earlier ones derive
    strata: tuple[tuple[int, ...], ...]
    source: Source


def read(source: Source, ontology: Ontology | None = None) -> Rules:
    """A rules file parsed and checked; a `ParseError` or a `CheckError` with every problem."""
    return check(parse(source), source, ontology)


def check(parsed: Parsed, source: Source | None = None, ontology: Ontology | None = None) -> Rules:
    """The checked rules, or a `CheckError` with every problem, in file order."""
    source = source or Source("")
    _check_size(parsed, source)
    checker = _Checker(ontology or load())
    declared = checker.declarations(parsed.declarations)
    checker.ontology = declared.extend(checker.ontology)
    rules = tuple(checker.rule(rule) for rule in parsed.rules)
    if not checker.diagnostics:
        order, cycles = strata.stratify(rules)
        checker.diagnostics += cycles
    if checker.diagnostics:
        raise CheckError(sorted(checker.diagnostics, key=lambda d: d.span or Span(0, 0, 0, 0)), source)
    return Rules(rules, declared, order, source)


def _check_size(parsed: Parsed, source: Source) -> None:
    """Refuse (a `CheckError`) rules whose grounding would take longer than any deadline: a body
    past `limits.RULE_BODY`, each one located, or a file past `limits.RULE_CONDITIONS`."""
    most = limits.RULE_BODY.most
    long = [Diagnostic("size", f"a body of {len(rule.body):,} conditions: {limits.RULE_BODY.bound()}",
                       rule.span)
            for rule in parsed.rules if len(rule.body) > most]
    total = sum(len(rule.body) for rule in parsed.rules)
    if not long and total > limits.RULE_CONDITIONS.most:
        long.append(Diagnostic("size", f"{total:,} conditions in all: {limits.RULE_CONDITIONS.bound()}"))
    if long:
        raise CheckError(long[:SHOWN], source)


@dataclass
class _Checker:
    ontology: Ontology
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: the rule being checked: each variable's sort and where it was first seen
    sorts: dict[str, tuple[Sort, Span | None]] = field(default_factory=dict)

    def report(self, kind: str, message: str, span: Span | None, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(kind, message, span, hint))

    # --- declarations ----------------------------------------------------------------------

    def declarations(self, declarations: tuple[Declaration, ...]) -> DeclaredWords:
        words: dict[Sort, set[str]] = {sort: set() for sort in _DECLARATIONS.values()}
        categories: dict[str, set[str]] = {}
        for declaration in declarations:
            sort = self.declaration(declaration)
            if sort is None:
                continue
            words[sort] |= {w.value for w in declaration.words}
            if sort is Sort.CATEGORY:
                categories.setdefault(declaration.words[0].value, set()).update(
                    w.value for w in declaration.values or ())
        return DeclaredWords(frozenset(words[Sort.CLASS]),
                             {c: frozenset(vs) for c, vs in categories.items()},
                             frozenset(words[Sort.RELATION]))

    def declaration(self, declaration: Declaration) -> Sort | None:
        """The sort of words it declares; None where it is wrong (reported)."""
        keyword = declaration.keyword
        sort = _DECLARATIONS.get(keyword.value)
        if sort is None:
            self.report("declaration", f"{shown(keyword.value)} declares nothing", keyword.span,
                        _near(keyword.value, _DECLARATIONS, "declarations are: class WORD, ... / "
                              "attr CATEGORY: VALUE, ... / rel WORD, ..."))
            return None
        if not all([self.printable(w) for w in (*declaration.words, *(declaration.values or ()))]):
            return None
        if sort is Sort.CATEGORY and len(declaration.words) != 1:
            self.report("declaration", "attr declares one category and its values",
                        declaration.span, "e.g. attr temperature: hot, cold.")
            return None
        if sort is not Sort.CATEGORY and declaration.values is not None:
            self.report("declaration", f"{keyword.value} declares words, without ':'",
                        declaration.span, f"e.g. {keyword.value} {to_term(declaration.words[0].value)}.")
            return None
        return sort

    def printable(self, word: Word) -> bool:
        if word.value.strip() and word.value.isprintable():
            return True
        self.report("word", f"a word is non-empty and printable, not {shown(word.value)}", word.span)
        return False

    # --- rules -----------------------------------------------------------------------------

    def rule(self, rule: Rule) -> Rule:
        """The rule with its atoms in the checked form, and what it derives."""
        self.sorts = {}
        head = self.atom(rule.head, head=True)
        body = tuple(Literal(self.atom(c.atom), c.negated) if isinstance(c, Literal) else c
                     for c in rule.body)
        for condition in body:
            if isinstance(condition, Different):
                self.different(condition)
        bound = {t.name for c in body if isinstance(c, Literal) and not c.negated
                 for t in c.atom.args if isinstance(t, Var)}
        self.safety(head, body, bound)
        return Rule(head, body, rule.span, self.derived(head))

    def different(self, condition: Different) -> None:
        """Its words are words, and it compares objects with objects and words with words of
        one family (once the rule's atoms have given its variables their sorts)."""
        described: list[tuple[str, str]] = []  # what each side is, and its family
        for term in (condition.left, condition.right):
            if isinstance(term, Word):
                if not self.printable(term):
                    return
                described.append(("a word", "word"))
            elif term.name in self.sorts:
                sort = self.sorts[term.name][0]
                described.append((sort.value, sort.family))
            else:
                return  # unbound, or `_`: unsafe, which `safety` reports
        (left, first), (right, second) = described
        if first != second and (Sort.OBJECT.family in (first, second) or "word" not in (first, second)):
            self.report("sort", f"{left} is compared with {right}", condition.span)

    def atom(self, atom: Atom, head: bool = False) -> Atom:
        """The atom in the checked form (``class(X, C)`` as ``attr(X, class, C)``, a knowledge
        relation by its name: ``used_for`` or ``"used for"`` as `used_for`), its predicate,
        arity, sorts and words checked."""
        sorts = PREDICATES.get(atom.predicate)
        if sorts is None:
            self.report("predicate", f"unknown predicate {shown(atom.predicate)}", atom.span,
                        _near(atom.predicate, PREDICATES, "rules speak of class/2, attr/3, rel/3 and know/3"))
            return atom
        if len(atom.args) != len(sorts):
            expected = ", ".join(s.value.split(" ", 1)[1] for s in sorts)
            self.report("arity", f"{atom.predicate} takes {len(sorts)} arguments ({expected}), "
                        f"got {len(atom.args)}", atom.span)
            return atom
        if head and atom.predicate not in DERIVABLE:
            self.report("head", f"a rule cannot derive {atom.predicate}: knowledge comes from "
                        "knowledge bases", atom.span, "a rule derives class, attr or rel")
        category: str | None = None
        args = tuple(Word(t.value.replace(" ", "_"), t.span) if isinstance(t, Word) and s is Sort.KNOWN
                     else t for t, s in zip(atom.args, sorts, strict=True))
        for term, sort in zip(args, sorts, strict=True):
            if isinstance(term, Var):
                self.variable(term, sort)
            elif self.word(term, sort, category) and sort is Sort.CATEGORY:
                category = term.value
        if atom.predicate == "class":
            return Atom("attr", (args[0], Word(CLASS, atom.span), args[1]), atom.span)
        return Atom(atom.predicate, args, atom.span)

    def variable(self, var: Var, sort: Sort) -> None:
        if var.anonymous:
            return
        seen = self.sorts.setdefault(var.name, (sort, var.span))
        if seen[0].family != sort.family:
            where = f" (line {seen[1].line}, column {seen[1].column})" if seen[1] else ""
            self.report("sort", f"{var.name} is {sort.value} here but {seen[0].value}{where}", var.span)

    def word(self, word: Word, sort: Sort, category: str | None) -> bool:
        """Whether the word is one of its sort (reported if not)."""
        if sort is Sort.OBJECT:
            self.report("sort", f"an object is a variable, not the word {shown(word.value)}: rules hold "
                        "in every scene, and cannot name its objects", word.span)
            return False
        if not self.printable(word):
            return False
        if sort is Sort.CONCEPT:  # whatever the knowledge bases in use hold
            return True
        kind = _KINDS.get(sort)
        vocabulary = _KNOWN if kind is None else self.ontology.vocabulary(kind, category)
        if word.value in vocabulary:
            return True
        known = f"{category} value" if category is not None else sort.value.split(" ", 1)[1]
        near = _did_you_mean(suggestions(word.value, vocabulary))
        pasted = kind and len(word.value) <= SHOWN  # a declaration to paste, for a word shown whole
        declare = f"declare it: {_declaration(sort, category)} {to_term(word.value)}." if pasted else None
        hint = " or ".join(h for h in (near, declare) if h) or None
        self.report("vocabulary", f"{shown(word.value)} is not a known {known}", word.span, hint)
        return False

    def safety(self, head: Atom, body: tuple[Condition, ...], bound: set[str]) -> None:
        for term in head.args:
            if isinstance(term, Var) and term.anonymous:
                self.report("unsafe", "'_' cannot stand in a head: what would the rule derive?",
                            term.span)
            elif isinstance(term, Var) and term.name not in bound:
                self.report("unsafe", f"{term.name} of the head is not bound by a positive literal "
                            "of the body", term.span)
        for condition in body:
            where = "a comparison" if isinstance(condition, Different) else "a negated literal"
            for term in _terms(condition):
                if isinstance(term, Var) and term.anonymous and isinstance(condition, Different):
                    self.report("unsafe", "'_' cannot be compared", term.span)
                elif isinstance(term, Var) and not term.anonymous and term.name not in bound:
                    self.report("unsafe", f"{term.name} of {where} is not bound by a positive "
                                "literal of the body", term.span)

    def derived(self, head: Atom) -> tuple[Atom, ...]:
        """The head and, for a class the ontology puts under others, those classes too."""
        if head.predicate != "attr" or len(head.args) != 3 or head.args[1] != Word(CLASS):
            return (head,)
        value = head.args[2]
        if not isinstance(value, Word):
            return (head,)
        ancestors = [a for a in self.ontology.ancestors(value.value) if a != value.value]
        return (head, *(Atom("attr", (head.args[0], head.args[1], Word(a, value.span)), head.span)
                        for a in ancestors))


def _terms(condition: Condition) -> Iterator[Var | Word]:
    """The terms of a negated literal or a comparison (a positive literal binds; none here)."""
    if isinstance(condition, Different):
        yield from (condition.left, condition.right)
    elif condition.negated:
        yield from condition.atom.args


def _declaration(sort: Sort, category: str | None) -> str:
    """How a word of a sort is declared (a value: with its category)."""
    if sort is Sort.VALUE:
        return f"attr {to_term(category) if category else 'CATEGORY'}:"
    return {Sort.CLASS: "class", Sort.CATEGORY: "attr", Sort.RELATION: "rel"}[sort]


def _near(word: str, known: Iterable[str], otherwise: str) -> str:
    """Did-you-mean for a keyword not among `known`, else what the known ones are."""
    return _did_you_mean(suggestions(word, frozenset(known))) or otherwise


def _did_you_mean(words: list[str]) -> str | None:
    return f"did you mean {' or '.join(repr(w) for w in words)}?" if words else None
