"""llguidance as a logits processor: the faster engine for grammar-constrained decoding.

llama.cpp's GBNF engine walks the grammar for every candidate token; llguidance compiles the
Lark form of the same grammar once and computes each step's token mask in Rust, so large word
alternations (the GQA vocabulary) cost far less.  Works with any backend that hands us the
token ids so far and the next-token scores (llama-cpp-python's and transformers' processors).
"""

from __future__ import annotations

from typing import Any

import numpy

from qlang.translate.backends import backend_error


class Grammars:
    """llguidance's matchers for one tokenizer: each grammar compiled once (30-50 ms for the
    decoding grammars, every request paid it) and copied for each request (under 1 ms)."""

    #: compiled grammars kept (a translator asks with one or two)
    KEEP = 8

    def __init__(self, tokenizer: Any) -> None:
        try:
            import llguidance
            import llguidance.numpy
        except ImportError as exc:
            raise backend_error(f"llguidance is not installed ({exc}); pip install 'qlang[translate]'") \
                from None
        self._lg = llguidance
        self.tokenizer = tokenizer
        self._compiled: dict[str, Any] = {}

    def mask(self, lark: str) -> GrammarMask:
        """A fresh mask for one request under the grammar `lark` (its Lark form)."""
        compiled = self._compiled.get(lark)
        if compiled is None:
            compiled = self._lg.LLMatcher(self.tokenizer, self._lg.LLMatcher.grammar_from_lark(lark))
            if compiled.is_error():
                raise backend_error(f"llguidance rejected the grammar: {compiled.get_error()}")
            if len(self._compiled) >= self.KEEP:
                del self._compiled[next(iter(self._compiled))]
            self._compiled[lark] = compiled
        return GrammarMask(self._lg, compiled.deep_copy(), self.tokenizer.vocab_size)


class GrammarMask:
    """Called with (token ids so far, next-token scores); leaves only grammatical tokens."""

    def __init__(self, llguidance: Any, matcher: Any, vocab_size: int) -> None:
        self._lg = llguidance
        self.matcher = matcher
        self.vocab_size = vocab_size
        self.prompt_length: int | None = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        ids = input_ids[0] if getattr(input_ids, "ndim", 1) == 2 else input_ids
        if self.prompt_length is None:
            self.prompt_length = len(ids)
        elif len(ids) > self.prompt_length:
            self.matcher.consume_token(int(ids[-1]))
            self.prompt_length = len(ids)
        if isinstance(scores, numpy.ndarray):  # llama-cpp-python
            bitmask = self._lg.numpy.allocate_token_bitmask(1, self.vocab_size)
            self._lg.numpy.fill_next_token_bitmask(self.matcher, bitmask, 0)
            self._lg.numpy.apply_token_bitmask_inplace(scores, bitmask)
        else:  # a torch tensor (transformers); importing torch costs seconds, so only here
            from llguidance import torch as torch_masks

            mask = torch_masks.allocate_token_bitmask(1, self.vocab_size)
            torch_masks.fill_next_token_bitmask(self.matcher, mask, 0)
            torch_masks.apply_token_bitmask_inplace(scores, mask.to(scores.device))
        return scores
