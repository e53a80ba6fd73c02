"""Decoding grammars: the programs an LLM may write, typed, in GBNF (llama.cpp) or Lark (llguidance).

`generate` builds one small grammar model (`GrammarRule`: alternatives of sequences of `Text`, `Ref`,
`Chars`, `Group`, `Repeat`) from the operation table and the ontology, then prints it in either
format, so both engines constrain the decoder to the same language.  The grammar accepts
exactly the canonical spacing of our printers (``op(a, b)``; one fact or statement per line),
so no token is spent on layout.

Typing.  In nested and code-like, every `Type` has a nonterminal (`objects`, `object`,
`bool`, `value`) whose alternatives are the operations yielding it (`Object` is a subtype of
`Objects`, so `objects` also admits ``unique(...)``), and each operand position refers to its
type's nonterminal; the root is an answer (Bool or Value).  Each literal position admits only
its kind's words, and a value is narrowed by the attribute category before it: the literals
after an attribute are written per category (``"color, " values-color``), so
``filter(X, color, V)`` and ``choose_attr(X, color, V1, V2)`` only admit colours.

Depth.  A recursive grammar lets a small model nest without end (``and(and(and(...``) until
its token limit.  The deepest of the 3,091 real GQA programs nests 7 operations (``query(
unique(relate_any(negate(filter(select(scene(), ...``, counting ``scene()`` as 1), so
expressions may nest at most `MAX_DEPTH` = 10 (and `and`/`or` never inside each other, see
`_connective`): the typed rules are unrolled per level,
``objects-3 ::= op-scene | op-select-3 | ...`` with ``op-select-3 ::= "select(" objects-2 ...``.
Each operand position still has the same few alternatives, so llama.cpp keeps as many stacks
as before and masks as fast; the grammar has about 200 more short rules and compiles about
as fast (bench/README.md).  Code-like expressions (each assignment and the answer) are
bounded the same way.

Flat.  Facts are numbered by the grammar, as the printer numbers them: fact i is
``op(i, refs..., literals...).`` for i = 0, 1, 2, ... in order, each of its operands is one of
``ref-i ::= "0" | ... | "i-1"`` (only earlier steps: no forward or self reference, no cycle),
and ``end(i).`` follows fact i, so it names the last step
(``steps-i ::= fact-i "\n" (steps-<i+1> | "end(i).")``).  At most `MAX_STEPS` = 16 facts: the
3,091 real GQA programs have at most 8.  Literal positions are typed per operation.  Which type
step j holds is context a CFG cannot carry without one copy per typing, so flat's operand
types and root type are still left to the checker (and a step nobody refers to is admitted).

Code-like.  ``varK = expression`` lines, then the answer expression.  Assignment k names
``var<k>`` (``var1``, ``var2``, ... in order, as the printer writes them) and its expression
may use only ``var1`` to ``var<k-1>``; the answer after k assignments only ``var1`` to
``var<k>``.  Each number of defined variables is a scope with its own copy of the typed rules
(``objects-3-v2``: var1 and var2 defined), so there are at most `MAX_VARIABLES` = 4
assignments (real programs have at most 2) and five copies of nested's expression rules (the
word lists are shared): 2.4 times nested's size, compiling in about twice its time.  Whether
``var1`` holds a set, one object or a truth value is again beyond the CFG (the printer names
variables by position, not by type, and typing them would need a copy per assignment of types
to variables), so a defined variable is admitted in every operand position (Objects, Object,
Bool: the types a shared result can have) and an assignment's right-hand side is any operation
yielding one of those.  So ``var1 = select(...)`` followed by ``query(var1, color)`` passes
the grammar and is refused by the checker.

Speed.  llama.cpp's engine keeps one parse stack per live alternative and advances them all for
every candidate token, so a word position with 1,786 classes costs 1,786 stacks.  For GBNF each
word list is therefore factored into a radix trie (``"bl" ("ack" ("_and_white")? | "ue")``):
at most one branch per next character.  Equal word lists are one rule (`name` and `class` are
the classes; the ~480 values no category claims are shared by every category).  Repetition is
printed as ``*``/``+``, never as the ``x? x? x?`` chains llama.cpp documents as slow.  Lark gets
each word list as one terminal, which llguidance (and Lark) compile into an automaton anyway.

``vocabulary=False`` keeps syntax and typing but admits any word: the `NAME` and `STRING`
terminals of the syntax's own grammar (``grammars/nested.lark``'s, which code-like imports and
flat repeats), converted from Lark's own reading of that file.

Which syntaxes have a decoding grammar, and how it lays their program out, their `Syntax`
record says (`Syntax.decoding`).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import groupby
from re import _constants as sre_constants
from re import _parser as sre_parser
from typing import Any

from qlang.asp_names import to_term
from qlang.ontology import ANY_CATEGORY, Ontology, load
from qlang.passes.vocabulary import words as kind_words
from qlang.signatures import END, SIGNATURES, Kind, Signature, Type
from qlang.syntax import SYNTAXES, Decoding, Syntax
from qlang.syntax.parsing import Grammar, fast_parser

#: The syntaxes with a decoding grammar; GQA's forms are only ever decoded freely.
GRAMMAR_SYNTAXES = tuple(name for name, syntax in SYNTAXES.items() if syntax.decoding is not None)
FORMATS = ("gbnf", "lark")
#: Between operands and literals, exactly as the printers write it.
SEPARATOR = ", "
#: How deeply operations may nest (``scene()`` is 1): real programs nest at most 7 (see Depth).
MAX_DEPTH = 10
#: Facts in a flat program, ``end`` not counted: real programs have at most 8 (see Flat).
MAX_STEPS = 16
#: Assignments in a code-like program: real programs have at most 2 (see Code-like).
MAX_VARIABLES = 4


# --- the grammar model -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Text:
    text: str


@dataclass(frozen=True, slots=True)
class Ref:
    name: str


@dataclass(frozen=True, slots=True)
class Chars:
    """A character class: inclusive ranges, or everything but them."""

    ranges: tuple[tuple[str, str], ...]
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Group:
    alternatives: tuple[Seq, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    item: Item
    min: int
    max: int | None


Item = Text | Ref | Chars | Group | Repeat
Seq = tuple[Item, ...]


@dataclass(frozen=True, slots=True)
class GrammarRule:
    name: str
    alternatives: tuple[Seq, ...]
    #: a terminal (Lark: an upper-case terminal; GBNF: a trie candidate): refers to terminals only
    lexical: bool = False


def seq(*items: Item) -> Seq:
    """A sequence with adjacent texts merged, so the printed grammar stays short."""
    merged: list[Item] = []
    for item in items:
        if isinstance(item, Text) and merged and isinstance(merged[-1], Text):
            merged[-1] = Text(merged[-1].text + item.text)
        else:
            merged.append(item)
    return tuple(merged)


def one_of(alternatives: Sequence[Seq]) -> Item:
    """A single item for a choice (no group around a lone item)."""
    if len(alternatives) == 1 and len(alternatives[0]) == 1:
        return alternatives[0][0]
    return Group(tuple(alternatives))


# --- building the model from the operation table and the ontology ------------------------------

@dataclass
class _ModelBuilder:
    """Builds the grammar model of one syntax, rule by rule; `build` gives it, the root first."""

    syntax: Syntax
    ontology: Ontology | None
    rules: dict[str, GrammarRule] = field(default_factory=dict)
    word_rules: dict[frozenset[str], str] = field(default_factory=dict)

    def add(self, base: str, alternatives: Sequence[Seq], lexical: bool = False) -> str:
        name = _rule_name(base)
        if name in self.rules:
            raise ValueError(f"two grammar rules named {name!r}")
        self.rules[name] = GrammarRule(name, tuple(alternatives), lexical)
        return name

    # words

    def fresh(self, base: str) -> str:
        """`base`, numbered when taken (`sportActivity` and `sportactivity` are two categories)."""
        name, number = _rule_name(base), 1
        while name in self.rules:
            number += 1
            name = f"{_rule_name(base)}-{number}"
        return name

    def word_set(self, base: str, words: frozenset[str]) -> Ref:
        """One terminal per distinct word set, so equal lists (`name`, `class`) are shared."""
        if words not in self.word_rules:
            terms = sorted(to_term(w) for w in words)
            self.word_rules[words] = self.add(self.fresh(base), [(Text(t),) for t in terms], lexical=True)
        return Ref(self.word_rules[words])

    def union(self, words: frozenset[str], parts: list[tuple[str, frozenset[str]]], rest: str) -> Item:
        """`words` as the named subsets `parts` plus what they leave over (named `rest`)."""
        leftover = words.difference(*(p for _, p in parts))
        sets = [(name, p) for name, p in parts if p] + ([(rest, leftover)] if leftover else [])
        return one_of([(self.word_set(name, p),) for name, p in sets])

    def words(self, kind: Kind, category: str | None) -> Item:
        if kind is Kind.TEXT:
            return self.text()
        if self.ontology is None:
            return self.open_word()
        vocabulary = kind_words(kind, category, self.ontology)
        if kind is Kind.VALUE and category is not None:
            # A category admits its listed values and those no category claims: the second
            # list (~480 words) is one rule shared by every category.
            listed = self.ontology.categories[category] & vocabulary
            return self.union(vocabulary, [(f"values-{category}", listed)], "values-unlisted")
        if kind is Kind.VALUE:  # any attribute's value, or a class
            parts = [("values-any", self.ontology.vocabulary(kind, ANY_CATEGORY)),
                     ("class", self.ontology.vocabulary(Kind.CLASS))]
            return self.union(vocabulary, parts, "values-other")
        return self.word_set(kind.value, vocabulary)

    def open_word(self) -> Ref:
        """Any word: the grammar's `NAME` or `STRING`."""
        if "word" not in self.rules:
            assert self.syntax.grammar is not None, "a syntax with a decoding grammar has a grammar"
            terminals = _terminals(self.syntax.grammar)
            self.add("word", [(Ref(self.add(t, [_from_regex(terminals[t])], lexical=True)),)
                              for t in ("NAME", "STRING")])
        return Ref("word")

    def text(self) -> Ref:
        """Free text: a quoted string on one line, escaped as the printers escape it (what
        characters and how many is the checker's to judge)."""
        if "text" not in self.rules:
            plain = Chars((("\n", "\n"), ('"', '"'), ("\\", "\\")), negated=True)
            escaped = seq(Text("\\"), Chars((('"', '"'), ("\\", "\\"))))
            self.add("text", [seq(Text('"'), Repeat(Group(((plain,), escaped)), 1, None), Text('"'))],
                     lexical=True)
        return Ref("text")

    def literals(self, kinds: tuple[Kind, ...], category: str | None = None) -> list[Item]:
        """``, literal`` per kind; from an attribute on, per category when a value follows."""
        items: list[Item] = []
        for index, kind in enumerate(kinds):
            if kind is Kind.ATTR and Kind.VALUE in kinds[index + 1:] and self.ontology is not None:
                return [*items, Text(SEPARATOR), Ref(self.category_tail(kinds[index:]))]
            items += [Text(SEPARATOR), self.words(kind, category)]
        return items

    def category_tail(self, kinds: tuple[Kind, ...]) -> str:
        """``color, <colour>[, <colour>]`` for every category: values narrowed by their attribute."""
        assert self.ontology is not None
        name = _rule_name("-".join(k.value for k in kinds))
        if name not in self.rules:
            alternatives = [seq(Text(to_term(c)), *self.literals(kinds[1:], c))
                            for c in sorted(self.ontology.vocabulary(Kind.ATTR))]
            self.add(name, alternatives)
        return name

    # expressions: one copy of every typed rule per depth level, so nesting is bounded

    def call(self, sig: Signature, operands: list[Item], end: str = ")") -> Seq:
        separated = [item for operand in operands for item in (Text(SEPARATOR), operand)][1:]
        return seq(Text(f"{sig.name}("), *separated, *self.literals(sig.literals), Text(end))

    def typed(self, scope: int | None = None) -> Ref:
        """Per depth, the operations and one rule per type (plus variables in code-like).

        An operation at depth d takes operands of depth d - 1; a level where a type has no
        operation (``object-1``: `unique` needs a set below it) has no rule, and operations
        needing it wait a level.  The answer is a Bool or a Value of depth at most `MAX_DEPTH`.
        `scope`: in code-like, how many variables are defined (``var1`` to ``var<scope>``),
        admitted in every operand position; each scope has its own copy of the rules.
        """
        for sig in SIGNATURES.values():
            if not sig.operands and _operation(sig).name not in self.rules:  # a leaf: shared
                self.add(_operation(sig).name, [self.call(sig, [])])
        variable = self.variable(scope) if scope else None
        for depth in range(1, MAX_DEPTH + 1):
            for sig in SIGNATURES.values():
                operands = [_test(depth - 1, scope) if _connective(sig) else _expression(t, depth - 1, scope)
                            for t in sig.operands]
                if sig.operands and all(o.name in self.rules for o in operands):
                    self.add(_operation(sig, depth, scope).name, [self.call(sig, list(operands))])
            for type_ in Type:
                alternatives = [(ref,) for sig in SIGNATURES.values() if type_.accepts(sig.result)
                                if (ref := _operation(sig, depth, scope)).name in self.rules]
                if variable is not None and type_ in _OPERAND_TYPES:
                    alternatives.append((variable,))
                if alternatives:
                    self.add(_expression(type_, depth, scope).name, alternatives)
                tests = [a for a in alternatives if a[0].name not in _connectives(depth, scope)]
                if type_ is Type.BOOL and tests:
                    self.add(_test(depth, scope).name, tests)
        return Ref(self.add(_scoped("answer", scope),
                            [(_expression(t, MAX_DEPTH, scope),) for t in Type if t.is_answer]))

    def variable(self, scope: int) -> Ref:
        """``var1`` to ``var<scope>``: the variables defined so far."""
        return Ref(self.add(f"variable-{scope}", [(Text(f"var{k}"),) for k in range(1, scope + 1)],
                            lexical=True))

    # programs

    def expression(self) -> Seq:
        return (self.typed(),)

    def assignments(self) -> Seq:
        """``block-k``: what follows k assignments, the answer or assignment k + 1."""
        for scope in range(MAX_VARIABLES + 1):
            alternatives: list[Seq] = [(self.typed(scope),)]
            if scope < MAX_VARIABLES:
                shared = self.add(f"shared-{scope}", [
                    (_operation(sig, MAX_DEPTH, scope),) for sig in SIGNATURES.values()
                    if sig.result in _OPERAND_TYPES])
                alternatives.append((Text(f"var{scope + 1} = "), Ref(shared), Text("\n"),
                                     Ref(f"block-{scope + 1}")))
            self.add(f"block-{scope}", alternatives)
        return (Ref("block-0"),)

    def facts(self) -> Seq:
        """``steps-i``: fact i, then ``end(i).`` or ``steps-(i+1)``; fact i refers to ``ref-i``."""
        for step in range(MAX_STEPS):
            end: Seq = (Text(f"{END}({step})."),)
            rest = end if step == MAX_STEPS - 1 else (Group(((Ref(f"steps-{step + 1}"),), end)),)
            self.add(f"steps-{step}", [(Ref(f"fact-{step}"), Text("\n"), *rest)])
            refs: list[Item] = [Ref(self.add(f"ref-{step}", [(Text(str(s)),) for s in range(step)],
                                             lexical=True))] if step else []
            self.add(f"fact-{step}", [self.call(sig, [Text(str(step)), *refs * len(sig.operands)], ").")
                                      for sig in SIGNATURES.values() if refs or not sig.operands])
        return (Ref("steps-0"),)

    def build(self) -> dict[str, GrammarRule]:
        assert self.syntax.decoding is not None
        layouts = {Decoding.FACTS: self.facts, Decoding.EXPRESSION: self.expression,
                   Decoding.ASSIGNMENTS: self.assignments}
        return {"root": GrammarRule("root", (layouts[self.syntax.decoding](),)), **self.rules}


