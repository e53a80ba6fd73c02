"""Which prefix tokens may come next: the typed language as a pushdown automaton.

The state is a stack of open slots.  The first slot is the program's answer (an operation
yielding Bool or Value); choosing an operation for a slot pushes its operand slots (typed)
and its literal slots (each of a kind, a value narrowed by the attribute category written
just before it, as the checker narrows it; a choice's second alternative other than its first,
as the checker requires).  Where a knowledge operation takes a class or a
value, which any word the knowledge knows may be, the slot is *open*: the search also offers
the question's own words there (`takes_question_words`).  Where a text operation takes free
text, the slot admits the question itself (`QUESTION`) and whatever the question offers to copy
(`takes_question_text`).  When the stack is empty only the
end token may follow.  A length budget keeps every path finite: an operation is allowed only
if the shortest program completing it, and every slot still open, fits in `max_length`
tokens, so decoding always ends in a complete program even from an untrained model.

Everything is derived from `SIGNATURES` and the ontology, like the LLM's decoding grammar, so
what the automaton admits is exactly what the checker accepts (tests/test_small.py walks it at
random and checks every program it produces).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from qlang.ontology import Ontology, load
from qlang.passes.vocabulary import EXTENDED, words
from qlang.signatures import SIGNATURES, Kind, Signature, Type
from qlang.small.states import States
from qlang.small.tokens import EOS, QUESTION, Vocabulary, op_token

#: a slot: an operand of a type, the root (`None`: any answer), or a literal (open, text or not) of
#: a kind, whether it is narrowed by the category written before it, and whether it must differ
#: from the literal written just before it (a choice's second alternative)
Slot = tuple[str, Type | Kind | None, bool, bool]
_OPERAND, _LITERAL, _OPEN, _TEXT = "operand", "literal", "open literal", "text literal"
_ROOT: Slot = (_OPERAND, None, False, False)


@dataclass(frozen=True, slots=True)
class State:
    stack: tuple[Slot, ...]
    #: the attribute category most recently written (narrows the values that follow it)
    category: str | None
    length: int
    #: the literal token written last, if the last token was a literal
    previous: int | None = None

    @property
    def done(self) -> bool:
        return not self.stack


class Automaton:
    def __init__(self, vocabulary: Vocabulary, max_length: int = 48,
                 ontology: Ontology | None = None) -> None:
        self.vocabulary = vocabulary
        self.max_length = max_length
        self.ontology = ontology or load()
        self.eos = vocabulary.id(EOS)
        self._allowed: dict[tuple[Slot, str | None, int, int | None], list[int]] = {}

    def start(self) -> State:
        return State((_ROOT,), None, 0)

    @cached_property
    def states(self) -> States:
        """The states a search reaches, numbered, with their masks (kept as long as this is)."""
        return States(self)

    def allowed(self, state: State) -> list[int]:
        """The token ids that may follow (only the end token once the program is complete)."""
        if state.done:
            return [self.eos]
        slot = state.stack[-1]
        spare = self.max_length - state.length - sum(self._shortest[s] for s in state.stack[:-1])
        category = state.category if slot[2] else None
        other_than = state.previous if slot[3] else None
        key = (slot, category, min(spare, self._longest_shortest), other_than)
        if key not in self._allowed:
            self._allowed[key] = [t for t in self._compute(slot, category, key[2]) if t != other_than]
        return self._allowed[key]

    def takes_question_words(self, state: State) -> bool:
        """Whether the next token is a literal any word the knowledge knows may be (beside the
        slot's kind's words, which `allowed` lists)."""
        return not state.done and state.stack[-1][0] == _OPEN

    def takes_question_text(self, state: State) -> bool:
        """Whether the next token is free text: the question's own token (which `allowed`
        lists), or any word or phrase the question offers to copy."""
        return not state.done and state.stack[-1][0] == _TEXT

    def advance(self, state: State, token: int) -> State:
        slot, stack = state.stack[-1], state.stack[:-1]
        text = self.vocabulary.tokens[token]
        if slot[0] == _OPERAND:
            stack += self._slots[text[:-1]]
            return State(stack, state.category, state.length + 1)
        category = text if slot[1] is Kind.ATTR else state.category
        return State(stack, category, state.length + 1, token)

    # ----- tables ------------------------------------------------------------------------------

    @cached_property
    def _slots(self) -> dict[str, tuple[Slot, ...]]:
        """Per operation, the slots it opens, last-popped first (operands pop before literals)."""
        return {sig.name: tuple(reversed(_operand_slots(sig) + _literal_slots(sig)))
                for sig in SIGNATURES.values()}

    @cached_property
    def _shortest(self) -> dict[Slot, int]:
        slots = {s for ss in self._slots.values() for s in ss} | {_ROOT}
        return {s: self._slot_length(s) for s in slots}

    @cached_property
    def _longest_shortest(self) -> int:
        return max(operation_lengths().values())

    def _slot_length(self, slot: Slot) -> int:
        if slot[0] != _OPERAND:
            return 1
        return min(n for name, n in operation_lengths().items()
                   if _fits(slot, SIGNATURES[name]))

    def _compute(self, slot: Slot, category: str | None, spare: int) -> list[int]:
        kind, what = slot[:2]
        if kind == _OPERAND:
            names = [sig.name for sig in SIGNATURES.values()  # those the model has a token for
                     if _fits(slot, sig) and operation_lengths()[sig.name] <= spare
                     and op_token(sig.name) in self._known]
            return sorted(self.vocabulary.id(op_token(n)) for n in names)
        assert isinstance(what, Kind)
        if kind == _TEXT:
            return [self.vocabulary.id(QUESTION)] if QUESTION in self._known else []
        return sorted(self.vocabulary.id(w) for w in words(what, category, self.ontology) if w in self._known)

    @cached_property
    def _known(self) -> frozenset[str]:
        return frozenset(self.vocabulary.tokens)


@cache
def operation_lengths() -> dict[str, int]:
    """The fewest tokens of a complete program rooted in each operation."""
    shortest = {t: 10**6 for t in Type}
    lengths: dict[str, int] = {}
    for _ in SIGNATURES:  # a fixpoint; the table is shallow
        for sig in SIGNATURES.values():
            lengths[sig.name] = 1 + sum(shortest[t] for t in sig.operands) + len(sig.literals)
        for t in Type:
            shortest[t] = min(n for name, n in lengths.items() if t.accepts(SIGNATURES[name].result))
    return lengths


def shortest_program() -> int:
    """The fewest tokens of any program: a model must be allowed to write that many."""
    return min(n for name, n in operation_lengths().items() if _fits(_ROOT, SIGNATURES[name]))


def _fits(slot: Slot, sig: Signature) -> bool:
    expected = slot[1]
    if expected is None:
        return sig.result.is_answer
    assert isinstance(expected, Type)
    return expected.accepts(sig.result)


def _operand_slots(sig: Signature) -> tuple[Slot, ...]:
    return tuple((_OPERAND, t, False, False) for t in sig.operands)


def _literal_slots(sig: Signature) -> tuple[Slot, ...]:
    slots = []
    for position, kind in enumerate(sig.literals):
        narrowed = kind is Kind.VALUE and Kind.ATTR in sig.literals[:position]
        differs = position in sig.alternatives[1:]
        assert not differs or position - 1 in sig.alternatives, "a choice's alternatives are adjacent"
        tag = _TEXT if kind is Kind.TEXT else _OPEN if sig.knowledge and kind in EXTENDED else _LITERAL
        slots.append((tag, kind, narrowed, differs))
    return tuple(slots)
