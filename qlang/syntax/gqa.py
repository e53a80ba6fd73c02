"""GQA's native semantic programs: the JSON list of steps and its `semanticStr` form.

GQA's operations are coarser than the IR's, so reading one is the lowering of seed thesis §4.3:
`unique` goes in front of operations that need one object, ``filter A: not(V)`` becomes
`negate`, ``relate: _,R,d`` becomes `relate_any`, ``relate: C,same A,d`` `relate_attr`,
``verify rel``/``choose rel`` `verify_rel`/`choose_rel`, and ``same``/``different`` with one or
two dependencies `all_*`/`two_*`.  Category-less ``verify``/``choose``/``filter`` use the
category `any`; ``same: type`` compares names.  Object ids in parentheses are annotations of the
scene graph, not program semantics, and are dropped.  Printing inverts the mapping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, NamedTuple

from lark import Token

from qlang import jsontext
from qlang.errors import Diagnostic, ParseError, QlangError, Source, Span, UnsupportedOperation, error, shown
from qlang.frozen import by_fields
from qlang.ir import MAX_DEPTH, Lit, Locate, Node, op
from qlang.ontology import ANY_CATEGORY
from qlang.signatures import Type
from qlang.syntax import parsing

_DIRECTIONS = {"s": "subject", "o": "object"}
_OBJECT_IDS = re.compile(r"\s*\((?:-|[0-9, ]*)\)\s*$")
_NEGATED = re.compile(r"not\((.*)\)$")


#: Where a step's operation and argument texts start: (line, column) each.
WordsAt = tuple[tuple[int, int], tuple[int, int]]


class GqaStep(NamedTuple):
    """A step as written.  (A tuple: a batch reads one per step of every program.)"""

    operation: str
    argument: str
    dependencies: tuple[int, ...]
    #: where the step is written: the operation's name in a semanticStr, the step's object in JSON
    span: Span | None = None
    #: where the operation's and the argument's texts start (line, column), for locating words;
    #: found only when a word is located, where finding it means searching the text (JSON)
    words_at: WordsAt | Callable[[], WordsAt | None] | None = None

    def to_json(self) -> dict[str, object]:
        return {"operation": self.operation, "dependencies": list(self.dependencies),
                "argument": self.argument}

    def __str__(self) -> str:
        deps = f" [{', '.join(map(str, self.dependencies))}]" if self.dependencies else ""
        return f"{self.operation}: {self.argument}{deps}".replace(":  [", ": [")


# ----- reading ---------------------------------------------------------------------------------

class _StrBuilder(parsing.Builder):
    def step(self, children: list[Any]) -> GqaStep:
        operation, *rest = children
        argument = next((c for c in rest if c is not None and not isinstance(c, tuple)), None)
        deps = next((c for c in rest if isinstance(c, tuple)), ())
        at = (operation.line, operation.column)
        words = (at, at if argument is None else (argument.line, argument.column))
        return GqaStep(operation.value.strip(), "" if argument is None else argument.value.strip(), deps,
                       parsing.span(operation), words)

    def deps(self, children: list[Token]) -> tuple[int, ...]:
        return tuple(map(parsing.step_number, children))

    def start(self, steps: list[GqaStep]) -> list[GqaStep]:
        return steps


#: The semanticStr form's grammar (the JSON form is read as JSON).
GRAMMAR = parsing.Grammar("gqa", _StrBuilder)


def parse_steps(source: Source) -> list[GqaStep]:
    """Steps from either GQA form: a JSON list (or question record) or a semanticStr."""
    text = source.text.lstrip()
    if not text.startswith(("[", "{")):
        steps: list[GqaStep] = GRAMMAR.parse(source)
        return steps
    try:
        data = jsontext.loads(source.text)
    except json.JSONDecodeError as exc:
        raise error(ParseError, "syntax", f"invalid JSON: {exc.msg}",
                    Span(exc.lineno, exc.colno, exc.lineno, exc.colno + 1), source) from None
    return steps_from_json(data, source)


def steps_from_json(data: object, source: Source | None = None) -> list[GqaStep]:
    if isinstance(data, dict) and "semantic" in data:
        data = data["semantic"]
    objects = _objects(source.text) if source else []
    if not isinstance(data, list) or not data:
        raise error(ParseError, "syntax", "a GQA program is a non-empty list of steps", None, source)
    steps = []
    for index, item in enumerate(data):
        span, text = objects[index] if index < len(objects) else (None, "")
        words_at = None if span is None else partial(_json_words_at, span, text, item)
        if not (isinstance(item, dict) and isinstance(item.get("operation"), str)
                and isinstance(item.get("argument", ""), str)
                and isinstance(item.get("dependencies", []), list)
                and all(type(d) is int for d in item.get("dependencies", []))):
            raise error(ParseError, "syntax", f"step {index} must be an object with a string "
                        "'operation', a string 'argument' and integer 'dependencies'", span, source)
        steps.append(_new(GqaStep, (item["operation"].strip(), item.get("argument", "").strip(),
                                    tuple(item.get("dependencies", [])), span, words_at)))
    return steps


_new = tuple.__new__


def _json_words_at(span: Span, text: str, item: dict[str, Any]) -> WordsAt | None:
    """Where a JSON step's operation and argument strings start (`text`: the step's object,
    written from `span`), past the spaces the reader strips; None where either is not found."""
    found = []
    for key in ("operation", "argument"):
        value = re.search(rf'"{key}"\s*:\s*"', text)
        if value is None:
            return None
        at = value.end() + len(item[key]) - len(item[key].lstrip())
        found.append(_span_in(text, at, at, span.line, span.column)[:2])
    return found[0], found[1]


def _objects(text: str) -> list[tuple[Span, str]]:
    """Where each step object of a JSON list starts, and its text up to the next one's, for
    located errors."""
    spans, starts, depth, in_string, escaped, line, column = [], [], 0, False, False, 1, 0
    for offset, char in enumerate(text):
        column += 1
        if in_string:
            escaped, in_string = (not escaped and char == "\\"), in_string and (escaped or char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if char == "{" and depth == 2:
                spans.append(Span(line, column, line, column + 1))
                starts.append(offset)
        elif char in "]}":
            depth -= 1
        if char == "\n":
            line, column = line + 1, 0
    ends = [*starts[1:], len(text)] if starts else []
    return [(span, text[start:end]) for span, start, end in zip(spans, starts, ends, strict=True)]


def parse(source: Source) -> Node:
    return to_ir(parse_steps(source), source)


def to_ir(steps: list[GqaStep], source: Source | None = None) -> Node:
    nodes: list[Node] = []
    for index, step in enumerate(steps):
        if any(d < 0 or d >= index for d in step.dependencies):
            raise error(ParseError, "reference", f"step {index} ({step.operation}) depends on a step "
                        f"that does not come before it: {list(step.dependencies)}", step.span, source)
        call = read_step(step, index, source)
        if call.beyond_ir is not None:
            raise _located(call.beyond_ir, step, index, source)
        nodes.append(_node(call, [nodes[d] for d in step.dependencies], _word_spans(step, call.literals)))
        if nodes[-1].depth > MAX_DEPTH:
            raise error(ParseError, "syntax", f"step {index} ({step.operation}): the program nests "
                        f"deeper than {MAX_DEPTH} operations", step.span, source)
    used = {d for step in steps for d in step.dependencies}
    for index, step in enumerate(steps[:-1]):
        if index not in used:
            raise error(ParseError, "reference", f"step {index} ({step.operation}) is never used: "
                        "every step must lead to the answer, the last step", step.span, source)
    return nodes[-1]


def _node(call: StepCall, deps: list[Node], spans: Sequence[Span | Locate | None]) -> Node:
    """The IR of a step whose dependencies are `deps`, its words written at `spans`."""
    operands = [_SCENE if o.dependency < 0 else _one(deps[o.dependency]) if o.one else deps[o.dependency]
                for o in call.operands]
    node = Node(call.operation, (*operands, *map(Lit, call.literals, spans)))
    return Node("negate", (node, operands[0])) if call.negated else node


def _word_spans(step: GqaStep, words: tuple[str, ...]) -> Sequence[Span | Locate | None]:
    """Where each of a step's words is written: searched for when asked (`_WordSpans`) where
    the step knows where its texts start, else the step's own place (none for a bare list)."""
    if step.words_at is None:
        return [step.span] * len(words)
    return _WordSpans(step, words).locators()


