"""The bundled language model as a reader of documents: `qlang.text.extract.Constrained`'s
model, SmolLM2-135M-Instruct through llama.cpp as the translator runs it (without the
translator's adapter, which writes programs, not answers).

Constrained extraction chooses each token itself among those its automaton allows, so it needs
the model's logits after a prefix, not a sampled completion: `logits` evaluates only what the
prefix adds to what llama.cpp's cache holds (the prompt is evaluated once, each answer token
once), and reads the last position's logits.
"""

from __future__ import annotations

import atexit
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from qlang.text.extract import Constrained
from qlang.translate.backends import Request
from qlang.translate.backends.llama import LlamaCppBackend


class LlamaReader:
    """A llama.cpp model as `qlang.text.extract.LanguageModel`."""

    def __init__(self, backend: LlamaCppBackend) -> None:
        import llama_cpp

        self._llama_cpp: Any = llama_cpp
        self.backend = backend
        self.llm: Any = backend.llm
        self.eos: int = int(self.llm.token_eos())
        atexit.register(self.llm.close)  # while llama.cpp can still free it (not in __del__ at exit)

    def prompt(self, messages: Sequence[tuple[str, str]]) -> list[int]:
        completion = "".join(f"{content}\n" for _, content in messages)
        return self.backend.tokens(Request(tuple(messages), completion))

    def tokenize(self, text: str) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def logits(self, tokens: Sequence[int]) -> np.ndarray:
        cached = self.llm.n_tokens
        same = 0
        held = self.llm.input_ids[:cached]
        while same < min(cached, len(tokens)) and held[same] == tokens[same]:
            same += 1
        same = min(same, len(tokens) - 1)  # at least one token evaluated, for fresh logits
        self.llm.n_tokens = same
        self.llm.eval(list(tokens[same:]))
        row = self._llama_cpp.llama_get_logits_ith(self.llm.ctx, -1)
        return np.ctypeslib.as_array(row, shape=(self.llm.n_vocab(),)).copy()


@cache
def constrained(model: str | None = None) -> Constrained:
    """The constrained extractor over the bundled model (or a GGUF `model`), loaded once."""
    # One thread: a prompt of a few sentences and an answer of a few tokens are little work,
    # and on a busy 2-core machine two threads waiting on each other took 4.8 s a question
    # against 1.8 s on one (median of six, at a load of 14).
    return Constrained(LlamaReader(LlamaCppBackend(model, n_ctx=2048, threads=1)))
