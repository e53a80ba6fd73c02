"""Batched beam search under the automaton: every candidate is a complete, typed program.

All questions of a batch decode together, `beam` hypotheses each, in one tensor per step.
At each step a hypothesis may only take the tokens its automaton state allows, and the
model's distribution is renormalised over them, so a candidate's score is the probability
the constrained model gives the whole program: the confidence the cascade thresholds.
A finished hypothesis stays in its beam at no further cost; the length budget of the
automaton bounds the number of steps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch

from qlang.small.automaton import Automaton, State
from qlang.small.model import Seq2Seq
from qlang.small.tokens import BOS, EOS, PAD, UNK, question_tokens

_NO = float("-inf")


@dataclass(frozen=True, slots=True)
class Candidate:
    tokens: tuple[str, ...]
    logprob: float

    @property
    def probability(self) -> float:
        return math.exp(self.logprob)


def encode_questions(model: Seq2Seq, questions: Sequence[str]) -> tuple[torch.Tensor, ...]:
    """Padded source ids, lengths and copy ids (an empty question is one unknown token)."""
    rows = [source_row(model, q) for q in questions]
    width = max(len(r[0]) for r in rows)
    source = torch.full((len(rows), width), model.source.id(PAD), dtype=torch.long)
    copy = torch.full((len(rows), width), model.target.id(PAD), dtype=torch.long)
    for i, (ids, copied) in enumerate(rows):
        source[i, :len(ids)] = torch.tensor(ids)
        copy[i, :len(ids)] = torch.tensor(copied)
    return source, torch.tensor([len(r[0]) for r in rows]), copy


def source_row(model: Seq2Seq, question: str) -> tuple[list[int], list[int]]:
    """A question's token ids and copy ids, as training and decoding both read it."""
    ids = model.source.ids(question_tokens(question))
    if not ids:
        return [model.source.id(UNK)], [model.target.id(PAD)]
    return ids, model.copy_ids(question)


@torch.inference_mode()
def beam_search(model: Seq2Seq, automaton: Automaton, questions: Sequence[str],
                beam: int = 4) -> list[list[Candidate]]:
    """The best `beam` programs for each question, most probable first."""
    if not questions:
        return []
    n, vocabulary = len(questions), len(model.target)
    source, lengths, copy = encode_questions(model, questions)
    memory, mask, (h, c) = model.encode(source, lengths)
    rows = torch.arange(n).repeat_interleave(beam)
    memory, mask, copy = memory[rows], mask[rows], copy[rows]
    h, c = h[:, rows], c[:, rows]
    scores = torch.full((n, beam), _NO)
    scores[:, 0] = 0.0  # one live hypothesis per question to start with
    states: list[State | None] = [automaton.start()] * (n * beam)
    finished = [False] * (n * beam)
    last = torch.full((n * beam,), model.target.id(BOS), dtype=torch.long)
    history = torch.empty((n * beam, 0), dtype=torch.long)
    eos = model.target.id(EOS)
    masks, only_end = _Masks(vocabulary), [eos]
    while not all(f or s is None for f, s in zip(finished, states, strict=True)):
        scored, (h, c) = model.decode(last[:, None], memory, mask, copy, (h, c))
        allowed = torch.stack([masks.of(automaton.allowed(state) if state is not None and not done
                                        else only_end)  # a dead row's score is -inf: it never wins
                               for state, done in zip(states, finished, strict=True)])
        logprobs = torch.log_softmax(scored[:, 0] + allowed, dim=-1)
        logprobs = torch.where(torch.tensor(finished)[:, None], allowed, logprobs)
        totals = (scores.view(-1, 1) + logprobs).view(n, beam * vocabulary)
        scores, chosen = totals.topk(beam, dim=-1)
        parents = (chosen // vocabulary + torch.arange(n)[:, None] * beam).view(-1)
        tokens = (chosen % vocabulary).view(-1)
        h, c = h[:, parents], c[:, parents]
        history = torch.cat([history[parents], tokens[:, None]], dim=1)
        live = scores.view(-1) > _NO
        states, finished = _advance(automaton, states, finished, parents.tolist(), tokens.tolist(),
                                    live.tolist(), eos)
        last = tokens
    return [_candidates(model, history[q * beam:(q + 1) * beam], scores[q], eos) for q in range(n)]


class _Masks:
    """Additive masks (0 where allowed, -inf elsewhere), one per distinct list of token ids:
    the automaton returns the same list object for the same situation."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.made: dict[int, tuple[list[int], torch.Tensor]] = {}

    def of(self, ids: list[int]) -> torch.Tensor:
        if id(ids) not in self.made:
            mask = torch.full((self.size,), _NO)
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


def _candidates(model: Seq2Seq, history: torch.Tensor, scores: torch.Tensor, eos: int) -> list[Candidate]:
    result: list[Candidate] = []
    for row, score in zip(history.tolist(), scores.tolist(), strict=True):
        if score == _NO or eos not in row:
            continue
        tokens = tuple(model.target.tokens[t] for t in row[:row.index(eos)])
        if all(c.tokens != tokens for c in result):
            result.append(Candidate(tokens, score))
    return result