class _WordSpans:
    """Where each of a step's words is written, so that an error about one points at it: found
    for all of the step's words at once, the first time one is asked for (`Lit.span`).

    A step is searched in order: a word first in the operation's category (``filter color``),
    then in the argument, each as a whole word after the last one found there.  A word GQA
    spells otherwise (``s`` for subject, ``type`` for name) is located at the step; so is every
    word of a JSON step whose strings hold escapes before it (the search counts characters as
    read)."""

    __slots__ = ("_spans", "step", "words")

    def __init__(self, step: GqaStep, words: tuple[str, ...]) -> None:
        self.step, self.words = step, words
        self._spans: list[Span | None] | None = None

    def locators(self) -> list[Locate]:
        return [partial(self.span, index) for index in range(len(self.words))]

    def span(self, index: int) -> Span | None:
        if self._spans is None:
            self._spans = self._found()
        return self._spans[index]

    def _found(self) -> list[Span | None]:
        step, words_at = self.step, self.step.words_at
        at = words_at() if callable(words_at) else words_at
        if at is None:
            return [step.span] * len(self.words)
        operation, argument = at
        regions = [_Region(step.operation, operation, len(step.operation.split(" ")[0])),
                   _Region(step.argument, argument, 0)]
        return [next((s for s in (r.find(word) for r in regions) if s is not None), step.span)
                for word in self.words]


