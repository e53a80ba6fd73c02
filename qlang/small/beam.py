"""Batched beam search under the automaton: every candidate is a complete, typed program.

All questions of a batch decode together, `beam` hypotheses each, one array per step.
At each step a hypothesis may only take the tokens its automaton state allows, and the
model's distribution is renormalised over them, so a candidate's score is the probability
the constrained model gives the whole program: the confidence the cascade thresholds.
A finished hypothesis stays in its beam at no further cost; the length budget of the
automaton bounds the number of steps.  It runs on the numpy network (`network.py`), the one
search for answering and for whatever decodes a model in training (`model.network`).

Where the automaton's slot is open (a knowledge operation's class or value), a hypothesis may
also copy what its question offers that the knowledge in use knows (`knows`), so that a program
can name a word only the knowledge knows (``keratin``), and never one the checker would refuse
(an adverb of a phrasing never trained on); a word token is written as the word it stands for.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from qlang.small.automaton import Automaton, State
from qlang.small.network import Floats, Ints, LSTMState, Mask
from qlang.small.tokens import BOS, EOS, PAD, Vocabularies

_NO = float("-inf")


@dataclass(frozen=True, slots=True)
class Candidate:
    tokens: tuple[str, ...]
    logprob: float

    @property
    def probability(self) -> float:
        return math.exp(self.logprob)


def encode_questions(vocabularies: Vocabularies, questions: Sequence[str]) -> tuple[Ints, Ints, Ints]:
    """Padded source ids, lengths and copy ids."""
    rows = [vocabularies.row(q) for q in questions]
    width = max(len(ids) for ids, _ in rows)
    source = np.full((len(rows), width), vocabularies.source.id(PAD), np.int64)
    copy = np.full((len(rows), width), vocabularies.target.id(PAD), np.int64)
    for i, (ids, copied) in enumerate(rows):
        source[i, :len(ids)] = ids
        copy[i, :len(ids)] = copied
    return source, np.array([len(ids) for ids, _ in rows], np.int64), copy


class Decodes(Protocol):
    """What the search asks of a network: the numpy `Network`, or anything computing the same
    (tests/test_small_network.py runs the torch module through it)."""

    @property
    def vocabularies(self) -> Vocabularies: ...

    def encode(self, source: Ints, lengths: Ints) -> tuple[Floats, Mask, LSTMState]: ...

    def step(self, tokens: Ints, memory: Floats, mask: Mask, copy: Ints,
             state: LSTMState) -> tuple[Floats, LSTMState]: ...


def beam_search(network: Decodes, automaton: Automaton, questions: Sequence[str],
                beam: int = 4, knows: Callable[[str], bool] = lambda _word: False) -> list[list[Candidate]]:
    """The best `beam` programs for each question, most probable first; `knows`: whether the
    knowledge in use knows a question word (by default none may be copied to an open slot)."""
    if not questions:
        return []
    with _blas().limit(limits=1, user_api="blas"):  # a step's products are too small to share
        return _search(network, automaton, questions, beam, knows)


@cache
def _blas() -> ThreadpoolController:
    """numpy's BLAS threads: for products this small, threads only wait for each other, and
    on a busy machine for everything else (on the shared 2-core machine, one question's output
    layer took 20 ms with two threads, under 1 ms with one)."""
    return ThreadpoolController()


def _search(network: Decodes, automaton: Automaton, questions: Sequence[str],
            beam: int, knows: Callable[[str], bool]) -> list[list[Candidate]]:
    target = network.vocabularies.target
    n, vocabulary = len(questions), len(target)
    source, lengths, copy = encode_questions(network.vocabularies, questions)
    known = _Known(network.vocabularies, questions, copy, knows)
    memory, mask, (h, c) = network.encode(source, lengths)
    rows = np.repeat(np.arange(n), beam)
    memory, mask, copy = memory[rows], mask[rows], copy[rows]
    h, c = h[:, rows], c[:, rows]
    scores = np.full((n, beam), _NO, np.float32)
    scores[:, 0] = 0.0  # one live hypothesis per question to start with
    states: list[State | None] = [automaton.start()] * (n * beam)
    finished = [False] * (n * beam)
    last = np.full(n * beam, target.id(BOS), np.int64)
    history = np.empty((n * beam, 0), np.int64)
    eos = target.id(EOS)
    masks, only_end = _Masks(vocabulary), [eos]
    while not all(f or s is None for f, s in zip(finished, states, strict=True)):
        scored, (h, c) = network.step(last, memory, mask, copy, (h, c))
        allowed = np.stack([masks.of(automaton.allowed(state) if state is not None and not done
                                     else only_end)  # a dead row's score is -inf: it never wins
                            for state, done in zip(states, finished, strict=True)])
        for row, (state, done) in enumerate(zip(states, finished, strict=True)):
            if state is not None and not done and automaton.takes_question_words(state):
                allowed[row, known.ids(row // beam)] = 0.0
        logprobs = np.where(np.array(finished)[:, None], allowed, _log_softmax(scored + allowed))
        totals = (scores.reshape(-1, 1) + logprobs).reshape(n, beam * vocabulary)
        chosen = _top(totals, beam)
        scores = np.take_along_axis(totals, chosen, axis=1)
        parents = (chosen // vocabulary + np.arange(n)[:, None] * beam).reshape(-1)
        tokens = (chosen % vocabulary).reshape(-1)
        h, c = h[:, parents], c[:, parents]
        history = np.concatenate([history[parents], tokens[:, None]], axis=1)
        live = scores.reshape(-1) > _NO
        states, finished = _advance(automaton, states, finished, parents.tolist(), tokens.tolist(),
                                    live.tolist(), eos)
        last = tokens
    return [_candidates(network.vocabularies, questions[q], history[q * beam:(q + 1) * beam], scores[q])
            for q in range(n)]


def _log_softmax(x: Floats) -> Floats:
    shifted: Floats = x - x.max(axis=-1, keepdims=True)
    total: Floats = np.exp(shifted).sum(axis=-1, keepdims=True)
    return shifted - np.log(total)


def _top(totals: Floats, k: int) -> Ints:
    """Per row, the indices of the `k` largest values, largest first, equal ones by index (a
    question's ties, common where the model has no preference, broken the same way always)."""
    kth = -np.partition(-totals, k - 1, axis=1)[:, k - 1]
    chosen = np.empty((len(totals), k), np.int64)
    for row, (values, least) in enumerate(zip(totals, kth, strict=True)):
        found = np.flatnonzero(values >= least)
        chosen[row] = found[np.argsort(-values[found], kind="stable")[:k]]
    return chosen


class _Known:
    """Per question, the ids of what it offers to copy that the knowledge knows: looked up the
    first time one of its hypotheses reaches an open slot (a GQA question never does)."""

    def __init__(self, vocabularies: Vocabularies, questions: Sequence[str], copy: Ints,
                 knows: Callable[[str], bool]) -> None:
        self.vocabularies, self.questions, self.copy, self.knows = vocabularies, questions, copy, knows
        self.found: dict[int, list[int]] = {}

    def ids(self, question: int) -> list[int]:
        if question not in self.found:
            target = self.vocabularies.target
            offered = [t for t in dict.fromkeys(self.copy[question].tolist()) if t != target.id(PAD)]
            words = self.vocabularies.said(self.questions[question], [target.tokens[t] for t in offered])
            self.found[question] = [t for t, word in zip(offered, words, strict=True) if self.knows(word)]
        return self.found[question]


class _Masks:
    """Additive masks (0 where allowed, -inf elsewhere), one per distinct list of token ids:
    the automaton returns the same list object for the same situation."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.made: dict[int, tuple[list[int], Floats]] = {}

    def of(self, ids: list[int]) -> Floats:
        if id(ids) not in self.made:
            mask = np.full(self.size, _NO, np.float32)
            mask[ids] = 0.0
            self.made[id(ids)] = (ids, mask)  # the list is kept, so its id stays its own
        return self.made[id(ids)][1]


def _advance(automaton: Automaton, states: list[State | None], finished: list[bool],
             parents: list[int], tokens: list[int], live: list[bool],
             eos: int) -> tuple[list[State | None], list[bool]]:
    new_states: list[State | None] = []
    new_finished = []
    for parent, token, alive in zip(parents, tokens, live, strict=True):
        state = states[parent]
        done = finished[parent] or (alive and token == eos)
        if not alive or state is None:
            new_states.append(None)
        elif done:
            new_states.append(state)
        else:
            new_states.append(automaton.advance(state, token))
        new_finished.append(alive and done)
    return new_states, new_finished


def _candidates(vocabularies: Vocabularies, question: str, history: Ints, scores: Floats) -> list[Candidate]:
    tokens, eos = vocabularies.target.tokens, vocabularies.target.id(EOS)
    result: list[Candidate] = []
    for row, score in zip(history.tolist(), scores.tolist(), strict=True):
        if score == _NO or eos not in row:
            continue
        program = vocabularies.said(question, [tokens[t] for t in row[:row.index(eos)]])
        if all(c.tokens != program for c in result):
            result.append(Candidate(program, score))
    return result