#: The types an operand can have: what a code-like variable may stand for.
_OPERAND_TYPES = frozenset(t for sig in SIGNATURES.values() for t in sig.operands)


def _rule_name(base: str) -> str:
    """A name both formats accept: lower-case words joined by dashes (Lark gets underscores)."""
    return re.sub(r"[^a-z0-9]+", "-", base.lower()).strip("-")


def _scoped(name: str, scope: int | None) -> str:
    """A typed rule's name in a code-like scope (``objects-3-v2``: var1 and var2 defined)."""
    return _rule_name(name if scope is None else f"{name}-v{scope}")


def _expression(type_: Type, depth: int, scope: int | None = None) -> Ref:
    """The rule for expressions of a type nesting at most `depth` operations (``objects-3``)."""
    return Ref(_scoped(f"{type_.value}-{depth}", scope))


def _connective(sig: Signature) -> bool:
    """`and`, `or`: truth values from truth values.  Their operands are tests, never another
    connective: none of the 3,091 real GQA programs nests them, and a small model that may
    loops ``and(and(and(...``."""
    return sig.result is Type.BOOL and bool(sig.operands) and all(t is Type.BOOL for t in sig.operands)


def _connectives(depth: int, scope: int | None) -> set[str]:
    return {_operation(sig, depth, scope).name for sig in SIGNATURES.values() if _connective(sig)}