@dataclass(slots=True)
class _Region:
    """Text written from `at` (line, column), searched for words from `start` on."""

    text: str
    at: tuple[int, int]
    start: int

    def find(self, word: str) -> Span | None:
        match = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", self.text[self.start:]) if word else None
        if match is None:
            return None
        start, self.start = self.start + match.start(), self.start + match.end()
        return _span_in(self.text, start, self.start, *self.at)


def _span_in(text: str, start: int, end: int, line: int, column: int) -> Span:
    """The span of ``text[start:end]`` where `text` starts at `line` and `column`."""
    def at(offset: int) -> tuple[int, int]:
        newlines = text.count("\n", 0, offset)
        if not newlines:
            return line, column + offset
        return line + newlines, offset - text.rindex("\n", 0, offset)
    return Span(*at(start), *at(end))


_SCENE = op("scene")


def _one(node: Node) -> Node:
    signature = node.signature
    return node if signature and signature.result is Type.OBJECT else Node("unique", (node,))


# ----- what a step means: one table, read by `to_ir` and by GQA's own interpreter -------------

class Operand(NamedTuple):
    """Where an operand of a step's operation comes from: the value of the step's dependency
    `dependency` (an index into its dependencies; -1: the whole scene), or with `one` the one
    object chosen from it (the IR's `unique`)."""

    dependency: int
    one: bool = False


SCENE = Operand(-1)
_FIRST, _SECOND = Operand(0), Operand(1)
_FIRST_ONE, _SECOND_ONE = Operand(0, one=True), Operand(1, one=True)


class StepCall(NamedTuple):
    """A GQA step as the IR operation it stands for, over its dependencies: what `to_ir` builds
    and what `qlang.interpret.gqa_steps` runs, GQA's argument forms read once for both.  (A
    tuple: one is made per step read.)"""

    operation: str
    operands: tuple[Operand, ...]
    literals: tuple[str, ...] = ()
    #: filter's ``not(V)``: the IR's ``negate(<the filter>, <its input>)``
    negated: bool = False
    #: why the IR cannot say it, though GQA's steps can run it (a relation to any class)
    beyond_ir: _Unsupported | _Malformed | None = None


class _Unsupported(Exception):
    pass


class _Malformed(Exception):
    pass


def read_step(step: GqaStep, index: int, source: Source | None = None) -> StepCall:
    """What step `index` means; a located `ParseError` where its dependencies or argument do not
    fit its operation, `UnsupportedOperation` where the operation has no IR counterpart."""
    try:
        return _meaning(step.operation, step.argument, len(step.dependencies))
    except (_Unsupported, _Malformed) as exc:
        raise _located(exc, step, index, source) from None


@lru_cache(maxsize=1 << 14)
def _meaning(operation: str, argument: str, deps: int) -> StepCall:
    """A step's meaning, by its operation, argument and number of dependencies (steps repeat
    across programs, two in three of the real ones: each distinct one is read once)."""
    head, _, category = operation.partition(" ")
    reader = _READERS.get(head)
    if reader is None:
        raise _Unsupported(f"GQA operation {shown(operation)} has no IR counterpart")
    return reader(category.strip(), argument, deps)


def _located(exc: _Unsupported | _Malformed, step: GqaStep, index: int, source: Source | None) -> QlangError:
    if isinstance(exc, _Unsupported):
        return error(UnsupportedOperation, "unsupported", f"step {index}: {exc}", step.span, source)
    return error(ParseError, "syntax", f"step {index} ({step.operation}): {exc}", step.span, source)


