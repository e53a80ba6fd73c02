"""The network in numpy: a BiLSTM encoder and an attentional LSTM decoder with a copy switch.

Answering needs only the forward pass, and importing torch costs a one-shot `ask` about 1.4 s,
so inference is numpy: the weights are the torch module's (`qlang.small.model`, which trains
them), the same names and shapes, as float32, and `encode` and `step` compute what its
`encode` and `decode` compute in eval mode (no dropout), one decoder step at a time
(tests/test_small_network.py holds the two to the same log-probabilities).

Why recurrent and not a Transformer: there are two to four thousand training pairs, and on
data this small attentional LSTMs are the strong classic for semantic parsing (Dong & Lapata
2016; Jia & Liang 2016); a decoder step is one LSTM cell and one attention over a dozen
words, carried forward incrementally, so a beam of programs costs well under a millisecond a
token on a CPU.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from qlang.small.tokens import Vocabularies, Vocabulary

Floats = NDArray[np.float32]
Ints = NDArray[np.int64]
Mask = NDArray[np.bool_]
#: the decoder's LSTM state: hidden and cell, each layers x rows x hidden
LSTMState = tuple[Floats, Floats]
#: per row of a step (its index among the rows stepped), the tokens allowed beside its mask
Opened = Sequence[tuple[int, list[int]]]

_NO = float("-inf")


@dataclass(frozen=True)
class Config:
    source: tuple[str, ...]
    target: tuple[str, ...]
    embedding: int = 128
    hidden: int = 256
    layers: int = 1
    dropout: float = 0.2
    #: the most program tokens decoding may write
    max_length: int = 48
    #: the cascade answers with this model when a program's probability reaches this
    threshold: float | None = None
    #: below the threshold, the weight of a candidate's log-probability under this model beside
    #: its log-likelihood under the fine-tuned model, which rescores the candidates
    rescore_weight: float = 0.0
    #: below the threshold, the bonus per program token a candidate's score gets (both models'
    #: log-likelihoods fall with every token)
    length_bonus: float = 0.0
    #: the bundled adapter that scores the candidates below the threshold
    #: (`qlang.translate.models.ADAPTERS`; None: the fine-tuned fallback itself)
    scorer: str | None = None
    #: a word the source vocabulary lacks -> the trained word the encoder reads for it
    #: (`qlang.train.backoff`)
    backoff: dict[str, str] = field(default_factory=dict)
    #: how the model was made and measured (free-form, for the model card)
    notes: dict[str, Any] = field(default_factory=dict)

    def vocabularies(self) -> Vocabularies:
        return Vocabularies(Vocabulary(self.source), Vocabulary(self.target), self.backoff)


def shapes(config: Config) -> dict[str, tuple[int, ...]]:
    """Every weight's name and shape, as the torch module's `state_dict` has them."""
    e, h, half = config.embedding, config.hidden, config.hidden // 2
    found: dict[str, tuple[int, ...]] = {"source_embedding.weight": (len(config.source), e),
             "target_embedding.weight": (len(config.target), e)}
    for layer in range(config.layers):
        for suffix in ("", "_reverse"):
            found |= _lstm_shapes("encoder", f"l{layer}{suffix}", e if layer == 0 else h, half)
        found |= _lstm_shapes("decoder", f"l{layer}", e if layer == 0 else h, h)
    return found | {
        "bridge.weight": (2 * h * config.layers, h), "bridge.bias": (2 * h * config.layers,),
        "attention.weight": (h, h),
        "combine.weight": (h, 2 * h), "combine.bias": (h,),
        "output.weight": (len(config.target), h), "output.bias": (len(config.target),),
        "switch.weight": (1, 2 * h + e), "switch.bias": (1,),
    }


def _lstm_shapes(name: str, layer: str, inputs: int, hidden: int) -> dict[str, tuple[int, ...]]:
    return {f"{name}.weight_ih_{layer}": (4 * hidden, inputs),
            f"{name}.weight_hh_{layer}": (4 * hidden, hidden),
            f"{name}.bias_ih_{layer}": (4 * hidden,), f"{name}.bias_hh_{layer}": (4 * hidden,)}


@dataclass(frozen=True, slots=True)
class Linear:
    #: transposed (inputs x outputs), so that rows of inputs multiply on the left
    weight: Floats
    bias: Floats | None

    def __call__(self, x: Floats) -> Floats:
        y: Floats = x @ self.weight
        if self.bias is not None:
            y += self.bias
        return y


@dataclass(frozen=True, slots=True)
class LSTM:
    """One direction of one layer, torch's gates in torch's order (input, forget, cell, output)."""

    inputs: Linear
    hidden: Linear

    def step(self, projected: Floats, h: Floats, c: Floats) -> LSTMState:
        """The next hidden and cell state, from the inputs already projected (`self.inputs`)."""
        i, f, g, o = np.split(projected + self.hidden(h), 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        return _sigmoid(o) * np.tanh(c), c

    def run(self, projected: Floats, valid: Mask, reverse: bool) -> Floats:
        """Outputs over padded rows (batch x steps x features) of their inputs already projected,
        each row read over its valid steps only, as a packed sequence is: padding leaves the
        state alone and outputs 0."""
        rows, steps = valid.shape
        size = self.hidden.weight.shape[0]
        h = np.zeros((rows, size), np.float32)
        c = np.zeros((rows, size), np.float32)
        outputs = np.zeros((rows, steps, size), np.float32)
        for t in reversed(range(steps)) if reverse else range(steps):
            here = valid[:, t, None]
            new_h, new_c = self.step(projected[:, t], h, c)
            h, c = np.where(here, new_h, h), np.where(here, new_c, c)
            outputs[:, t] = np.where(here, h, 0)
        return outputs


def _both(layer: tuple[LSTM, LSTM], forward: Floats, backward: Floats, valid: Mask) -> Floats:
    """A bidirectional layer's outputs, of each direction's projected inputs."""
    return np.concatenate([layer[0].run(forward, valid, reverse=False),
                           layer[1].run(backward, valid, reverse=True)], axis=-1)


def _lstm(weights: Mapping[str, Floats], name: str, layer: str) -> LSTM:
    return LSTM(Linear(weights[f"{name}.weight_ih_{layer}"].T,
                       weights[f"{name}.bias_ih_{layer}"] + weights[f"{name}.bias_hh_{layer}"]),
                Linear(weights[f"{name}.weight_hh_{layer}"].T, None))


def _linear(weights: Mapping[str, Floats], name: str, bias: bool = True) -> Linear:
    return Linear(weights[f"{name}.weight"].T, weights[f"{name}.bias"] if bias else None)


@dataclass(frozen=True)
class Network:
    config: Config
    vocabularies: Vocabularies
    source_embedding: Floats
    target_embedding: Floats
    #: per layer, the forward and the backward direction
    encoder: tuple[tuple[LSTM, LSTM], ...]
    bridge: Linear
    decoder: tuple[LSTM, ...]
    attention: Linear
    combine: Linear
    output: Linear
    switch: Linear

    @classmethod
    def of(cls, config: Config, weights: Mapping[str, Floats]) -> Network:
        """The network of weights named and shaped as `shapes(config)` says (float32)."""
        layers = [f"l{k}" for k in range(config.layers)]
        return cls(
            config, config.vocabularies(),
            weights["source_embedding.weight"], weights["target_embedding.weight"],
            tuple((_lstm(weights, "encoder", k), _lstm(weights, "encoder", f"{k}_reverse")) for k in layers),
            _linear(weights, "bridge"), tuple(_lstm(weights, "decoder", k) for k in layers),
            _linear(weights, "attention", bias=False), _linear(weights, "combine"),
            _linear(weights, "output"), _linear(weights, "switch"))

    def encode(self, source: Ints, lengths: Ints) -> tuple[Floats, Mask, LSTMState]:
        """Encoder states, the padding mask and the decoder's initial state."""
        valid = np.arange(source.shape[1])[None, :] < lengths[:, None]
        forward, backward = self._source_inputs
        memory = _both(self.encoder[0], forward[source], backward[source], valid)
        for layer in self.encoder[1:]:
            memory = _both(layer, layer[0].inputs(memory), layer[1].inputs(memory), valid)
        summary = memory.sum(1) / lengths[:, None].astype(np.float32)
        start = np.tanh(self.bridge(summary))
        layers, h = self.config.layers, self.config.hidden
        h0, c0 = start.reshape(-1, 2, layers, h).transpose(1, 2, 0, 3)
        return memory, ~valid, (np.ascontiguousarray(h0), np.ascontiguousarray(c0))

    def step(self, tokens: Ints, memory: Floats, mask: Mask, copy: Ints,
             state: LSTMState) -> tuple[Floats, LSTMState]:
        """Log-probabilities of the token after each of `tokens` (one per row), and the LSTM
        state."""
        x, state = self.cell(tokens, state)
        return self.scores(tokens, x, memory, mask, copy), state

    def cell(self, tokens: Ints, state: LSTMState) -> tuple[Floats, LSTMState]:
        """The decoder's top output and its state after each of `tokens`."""
        x, hs, cs = self.target_embedding[tokens], [], []
        for layer, (lstm, h, c) in enumerate(zip(self.decoder, *state, strict=True)):
            x, c = lstm.step(lstm.inputs(x) if layer else self._target_inputs[tokens], h, c)
            hs.append(x)
            cs.append(c)
        return x, (np.stack(hs), np.stack(cs))

    def scores(self, tokens: Ints, x: Floats, memory: Floats, mask: Mask, copy: Ints) -> Floats:
        """Log-probabilities of the next token, from the decoder's output `x` after `tokens`.  A
        learned switch mixes generating a token with copying the literal a question token
        offers (`copy`, rows x source), weighted by the attention (See et al. 2017)."""
        scores = np.einsum("rh,rsh->rs", self.attention(x), memory)
        weights = _softmax(np.where(mask, -np.inf, scores))
        context = np.einsum("rs,rsh->rh", weights, memory)
        combined = np.tanh(self.combine(np.concatenate([x, context], axis=-1)))
        embedded = self.target_embedding[tokens]
        generate = _sigmoid(self.switch(np.concatenate([x, context, embedded], axis=-1)))
        mixed = _softmax(self.output(combined))
        mixed *= generate
        # the copied share is 0 but where the question offers a literal: added there only
        copied, rows = np.zeros_like(mixed), np.arange(len(tokens))[:, None]
        np.add.at(copied, (rows, copy), weights)
        mixed[rows, copy] += (1 - generate) * copied[rows, copy]
        mixed += np.float32(1e-9)
        return np.log(mixed, out=mixed)

    def rows(self, source: Ints, lengths: Ints, copy: Ints, beam: int) -> NumpyRows:
        return NumpyRows(self, source, lengths, copy, beam)

    @cached_property
    def _source_inputs(self) -> tuple[Floats, Floats]:
        """Every source word's input to the encoder's first layer, both directions, projected
        once (a question's projection is then rows of these, not a product)."""
        forward, backward = self.encoder[0]
        return forward.inputs(self.source_embedding), backward.inputs(self.source_embedding)

    @cached_property
    def _target_inputs(self) -> Floats:
        """Every target token's input to the decoder's first layer, projected once."""
        return self.decoder[0].inputs(self.target_embedding)