def _test(depth: int, scope: int | None = None) -> Ref:
    """The rule for a connective's operand: a Bool expression that is not itself a connective."""
    return Ref(_scoped(f"test-{depth}", scope))


def _operation(sig: Signature, depth: int = 0, scope: int | None = None) -> Ref:
    """The rule for an operation at a depth (``op-select-3``); leaves have one (``op-scene``)."""
    return Ref(_scoped(f"op-{sig.name}-{depth}", scope) if sig.operands else _rule_name(f"op-{sig.name}"))


# --- the vocabulary-free words: the grammar's own terminals, converted ---------------------------

@cache
def _terminals(grammar: Grammar) -> dict[str, str]:
    """The regular expressions of a grammar's terminals, as Lark reads them."""
    return {t.name: t.pattern.to_regexp() for t in fast_parser(grammar).terminals}


def _from_regex(pattern: str) -> Seq:
    """A regular expression as a model sequence, through Python's own regex parser.

    Covers what word terminals use: literals, classes, ``.``, groups, ``|`` and repetition.
    """
    return _from_parsed(sre_parser.parse(pattern))


def _from_parsed(parsed: Any) -> Seq:
    return seq(*(_regex_item(op, av) for op, av in parsed))


def _regex_item(op: Any, av: Any) -> Item:
    c = sre_constants
    if op is c.LITERAL:
        return Text(chr(av))
    if op is c.ANY:  # `.` is anything but a newline
        return Chars((("\n", "\n"),), negated=True)
    if op is c.IN:
        negated = bool(av) and av[0][0] is c.NEGATE
        if any(o not in (c.LITERAL, c.RANGE) for o, _ in av[negated:]):
            raise ValueError(f"unsupported character class in {av}")
        ranges = [(chr(v), chr(v)) if o is c.LITERAL else (chr(v[0]), chr(v[1]))
                  for o, v in av[negated:]]
        return Chars(tuple(ranges), negated)
    if op is c.MAX_REPEAT:
        low, high, body = av
        return Repeat(one_of([_from_parsed(body)]), low, None if high is c.MAXREPEAT else high)
    if op is c.SUBPATTERN:
        return one_of([_from_parsed(av[3])])
    if op is c.BRANCH:
        return Group(tuple(_from_parsed(branch) for branch in av[1]))
    raise ValueError(f"unsupported regular expression construct {op}")