def _need(deps: int, count: int) -> None:
    if deps != count:
        raise _Malformed(f"expects {count} dependencies, got {deps}")


def _relation_parts(argument: str, relations: int) -> tuple[str, list[str], str]:
    """``class,rel[|rel],s`` -> (class, rels, direction)."""
    parts = [p.strip() for p in _OBJECT_IDS.sub("", argument).split(",")]
    if len(parts) != 3 or parts[2] not in _DIRECTIONS:
        raise _Malformed(f"expected 'class,relation,s|o', got {shown(argument)}")
    rels = [r.strip() for r in parts[1].split("|")]
    if len(rels) != relations or not all(rels) or not parts[0]:
        raise _Malformed(f"expected {relations} relation(s) in {shown(argument)}")
    return parts[0], rels, _DIRECTIONS[parts[2]]


def _options(argument: str) -> list[str]:
    options = [o.strip() for o in argument.split("|")]
    if len(options) != 2 or not all(options):
        raise _Malformed(f"expected two options 'a|b', got {shown(argument)}")
    return options


# Each GQA operation's reader: its category (after the operation's name), its argument and its
# number of dependencies.

def _select(category: str, argument: str, deps: int) -> StepCall:
    _need(deps, 0)
    name = _OBJECT_IDS.sub("", argument).strip()
    if name == "scene":
        return StepCall("scene", ())
    return StepCall("select", (SCENE,), (name,),
                    beyond_ir=None if name else _Malformed("select needs a class"))


def _relate(category: str, argument: str, deps: int) -> StepCall:
    _need(deps, 1)
    cls, (rel,), direction = _relation_parts(argument, 1)
    if rel.startswith("same "):
        return StepCall("relate_attr", (_FIRST,), (cls, rel.removeprefix("same ").strip()))
    if cls == "_":
        return StepCall("relate_any", (_FIRST,), (rel, direction))
    return StepCall("relate", (_FIRST,), (cls, rel, direction))


def _filter(category: str, argument: str, deps: int) -> StepCall:
    _need(deps, 1)
    negated = _NEGATED.match(argument)
    value = (negated.group(1) if negated else argument).strip()
    if category:
        return StepCall("filter", (_FIRST,), (category, value), negated=bool(negated))
    return StepCall("filter_any", (_FIRST,), (value,), negated=bool(negated))


def _relation_test(head: str, argument: str, deps: int) -> StepCall:
    """``verify rel`` and ``choose rel``: one relation to verify, or two to choose from."""
    _need(deps, 1)
    cls, rels, direction = _relation_parts(argument, 1 if head == "verify" else 2)
    beyond = _Unsupported(f"'{head} rel' with any class ('_') has no IR operation") if cls == "_" else None
    return StepCall(f"{head}_rel", (_FIRST_ONE,), (cls, *rels, direction), beyond_ir=beyond)


def _verify(category: str, argument: str, deps: int) -> StepCall:
    if category == "rel":
        return _relation_test("verify", argument, deps)
    _need(deps, 1)
    return StepCall("verify_attr", (_FIRST_ONE,), (category or ANY_CATEGORY, argument))


def _choose(category: str, argument: str, deps: int) -> StepCall:
    if category == "rel":
        return _relation_test("choose", argument, deps)
    if deps == 2:
        raise _Unsupported(f"comparative 'choose {category}' between two objects has no sound "
                           "lowering (it needs knowledge beyond the scene graph)")
    _need(deps, 1)
    return StepCall("choose_attr", (_FIRST_ONE,), (category or ANY_CATEGORY, *_options(argument)))


def _query(category: str, argument: str, deps: int) -> StepCall:
    _need(deps, 1)
    if not argument:
        raise _Malformed("query needs an attribute category")
    return StepCall("query", (_FIRST_ONE,), (argument,))


def _exist(category: str, argument: str, deps: int) -> StepCall:
    _need(deps, 1)
    return StepCall("exist", (_FIRST,))


def _connective(head: str) -> Callable[[str, str, int], StepCall]:
    def read(category: str, argument: str, deps: int) -> StepCall:
        _need(deps, 2)
        return StepCall(head, (_FIRST, _SECOND))
    return read


