"""How likely a llama.cpp model finds given continuations of prompts: scoring, not generating.

A question's candidate programs share its prompt and, mostly, their first tokens, so the
tokens of all of them form a trie: each distinct prefix is one entry of the batch, tagged with
every sequence that passes through it, and the whole trie is one `llama_decode` (a question's
eight candidates cost about twice one candidate's tokens, not eight times).  Each question's
candidates are a batch of their own: llama.cpp's sums move with a batch's size and make-up (by
up to 0.9 of a nat on GQA dev's candidates between one question's batch and sixteen's), so a
program's score, and the cascade's choice, would depend on which other questions were scored
with it.  Thirty-two questions in batches of sixteen took 7 to 13 % less time.  The model's
log-probability of a continuation is the sum, over its tokens, of the log-softmax of the logits
at the entry before each.

It runs in a context of its own on the backend's model (and LoRA adapter), `SideContext`, so
scoring never disturbs the generating context's cache.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qlang.translate.backends import backend_error

Tokens = Sequence[int]


@dataclass
class _Trie:
    """The entries of one batch: each distinct token prefix once, with its sequences."""

    #: prefix -> its entry's index
    index: dict[tuple[int, ...], int] = field(default_factory=dict)
    #: per entry: its prefix, and the sequences passing through it
    entries: list[tuple[tuple[int, ...], list[int]]] = field(default_factory=list)
    #: per sequence: (its tokens, the prompt's length)
    sequences: list[tuple[tuple[int, ...], int]] = field(default_factory=list)

    def cost(self, prompt: Tokens, continuations: Sequence[Tokens]) -> int:
        """The entries adding one prompt's continuations would add (an upper bound)."""
        return len(prompt) + sum(len(c) for c in continuations)

    def add(self, prompt: Tokens, continuation: Tokens) -> None:
        sequence, number = (*prompt, *continuation), len(self.sequences)
        self.sequences.append((sequence, len(prompt)))
        for end in range(1, len(sequence)):  # the last token is only read, never decoded
            key = sequence[:end]
            if key not in self.index:
                self.index[key] = len(self.entries)
                self.entries.append((key, []))
            self.entries[self.index[key]][1].append(number)


@dataclass(frozen=True)
class SideContext:
    """A llama.cpp context of its own on a model and its LoRA adapter, for `sequences`
    sequences in `tokens` cells, with a batch as large: scoring and batched generation run
    there, so neither disturbs the generating context's cache (each clears it before use)."""

    context: Any
    batch: Any
    sequences: int
    tokens: int

    @classmethod
    def open(cls, llm: Any, llama_cpp: Any, sequences: int = 64, tokens: int = 4096) -> SideContext:
        from llama_cpp import _internals

        params = llama_cpp.llama_context_default_params()
        params.n_ctx = params.n_batch = tokens
        params.n_ubatch = min(tokens, 512)
        params.n_seq_max = sequences
        params.kv_unified = True  # the sequences of one question share its prompt's cells
        context = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
        adapter = getattr(llm, "_lora_adapter", None)
        if adapter is not None:
            adapters = (llama_cpp.llama_adapter_lora_p_ctypes * 1)(adapter)
            if llama_cpp.llama_set_adapters_lora(context.ctx, adapters, 1, (ctypes.c_float * 1)(1.0)):
                raise backend_error("cannot apply the LoRA adapter to a context of its own")
        batch = _internals.LlamaBatch(n_tokens=tokens, embd=0, n_seq_max=sequences, verbose=False)
        return cls(context, batch, sequences, tokens)


class Likelihoods:
    """Log-likelihoods of continuations under `llm` (a llama_cpp.Llama) with its adapter."""

    def __init__(self, llm: Any, llama_cpp: Any, side: SideContext) -> None:
        self._llama_cpp, self.sequences, self.tokens = llama_cpp, side.sequences, side.tokens
        self._context, self._batch = side.context, side.batch
        self._vocabulary = llm.n_vocab()

    def score(self, items: Sequence[tuple[Tokens, Sequence[Tokens]]], threads: int) -> list[list[float]]:
        """Per item (a prompt and its continuations), each continuation's log-probability."""
        self._llama_cpp.llama_set_n_threads(self._context.ctx, threads, threads)
        result = []
        for prompt, continuations in items:
            trie = _Trie()
            if len(continuations) > self.sequences or trie.cost(prompt, continuations) > self.tokens:
                raise backend_error(f"a prompt and its {len(continuations)} continuations are too "
                                    f"long to score together (more than {self.tokens} tokens)")
            for continuation in continuations:
                trie.add(prompt, continuation)
            result.append(self._decode(trie))
        return result

    def _decode(self, trie: _Trie) -> list[float]:
        if not trie.sequences:
            return []
        batch = self._batch.batch
        rows: dict[int, int] = {}  # entry -> its row among the logits read back
        for i, (key, sequences) in enumerate(trie.entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i] = key[-1], len(key) - 1, len(sequences)
            for j, sequence in enumerate(sequences):
                batch.seq_id[i][j] = sequence
            wanted = any(len(key) >= trie.sequences[s][1] for s in sequences)  # reads a continuation
            batch.logits[i] = wanted
            if wanted:
                rows[i] = len(rows)
        batch.n_tokens = len(trie.entries)
        self._context.kv_cache_clear()
        self._context.decode(self._batch)
        pointer = self._llama_cpp.llama_get_logits(self._context.ctx)
        logits = np.ctypeslib.as_array(pointer, shape=(len(rows), self._vocabulary))
        normaliser = _log_sum_exp(logits)
        scores = []
        for tokens, prompt in trie.sequences:
            positions = [rows[trie.index[tokens[:end]]] for end in range(prompt, len(tokens))]
            targets = list(tokens[prompt:])
            picked = logits[positions, targets].astype(np.float64)
            scores.append(float((picked - normaliser[positions]).sum()))
        return scores


def _log_sum_exp(logits: np.ndarray[Any, np.dtype[np.float32]]) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Per row, the log of the sum of the exponentials: the log-softmax's normaliser.  Gemma 3's
    rows are 262,144 logits: exponentiated in float32, in place, and summed in float64, they
    cost a third of what a float64 copy of them did, and differ from it by about 1e-7."""
    top = logits.max(axis=1)
    shifted = np.subtract(logits, top[:, None])
    np.exp(shifted, out=shifted)
    normaliser: np.ndarray[Any, np.dtype[np.float64]] = np.log(shifted.sum(axis=1, dtype=np.float64))
    normaliser += top
    return normaliser