# --- trie factoring (GBNF) ---------------------------------------------------------------------

def trie(words: list[str]) -> tuple[Seq, ...]:
    """Alternatives over `words` with one branch per first character and shared prefixes."""
    alternatives: list[Seq] = []
    for _, grouped in groupby(sorted(words), key=lambda w: w[0]):
        group = list(grouped)  # sorted: its first and last word bound the common prefix
        first, last = group[0], group[-1]
        prefix = first[:next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
                             min(len(first), len(last)))]
        tails = [w[len(prefix):] for w in group if w != prefix]
        if not tails:
            alternatives.append((Text(prefix),))
            continue
        rest = one_of(list(trie(tails)))
        alternatives.append((Text(prefix), Repeat(rest, 0, 1) if prefix in group else rest))
    return tuple(alternatives)


def _factored(rule: GrammarRule) -> GrammarRule:
    """A word list as a trie; other rules unchanged."""
    texts = [alt[0].text for alt in rule.alternatives if len(alt) == 1 and isinstance(alt[0], Text)]
    if not rule.lexical or len(texts) != len(rule.alternatives):
        return rule
    return GrammarRule(rule.name, trie(texts), rule.lexical)


# --- printing ----------------------------------------------------------------------------------

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n"}


def _quote(text: str) -> str:
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in text) + '"'