def _comparison(head: str) -> Callable[[str, str, int], StepCall]:
    """``same``/``different``: of the objects of one dependency, or between two."""
    def read(category: str, argument: str, deps: int) -> StepCall:
        attribute = category or argument
        attribute = "name" if attribute in ("", "type") else attribute
        if deps == 1:
            return StepCall(f"all_{head}", (_FIRST,), (attribute,))
        _need(deps, 2)
        return StepCall(f"two_{head}", (_FIRST, _SECOND), (attribute,))
    return read


def _common(category: str, argument: str, deps: int) -> StepCall:
    _need(deps, 2)
    return StepCall("common", (_FIRST_ONE, _SECOND_ONE))


_READERS: dict[str, Callable[[str, str, int], StepCall]] = {
    "select": _select, "relate": _relate, "filter": _filter, "verify": _verify, "choose": _choose,
    "query": _query, "exist": _exist, "and": _connective("and"), "or": _connective("or"),
    "same": _comparison("same"), "different": _comparison("different"), "common": _common,
}


# ----- printing --------------------------------------------------------------------------------
#
# A GQA argument is free text with no escapes: the reader strips the spaces around each part,
# splits relations on ',' and '|', reads some words as operations of their own (`scene`, `_`,
# `same A`, `not(V)`, `type`) and drops object ids in parentheses; a semanticStr also ends an
# argument at '->', '[' or ']' and spells a category in letters and spaces alone.  So a word
# that would read back as another is refused, naming the word and the syntax: the ASP syntaxes
# quote any word.

@dataclass(frozen=True, slots=True)
class _Form:
    """What a GQA form cannot write in a word, beyond what GQA itself cannot."""

    syntax: str
    #: where an argument ends, so that no word may hold it
    ends: tuple[str, ...] = ()
    #: how a category must be spelt (None: as any word)
    category: re.Pattern[str] | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_fields(self)  # compiled, a frozen dataclass cannot unpickle field by field


_FORMS = {form.syntax: form for form in (
    _Form("gqa"),
    _Form("gqa-str", ("->", "[", "]"), re.compile(r"[A-Za-z][A-Za-z ]*")),
)}


def to_steps(root: Node, syntax: str = "gqa") -> list[GqaStep]:
    """The GQA steps of a program; `UnsupportedOperation` where GQA cannot say it, or where
    `syntax` (``gqa`` or ``gqa-str``) cannot write one of its words so that it reads back."""
    return _StepWriter(_FORMS[syntax]).write(root)


