"""Type and vocabulary checking: every problem of a parsed program, each at its location.

Checks, per node: the operation exists ("did you mean"), its arity, that operand positions hold
operations of the right type and literal positions hold words of the right kind, and that each
word is in the GQA vocabulary for its kind (values narrowed to the node's attribute category),
that a choice's alternatives differ, and that a symmetric operation's two operands do.  The root
must yield an answer.  Vocabulary problems become warnings with `open_vocabulary`.

The knowledge in use extends the vocabulary where an operation reads it (`Signature.knowledge`):
there a class or value may also be any word the knowledge knows (``verify_know(x, used_for,
drinking)``).  The knowledge is asked only about such a word outside the ontology, so that no
other program opens an index (the bundled base, unless another is given).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from qlang.errors import Diagnostic, Span, shown
from qlang.ir import Lit, Node, postorder
from qlang.ontology import Ontology, load, suggestions
from qlang.passes.vocabulary import EXTENDED, words
from qlang.signatures import CLOSED_KINDS, MAX_TEXT, SIGNATURES, Kind, Signature, Type

if TYPE_CHECKING:  # the knowledge store is opened only for a word outside the ontology
    from qlang.knowledge.graph import Knowledge

_KNOWN = {Kind.CLASS: "class", Kind.ATTR: "attribute category", Kind.VALUE: "attribute value",
          Kind.REL: "relation", Kind.KREL: "knowledge relation"}


#: Per operation, the types each operand may yield without a word said (None: a type unknown,
#: its operation already reported): the per-operand test is one membership in a tuple.
_FITTING = {name: tuple([(None, *[actual for actual in Type if expected.accepts(actual)])
                         for expected in signature.operands])
            for name, signature in SIGNATURES.items()}

#: The kind of the one error no grammar can rule out and the thesis's checks never made: a
#: symmetric operation of one operand twice (`_TypeChecker.distinct_operands`).
REPEATED = "operands"


@dataclass
class _TypeChecker:
    ontology: Ontology
    open_vocabulary: bool
    given: Knowledge | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    types: dict[Node, Type | None] = field(default_factory=dict)
    _knowledge: Knowledge | None = None
    #: each operation's literals' kinds and words (`_vocabularies`)
    vocabularies: dict[str, tuple[tuple[Kind, frozenset[str]], ...]] = field(init=False)

    def __post_init__(self) -> None:
        self.vocabularies = _vocabularies(self.ontology)

    def knows(self, word: str) -> bool:
        """Whether the knowledge in use knows `word` (opened on the first question)."""
        if self._knowledge is None:
            from qlang.knowledge import sources

            self._knowledge = self.given if self.given is not None else sources.knowledge([])
        return self._knowledge.knows(word)

    def report(self, kind: str, message: str, span: Span | None, hint: str | None = None,
               warning: bool = False) -> None:
        self.diagnostics.append(Diagnostic(kind, message, span, hint, warning))

    def node(self, node: Node) -> Type | None:
        signature = SIGNATURES.get(node.op)
        if signature is None:
            close = suggestions(node.op, frozenset(SIGNATURES))
            self.report("unknown-operation", f"unknown operation {shown(node.op)}", node.span,
                        _did_you_mean(close))
            return None
        args = node.args
        if len(args) != signature.arity:
            expected = ", ".join([t.value for t in signature.operands]
                                 + [k.value for k in signature.literals]) or "nothing"
            self.report("arity", f"{node.op} takes {signature.arity} argument(s) ({expected}), "
                        f"got {len(args)}", node.span)
        types, fitting, literals = self.types, _FITTING[node.op], self.vocabularies[node.op]
        category, operands = None, len(fitting)
        for position, arg in enumerate(args):  # past the arity: the arity's error alone
            if position < operands:
                if isinstance(arg, Lit) or types.get(arg) not in fitting[position]:
                    self.operand(node, position, arg, signature.operands[position])
            elif position < signature.arity:
                kind, known = literals[position - operands]
                if isinstance(arg, Lit):
                    if kind is Kind.VALUE:  # narrowed to the node's attribute category
                        known = self.ontology.vocabulary(kind, category)
                    if arg.value not in known:
                        self.literal(node, position, arg, kind, category, signature)
                    if kind is Kind.ATTR:
                        category = arg.value
                else:
                    self.literal(node, position, arg, kind, category, signature)
        if signature.alternatives:
            self.alternatives(node, signature)
        if signature.symmetric:
            self.distinct_operands(node, signature)
        return signature.result

    def alternatives(self, node: Node, signature: Signature) -> None:
        """A choice's alternatives must differ: "is the sky pink or pink?" asks nothing (no
        GQA program has one; a translator that writes one has lost a word of the question)."""
        seen: dict[str, int] = {}
        for position in (len(signature.operands) + i for i in signature.alternatives):
            arg = node.args[position] if position < len(node.args) else None
            if not isinstance(arg, Lit):
                continue
            if arg.value in seen:
                self.report("choice", f"{_where(node, position)} repeats argument {seen[arg.value] + 1}: "
                            f"a choice between {shown(arg.value)} and itself", arg.span or node.span,
                            "name two different alternatives")
            seen.setdefault(arg.value, position)

    def distinct_operands(self, node: Node, signature: Signature) -> None:
        """A symmetric operation's operands must differ: ``and(x, x)`` is ``x``, and
        ``two_same(x, x, color)`` always yes (no GQA program has one; a translator that writes
        one has lost half of the question)."""
        operands = node.operands
        if signature.symmetric and len(operands) == 2 and operands[0] == operands[1]:
            self.report(REPEATED, f"{_where(node, 1)} repeats argument 1: {node.op} of an operation "
                        "and itself asks nothing", operands[1].span or node.span,
                        "name two different operands")

    def operand(self, node: Node, position: int, arg: Node | Lit, expected: Type) -> None:
        if isinstance(arg, Lit):
            where = _where(node, position)
            self.report("type", f"{where} must be an operation yielding {expected.value}, "
                        f"not the word {shown(arg.value)}", arg.span or node.span)
            return
        actual = self.types.get(arg)
        if actual is not None and not expected.accepts(actual):
            hint = "wrap it in unique(...)" if expected is Type.OBJECT and actual is Type.OBJECTS else None
            self.report("type", f"{_where(node, position)} must yield {expected.value}, but {arg.op} yields "
                        f"{actual.value}", arg.span or node.span, hint)

    def literal(self, node: Node, position: int, arg: Node | Lit, kind: Kind,
                category: str | None, signature: Signature) -> None:
        if isinstance(arg, Node):
            self.report("type", f"{_where(node, position)} must be a {kind.value} word, not an operation",
                        arg.span or node.span)
            return
        if kind is Kind.TEXT:
            self.text(node, position, arg)
            return
        vocabulary = words(kind, category, self.ontology)
        extended = signature.knowledge and kind in EXTENDED
        if arg.value in vocabulary or (extended and arg.value.isprintable() and self.knows(arg.value)):
            return
        where = _where(node, position)
        if not arg.value.strip() or not arg.value.isprintable():
            self.report("literal", f"{where} must be a non-empty word of printable characters, "
                        f"not {shown(arg.value)}", arg.span or node.span)
            return
        if kind in CLOSED_KINDS:
            self.report("literal", f"{where} must be one of {', '.join(CLOSED_KINDS[kind])}, "
                        f"not {shown(arg.value)}", arg.span or node.span)
            return
        known = f"{category} value" if kind is Kind.VALUE and category in self.ontology.categories \
            else _KNOWN[kind]
        nor = ", nor a word of the knowledge in use" if extended else ""
        self.report("vocabulary", f"{shown(arg.value)} is not a known {known}{nor}", arg.span or node.span,
                    _did_you_mean(suggestions(arg.value, vocabulary)), self.open_vocabulary)

    def text(self, node: Node, position: int, arg: Lit) -> None:
        """Free text is any printable text within bounds: a query for documents, never a word
        of a vocabulary (it reaches ASP only quoted, `qlang.asp_names.to_literal`)."""
        where, span = _where(node, position), arg.span or node.span
        if not arg.value.strip() or not arg.value.isprintable():
            self.report("literal", f"{where} must be non-empty text of printable characters (no line "
                        f"breaks), not {shown(arg.value)}", span)
        elif len(arg.value) > MAX_TEXT:
            self.report("literal", f"{where} must be text of at most {MAX_TEXT} characters, not "
                        f"{len(arg.value):,}", span, "ask about a phrase, not a whole document")


@lru_cache(maxsize=8)
def _vocabularies(ontology: Ontology) -> dict[str, tuple[tuple[Kind, frozenset[str]], ...]]:
    """Each operation's literals' kinds and words in `ontology`, looked up once instead of per
    literal (a value's are narrowed per node; free text has none: `_TypeChecker.literal`)."""
    return {name: tuple([(kind, words(kind, None, ontology)) for kind in signature.literals])
            for name, signature in SIGNATURES.items()}


def _where(node: Node, position: int) -> str:
    return f"argument {position + 1} of {node.op}"


def _did_you_mean(words: list[str]) -> str | None:
    return f"did you mean {' or '.join(repr(w) for w in words)}?" if words else None


def check(root: Node, *, open_vocabulary: bool = False, ontology: Ontology | None = None,
          knowledge: Knowledge | None = None) -> list[Diagnostic]:
    """All diagnostics of a program, errors and warnings, in source order of discovery;
    `knowledge`: the knowledge in use (the bundled base when not given; module docstring)."""
    checker = _TypeChecker(ontology or load(), open_vocabulary, knowledge)
    for node in postorder(root):
        checker.types[node] = checker.node(node)
    result = checker.types[root]
    if result is not None and not result.is_answer:
        checker.report("root", f"the program must end in an answer (Bool or Value), but {root.op} "
                       f"yields {result.value}", root.span,
                       "add query(...), exist(...) or another answering operation")
    return checker.diagnostics
