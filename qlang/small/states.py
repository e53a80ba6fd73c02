"""The automaton's states as integers, with their masks as rows of one table.

The search decodes thousands of hypotheses a step; asking the automaton per hypothesis, and
building its mask, is Python per row.  Here each state the search reaches is numbered once,
its transitions are remembered by number, and its allowed tokens are a mask (true where
allowed), one row of `allowed` per distinct set of tokens: a step looks up transitions in a
dict and gathers its masks with one index, on whatever device holds the table.  States are
numbered as they are first reached, so the table only grows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from qlang.small.network import Ints, Mask

if TYPE_CHECKING:
    from qlang.small.automaton import Automaton, State


class States:
    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.size = len(automaton.vocabulary)
        self.eos = automaton.eos
        self._numbers: dict[State, int] = {}
        self._states: list[State] = []
        self._mask_of: list[int] = []
        self._open: list[bool] = []
        self._text: list[bool] = []
        self._only: list[int] = []
        self._next: dict[int, int] = {}
        #: per distinct set of allowed tokens, its row of `allowed`
        self._rows: dict[tuple[int, ...], int] = {}
        self._allowed = np.empty((0, self.size), bool)
        self._mask_rows: list[Mask] = []
        self.start = self._number(automaton.start())

    @property
    def allowed(self) -> Mask:
        """Every mask made so far, one row each, true where a token is allowed (rows are only
        ever added)."""
        if len(self._allowed) < len(self._mask_rows):
            self._allowed = np.concatenate([self._allowed, np.stack(self._mask_rows[len(self._allowed):])])
        return self._allowed

    def mask_rows(self, states: Ints) -> Ints:
        return np.array([self._mask_of[s] for s in states.tolist()], np.int64)

    def only(self, states: Ints) -> Ints:
        """Per state, the one token it allows, or -1 where it allows several (or question words)."""
        return np.array([self._only[s] for s in states.tolist()], np.int64)

    def opening(self, states: Ints) -> list[int]:
        """The positions of the states whose next token may be a question word the knowledge
        knows."""
        return [i for i, s in enumerate(states.tolist()) if self._open[s]]

    def texting(self, states: Ints) -> list[int]:
        """The positions of the states whose next token is free text (a question's word too)."""
        return [i for i, s in enumerate(states.tolist()) if self._text[s]]

    def advance(self, states: Ints, tokens: Ints) -> Ints:
        """Each state after its token (the end token leaves a state as it is)."""
        size, found = self.size, self._next
        keys = (states * size + tokens).tolist()
        return np.array([found[key] if key in found else self._advance(key // size, key % size)
                         for key in keys], np.int64)

    def _advance(self, state: int, token: int) -> int:
        after = state if token == self.eos else self._number(
            self.automaton.advance(self._states[state], token))
        self._next[state * self.size + token] = after
        return after

    def _number(self, state: State) -> int:
        if state not in self._numbers:
            self._numbers[state] = len(self._states)
            self._states.append(state)
            allowed = self.automaton.allowed(state)
            self._mask_of.append(self._row(allowed))
            self._open.append(self.automaton.takes_question_words(state))
            self._text.append(self.automaton.takes_question_text(state))
            copies = self._open[-1] or self._text[-1]  # the question may add tokens there
            self._only.append(allowed[0] if len(allowed) == 1 and not copies else -1)
        return self._numbers[state]

    def _row(self, ids: list[int]) -> int:
        key = tuple(ids)
        if key not in self._rows:
            mask = np.zeros(self.size, bool)
            mask[ids] = True
            self._rows[key] = len(self._mask_rows)
            self._mask_rows.append(mask)
        return self._rows[key]