def _class_char(ch: str) -> str:
    return {"\n": "\\n", "\\": "\\\\", "]": "\\]", "^": "\\^", "-": "\\-", "/": "\\/"}.get(ch, ch)


def _chars(item: Chars) -> str:
    body = "".join(_class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}"
                   for lo, hi in item.ranges)
    return f"[{'^' if item.negated else ''}{body}]"


class _Printer(ABC):
    """Prints the model; the two formats differ in names, character classes and repetition."""

    def __init__(self, rules: dict[str, GrammarRule]) -> None:
        self.rules = rules

    @abstractmethod
    def name(self, name: str) -> str: ...

    @abstractmethod
    def chars(self, item: Chars) -> str: ...

    @abstractmethod
    def bounds(self, low: int, high: int | None) -> str: ...

    def item(self, item: Item) -> str:
        if isinstance(item, Text):
            return _quote(item.text)
        if isinstance(item, Ref):
            return self.name(item.name)
        if isinstance(item, Chars):
            return self.chars(item)
        if isinstance(item, Group):
            return f"({self.alternatives(item.alternatives)})"
        return self.item(item.item) + self.bounds(item.min, item.max)

    def sequence(self, items: Seq) -> str:
        return " ".join(self.item(i) for i in items)

    def alternatives(self, alternatives: tuple[Seq, ...]) -> str:
        return " | ".join(self.sequence(s) for s in alternatives)

    def print(self, separator: str) -> str:
        return "\n".join(f"{self.name(r.name)}{separator}{self.alternatives(r.alternatives)}"
                         for r in self.rules.values()) + "\n"