class NumpyRows:
    """A batch's hypotheses being decoded, `beam` rows a question (row r is question r // beam's):
    the search steps the rows still writing, asks those with a choice for their best next
    tokens under their masks, and reorders the rows by the hypotheses it keeps."""

    def __init__(self, network: Network, source: Ints, lengths: Ints, copy: Ints, beam: int) -> None:
        self.network = network
        self.memory, self.mask, (h, c) = network.encode(source, lengths)
        self.copy = copy
        self.question = np.repeat(np.arange(len(source)), beam)
        self.h, self.c = h[:, self.question], c[:, self.question]
        self.live, self.tokens = np.empty(0, np.int64), np.empty(0, np.int64)

    def step(self, live: Ints, tokens: Ints) -> None:
        """Feed each of the `live` rows its last token."""
        self.live, self.tokens = live, tokens
        self.h[:, live], self.c[:, live] = self.network.cell(tokens, (self.h[:, live], self.c[:, live]))[1]

    def best(self, chosen: Ints, allowed: Mask, mask_rows: Ints, opened: Opened, base: Floats,
             k: int) -> tuple[Floats, Ints]:
        """Per row of the last step's `chosen` (positions among its live rows), the `k` best
        totals (`base` plus the token's log-probability, the model's distribution renormalised
        over the tokens `allowed[mask_rows]` allows, and `opened`'s) and their tokens, best
        first, equal totals by token."""
        rows, question = self.live[chosen], self.question[self.live[chosen]]
        scored = self.network.scores(self.tokens[chosen], self.h[-1, rows], self.memory[question],
                                     self.mask[question], self.copy[question])
        here = allowed[mask_rows]
        for row, ids in opened:
            here[row, ids] = True
        totals = _log_softmax(np.where(here, scored, _NO))
        totals += base[:, None]
        return top(totals, k)

    def reorder(self, parents: Ints) -> None:
        """Row r continues the hypothesis of row `parents[r]`."""
        self.h, self.c = self.h[:, parents], self.c[:, parents]


