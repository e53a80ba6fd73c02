"""Greedy generation of several requests at once: one llama.cpp batch a step for all of them.

`LlamaCppBackend.generate` runs one request to its end before the next starts, so a batch of
questions costs one full pass of the model per token per question, and on a busy machine each
pass waits for the scheduler.  Here every request is a sequence of its own in one context: their
prompts are decoded in one batch, then each step decodes the next token of every sequence still
running in one batch, each chosen as `create_completion` chooses at temperature 0 (the most
likely token its grammar allows, llguidance's mask), and each stopping where it would (the end
of text, `max_tokens`, the backend's `Repetition`).  The programs are those of one-by-one
generation up to the float rounding of batched arithmetic, which does move near ties: of the
314 GQA dev questions through the fine-tuned translator in batches of 32, 7 programs differ
(291 exact one by one, 288 together; 291 in batches of 8), so it is the backend's `together`
(`translate --together`), not the default.

It runs in a context of its own on the backend's model (and LoRA adapter), as scoring does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qlang.translate.backends import backend_error
from qlang.translate.backends.guidance import GrammarMask
from qlang.translate.backends.likelihood import SideContext


@dataclass
class Running:
    """One request being generated: its prompt, its mask, and the tokens chosen so far."""

    prompt: list[int]
    mask: GrammarMask | None
    max_tokens: int
    tokens: list[int] = field(default_factory=list)
    done: bool = False

    def choose(self, logits: np.ndarray, end: int, repeated: Callable[[Sequence[int]], bool]) -> int | None:
        """The next token (None: the sequence has ended), as greedy decoding picks it."""
        scores = logits.astype(np.float32)  # the mask writes into its own copy
        if self.mask is not None:
            self.mask(np.asarray(self.prompt + self.tokens, dtype=np.intc), scores)
        token = int(np.argmax(scores))
        if token == end or not np.isfinite(scores[token]):
            self.done = True
            return None
        self.tokens.append(token)
        self.done = len(self.tokens) >= self.max_tokens or repeated(self.tokens)
        return token


class Greedy:
    """Batched greedy generation under `llm` (a llama_cpp.Llama) in `side`, a context of its own
    (`likelihood.SideContext`, which scoring uses too)."""

    def __init__(self, llm: Any, llama_cpp: Any, side: SideContext) -> None:
        self._llm, self._llama_cpp = llm, llama_cpp
        self._context, self._batch = side.context, side.batch
        self.sequences, self.tokens = side.sequences, side.tokens
        self._vocabulary = llm.n_vocab()

    def generate(self, requests: Sequence[Running], threads: int,
                 repeated: Callable[[Sequence[int]], bool]) -> list[float]:
        """Generate every request in place (its `tokens`), as many at a time as the context
        holds; each one's share of the seconds taken."""
        self._llama_cpp.llama_set_n_threads(self._context.ctx, threads, threads)
        seconds: list[float] = []
        group: list[Running] = []
        for request in requests:
            need = len(request.prompt) + request.max_tokens
            if need > self.tokens:
                raise backend_error(f"a prompt of {len(request.prompt)} tokens and {request.max_tokens} "
                                    f"to generate do not fit the context ({self.tokens} tokens)")
            if group and (len(group) == self.sequences
                          or sum(len(r.prompt) + r.max_tokens for r in group) + need > self.tokens):
                seconds += self._run(group, repeated)
                group = []
            group.append(request)
        if group:
            seconds += self._run(group, repeated)
        return seconds

    def _run(self, group: list[Running], repeated: Callable[[Sequence[int]], bool]) -> list[float]:
        start = time.perf_counter()
        self._context.kv_cache_clear()
        end = self._llm.token_eos()
        entries = [(token, position, s) for s, request in enumerate(group)
                   for position, token in enumerate(request.prompt)]
        wanted = {s: len(request.prompt) - 1 for s, request in enumerate(group)}  # prompt ends
        while entries:
            logits = self._decode(entries, wanted)
            entries, wanted = [], {}
            for s, row in logits.items():
                request = group[s]
                token = request.choose(row, end, repeated)
                if token is not None and not request.done:
                    position = len(request.prompt) + len(request.tokens) - 1
                    entries.append((token, position, s))
                    wanted[s] = position
        share = (time.perf_counter() - start) / len(group)
        return [share] * len(group)

    def _decode(self, entries: list[tuple[int, int, int]], wanted: dict[int, int]) -> dict[int, np.ndarray]:
        """One llama_decode of `entries` (token, position, sequence); the logits of each
        sequence's entry at its `wanted` position."""
        batch = self._batch.batch
        rows: dict[int, int] = {}
        for i, (token, position, s) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, position, 1
            batch.seq_id[i][0] = s
            batch.logits[i] = wanted.get(s) == position
            if batch.logits[i]:
                rows[s] = len(rows)
        batch.n_tokens = len(entries)
        self._context.decode(self._batch)
        pointer = self._llama_cpp.llama_get_logits(self._context.ctx)
        logits = np.ctypeslib.as_array(pointer, shape=(len(rows), self._vocabulary))
        return {s: logits[row].copy() for s, row in rows.items()}