class _StepWriter:
    """Emits a node's GQA dependencies before the node itself, each once."""

    def __init__(self, form: _Form) -> None:
        self.form = form
        self.syntax = form.syntax
        self.steps: list[GqaStep] = []
        self.index: dict[Node, int] = {}

    def write(self, root: Node) -> list[GqaStep]:
        self.step(root)
        return self.steps

    def step(self, node: Node) -> int:
        if node not in self.index:
            self.index[node] = self.emit(node)
        return self.index[node]

    def add(self, operation: str, argument: str, *deps: Node) -> int:
        step = GqaStep(operation, argument, tuple(self.step(d) for d in deps))
        self.steps.append(step)
        return len(self.steps) - 1

    def word(self, node: Node, word: str, separators: str = "", means: str | None = None) -> str:
        """`word` as (a part of) `node`'s argument, split on `separators`, where it reads back as
        itself; `means`: what GQA reads it as instead, where it is a word of GQA's own."""
        why = means and f"GQA reads it as {means}"
        if not why and word != word.strip():
            why = "GQA strips the spaces around a word"
        why = why or ("GQA has no empty word" if not word else None)
        why = why or next((f"GQA splits the argument on {c!r}" for c in separators if c in word), None)
        if not why:
            why = next((f"a semanticStr argument ends at {end!r}" for end in self.form.ends if end in word),
                       None)
        if why:
            raise _unwritable(node, word, self.syntax, why)
        return word

    def category(self, node: Node, attribute: str, means: str | None = None) -> str:
        """The attribute category as written after an operation's name."""
        self.word(node, attribute, means=means)
        if self.form.category is not None and not self.form.category.fullmatch(attribute):
            raise _unwritable(node, attribute, self.syntax, "a semanticStr operation names its category "
                              "in letters and spaces alone")
        return f" {attribute}"

    def relation(self, node: Node, cls: str, rels: Sequence[str], direction: str) -> str:
        """A relation's argument ``class,rel[|rel],s|o`` (the class ``_``: any, for relate_any)."""
        self.word(node, cls, ",", "any class" if cls == "_" and node.op != "relate_any" else None)
        for rel in rels:
            self.word(node, rel, ",|", "relate_attr's 'same <attribute>'"
                      if node.op.startswith("relate") and rel.startswith("same ") else None)
        return f"{cls},{'|'.join(rels)},{direction[0]}"

    def emit(self, node: Node) -> int:
        name, xs, lits = node.op, node.operands, node.literals
        signature = node.signature
        if signature is None or len(xs) != len(signature.operands) or len(lits) != len(signature.literals):
            raise error(UnsupportedOperation, "unsupported", f"{node.op}(...) is not a well-formed "
                        "operation", node.span)
        if name == "unique":
            return self.step(xs[0])
        if name == "scene":
            return self.add("select", "scene")
        if name == "select":
            if xs[0].op != "scene":
                raise _unprintable(node, "GQA selects only from the whole scene")
            means = "the whole scene" if lits[0] == "scene" else "object ids" if _OBJECT_IDS.search(lits[0]) \
                else None
            return self.add("select", self.word(node, lits[0], means=means))
        if name in ("filter", "filter_any"):
            negated = "negate's 'not(...)'" if _NEGATED.match(lits[-1]) else None
            category = self.category(node, lits[0]) if name == "filter" else ""
            return self.add(f"filter{category}", self.word(node, lits[-1], means=negated), *xs)
        if name == "negate":
            kept, base = xs
            if kept.op not in ("filter", "filter_any") or kept.operands[0] != base:
                raise _unprintable(node, "only negate(filter(x, ...), x), GQA's filter not(...), "
                                   "has a GQA form")
            category = self.category(node, kept.literals[0]) if kept.op == "filter" else ""
            return self.add(f"filter{category}", f"not({self.word(node, kept.literals[-1])})", base)
        if name in ("relate", "relate_any"):
            cls = lits[0] if name == "relate" else "_"
            return self.add("relate", self.relation(node, cls, [lits[-2]], lits[-1]), *xs)
        if name == "relate_attr":
            cls, attribute = self.word(node, lits[0], ","), self.word(node, lits[1], ",|")
            return self.add("relate", f"{cls},same {attribute},s", *xs)
        if name in ("verify_rel", "choose_rel"):
            argument = self.relation(node, lits[0], lits[1:-1], lits[-1])
            return self.add(f"{name.split('_')[0]} rel", argument, *xs)
        if name in ("verify_attr", "choose_attr"):
            rel = "the relation operation's 'rel'" if lits[0] == "rel" else None
            category = "" if lits[0] == ANY_CATEGORY else self.category(node, lits[0], rel)
            values = "|".join(self.word(node, v, "|" if name == "choose_attr" else "") for v in lits[1:])
            return self.add(name.split("_")[0] + category, values, *xs)
        if name == "query":
            return self.add("query", self.word(node, lits[0]), *xs)
        if name == "exist":
            return self.add("exist", "?", *xs)
        if name in ("and", "or", "common"):
            return self.add(name, "", *xs)
        if name.startswith(("all_", "two_")):
            head = name[4:]
            attribute = "type" if lits[0] == "name" else \
                self.word(node, lits[0], means="the attribute 'name'" if lits[0] == "type" else None)
            if name.startswith("all_"):
                return self.add(head, attribute, *xs)
            return self.add(f"{head}{self.category(node, attribute)}", "", *xs)
        raise _unprintable(node, "GQA has no such operation")


def _unprintable(node: Node, why: str) -> UnsupportedOperation:
    return UnsupportedOperation([Diagnostic("unsupported", f"GQA cannot express {node.op}: {why}",
                                            node.span)])


def _unwritable(node: Node, word: str, syntax: str, why: str) -> UnsupportedOperation:
    """The error of a word `syntax` cannot write, located at the word where it was read."""
    span = next((a.span for a in node.args if isinstance(a, Lit) and a.value == word and a.span), node.span)
    return UnsupportedOperation([Diagnostic(
        "unsupported", f"{syntax} cannot write the word {shown(word)} of {node.op} so that it reads back "
        f"({why}); the flat, nested and code syntaxes quote any word", span)])


def print_program(root: Node) -> str:
    """The JSON list form, one step per line."""
    steps = [json.dumps(s.to_json()) for s in to_steps(root, "gqa")]
    return "[\n  " + ",\n  ".join(steps) + "\n]"


def print_semantic_str(root: Node) -> str:
    return "->".join(str(s) for s in to_steps(root, "gqa-str"))