_SHORT_BOUNDS = {(0, None): "*", (1, None): "+", (0, 1): "?"}


class _Gbnf(_Printer):
    def name(self, name: str) -> str:
        return name

    def chars(self, item: Chars) -> str:
        return _chars(item)

    def bounds(self, low: int, high: int | None) -> str:
        return _SHORT_BOUNDS.get((low, high)) or f"{{{low},{'' if high is None else high}}}"


class _Lark(_Printer):
    def name(self, name: str) -> str:
        if name == "root":
            return "start"
        underscored = name.replace("-", "_")
        return underscored.upper() if self.rules[name].lexical else underscored

    def chars(self, item: Chars) -> str:
        return f"/{_chars(item)}/"

    def bounds(self, low: int, high: int | None) -> str:
        if (low, high) in _SHORT_BOUNDS:
            return _SHORT_BOUNDS[(low, high)]
        if high is None:
            raise ValueError(f"Lark cannot repeat at least {low} times")
        return f" ~ {low}..{high}"


def model(syntax: str, vocabulary: bool = True) -> dict[str, GrammarRule]:
    """The grammar model of a syntax: rules by name, the start rule `root` first."""
    if syntax not in GRAMMAR_SYNTAXES:
        raise ValueError(f"no decoding grammar for {syntax!r}: one of {', '.join(GRAMMAR_SYNTAXES)}")
    return _ModelBuilder(SYNTAXES[syntax], load() if vocabulary else None).build()


def generate(syntax: str, format: str, vocabulary: bool = True, *, factor: bool = True) -> str:
    """The decoding grammar of `syntax` in `format` (``gbnf`` or ``lark``).

    `vocabulary`: words from the GQA ontology (else any ASP constant or quoted string);
    `factor`: word lists as tries in GBNF (off only to measure what factoring saves).

    >>> print(generate("nested", "gbnf").splitlines()[0])
    root ::= answer
    """
    rules = model(syntax, vocabulary)
    if format == "gbnf":
        factored = {n: _factored(r) if factor else r for n, r in rules.items()}
        return _Gbnf(factored).print(" ::= ")
    if format == "lark":
        return _Lark(rules).print(": ")
    raise ValueError(f"unknown grammar format {format!r}: one of {', '.join(FORMATS)}")
