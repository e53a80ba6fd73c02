"""Batched beam search under the automaton: every candidate is a complete, typed program.

All questions of a batch decode together, `beam` hypotheses each, one array per step.
At each step a hypothesis may only take the tokens its automaton state allows, and the
model's distribution is renormalised over them, so a candidate's score is the probability
the constrained model gives the whole program: the confidence the cascade thresholds.
A finished hypothesis stays in its beam at no further cost; the length budget of the
automaton bounds the number of steps.  It runs on the numpy network (`network.py`), the one
search for answering and for whatever decodes a model in training (`model.network`), or on a
torch module on its device (`device.py`); the automaton's states are integers and their masks
rows of one table (`states.py`), so a step's Python is a dict lookup a row.

Where the automaton's slot is open (a knowledge operation's class or value), a hypothesis may
also copy what its question offers that the knowledge in use knows (`knows`), so that a program
can name a word only the knowledge knows (``keratin``), and never one the checker would refuse
(an adverb of a phrasing never trained on); a word token is written as the word it stands for.
Where it takes free text, a hypothesis may write its question or copy anything it offers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from qlang.small.automaton import Automaton
from qlang.small.network import Floats, Ints, Mask, Opened
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
    """What the search asks of a network: a batch's rows to decode (the numpy `Network`'s, or
    a torch module's on its device: `qlang.small.device`)."""

    @property
    def vocabularies(self) -> Vocabularies: ...

    def rows(self, source: Ints, lengths: Ints, copy: Ints, beam: int) -> Rows: ...


class Rows(Protocol):
    """A batch's hypotheses, `beam` rows a question, wherever the network keeps them
    (`network.NumpyRows` says what each call does)."""

    def step(self, live: Ints, tokens: Ints) -> None: ...

    def best(self, chosen: Ints, allowed: Mask, mask_rows: Ints, opened: Opened, base: Floats,
             k: int) -> tuple[Floats, Ints]: ...

    def reorder(self, parents: Ints) -> None: ...


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
    """Each step, only the rows still writing go through the network, each row offers its
    `beam` best continuations, and each question keeps the best `beam` of its rows' offers (a
    finished row offers itself, and a row whose state allows one token that token, at no
    cost: only rows with a choice are scored): the same choice as over every row's whole
    distribution, with equal totals broken by row, then token."""
    target = network.vocabularies.target
    n, size, eos = len(questions), len(target), target.id(EOS)
    source, lengths, copy = encode_questions(network.vocabularies, questions)
    known = _Known(network.vocabularies, questions, copy, knows)
    states = automaton.states
    rows = network.rows(source, lengths, copy, beam)
    scores = np.full((n, beam), _NO, np.float32)
    scores[:, 0] = 0.0  # one live hypothesis per question to start with
    state = np.full(n * beam, states.start, np.int64)
    finished = np.zeros(n * beam, bool)
    last = np.full(n * beam, target.id(BOS), np.int64)
    history = np.empty((n * beam, 0), np.int64)
    slots = np.arange(beam)[:, None] * size
    while len(live := np.flatnonzero((scores.reshape(-1) > _NO) & ~finished)):
        rows.step(live, last[live])
        base = scores.reshape(-1)
        offers = np.full((n * beam, beam), _NO, np.float32)
        tokens = np.zeros((n * beam, beam), np.int64)
        only = states.only(state[live])
        forced = live[only >= 0]  # one token allowed: its probability is 1, nothing to score
        offers[forced, 0], tokens[forced, 0] = base[forced], only[only >= 0]
        if len(chosen := np.flatnonzero(only < 0)):
            rest = live[chosen]
            opened = [*((i, known.ids(int(rest[i]) // beam)) for i in states.opening(state[rest])),
                      *((i, known.offered(int(rest[i]) // beam)) for i in states.texting(state[rest]))]
            offers[rest], tokens[rest] = rows.best(chosen, states.allowed, states.mask_rows(state[rest]),
                                                   opened, base[rest], beam)
        ended = np.flatnonzero(finished & (base > _NO))
        offers[ended, 0], tokens[ended, 0] = base[ended], eos
        offers, index = offers.reshape(n, beam * beam), (slots + tokens.reshape(n, beam, beam)).reshape(n, -1)
        kept = np.lexsort((index, -offers), axis=-1)[:, :beam]
        picked, scores = np.take_along_axis(index, kept, axis=1), np.take_along_axis(offers, kept, axis=1)
        parents = (picked // size + np.arange(n)[:, None] * beam).reshape(-1)
        last = (picked % size).reshape(-1)
        rows.reorder(parents)
        history = np.concatenate([history[parents], last[:, None]], axis=1)
        alive = scores.reshape(-1) > _NO
        finished = alive & (finished[parents] | (last == eos))
        state = state[parents]
        writing = np.flatnonzero(alive & ~finished)
        state[writing] = states.advance(state[writing], last[writing])
    return [_candidates(network.vocabularies, questions[q], history[q * beam:(q + 1) * beam], scores[q])
            for q in range(n)]


class _Known:
    """Per question, the ids of what it offers to copy that the knowledge knows: looked up the
    first time one of its hypotheses reaches an open slot (a GQA question never does)."""

    def __init__(self, vocabularies: Vocabularies, questions: Sequence[str], copy: Ints,
                 knows: Callable[[str], bool]) -> None:
        self.vocabularies, self.questions, self.copy, self.knows = vocabularies, questions, copy, knows
        self.found: dict[int, list[int]] = {}

    def offered(self, question: int) -> list[int]:
        """The ids a question offers to copy, each once."""
        pad = self.vocabularies.target.id(PAD)
        return [t for t in dict.fromkeys(self.copy[question].tolist()) if t != pad]

    def ids(self, question: int) -> list[int]:
        if question not in self.found:
            target = self.vocabularies.target
            offered = self.offered(question)
            words = self.vocabularies.said(self.questions[question], [target.tokens[t] for t in offered])
            self.found[question] = [t for t, word in zip(offered, words, strict=True) if self.knows(word)]
        return self.found[question]


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