def top(totals: Floats, k: int) -> tuple[Floats, Ints]:
    """Per row, the `k` largest values and their columns, largest first, equal ones by column (a
    question's ties, common where the model has no preference, broken the same way always): `k`
    passes of argmax, which finds the first of equal values, each setting what it found to -inf
    (in `totals`, which is spent; a row of fewer than `k` finite values ends in -inf)."""
    rows = np.arange(len(totals))
    best = np.empty((len(totals), k), np.float32)
    tokens = np.empty((len(totals), k), np.int64)
    for rank in range(k):
        tokens[:, rank] = totals.argmax(axis=1)
        best[:, rank] = totals[rows, tokens[:, rank]]
        totals[rows, tokens[:, rank]] = _NO
    return best, tokens


def _sigmoid(x: Floats) -> Floats:
    with np.errstate(over="ignore"):  # exp(-x) is inf for x below -88: the sigmoid is 0, rightly
        return np.reciprocal(np.exp(-x) + np.float32(1))


def _log_softmax(x: Floats) -> Floats:
    """In place: `x` becomes its log-softmax."""
    x -= x.max(axis=-1, keepdims=True)
    x -= np.log(np.exp(x).sum(axis=-1, keepdims=True))
    return x


def _softmax(x: Floats) -> Floats:
    """In place: `x` becomes its softmax."""
    x -= x.max(-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(-1, keepdims=True)
    return x
