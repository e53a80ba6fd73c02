"""Whether llama.cpp's own grammar engine lets a text through: the GBNF grammars' real test.

A text is tokenized with a model's vocabulary and fed token by token to llama.cpp's grammar
sampler, exactly as constrained decoding would: each token must survive `llama_sampler_apply`
(it is not masked to -inf) before `llama_sampler_accept` advances the grammar; at the end the
end-of-generation token must be allowed, so the text is a whole program, not a prefix.  Only
the vocabulary is loaded (`vocab_only`), so checking costs no weights and no inference.
"""

from __future__ import annotations

import ctypes
import math
import time
import warnings
from pathlib import Path
from typing import Any

from qlang.translate.backends import backend_error
from qlang.translate.models import gguf_model


class GrammarChecker:
    """A compiled GBNF grammar and a vocabulary; `rejection(text)` says where a text fails."""

    def __init__(self, gbnf: str, model: str | Path | None = None, root: str = "root") -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise backend_error(f"llama-cpp-python is not installed ({exc}); "
                                "pip install 'qlang[translate]'") from None
        from llama_cpp._logger import set_verbose

        set_verbose(False)  # errors only: a rejected grammar still says why on stderr
        self._llama = llama_cpp
        llama_cpp.llama_backend_init()
        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        path = gguf_model(str(model) if model else None).path
        self._model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
        if not self._model:
            raise backend_error("llama.cpp could not load the model's vocabulary")
        self._vocab = llama_cpp.llama_model_get_vocab(self._model)
        self._eos = llama_cpp.llama_vocab_eos(self._vocab)
        # Parsed once; every check works on a clone (a copy of the rules, no re-parsing).
        self._grammar = llama_cpp.llama_sampler_init_grammar(self._vocab, gbnf.encode(), root.encode())
        if not self._grammar:
            raise backend_error("llama.cpp's grammar parser rejected the grammar")

    def tokens(self, text: str) -> list[int]:
        data = text.encode()
        buffer = (self._llama.llama_token * (len(data) + 8))()
        count = self._llama.llama_tokenize(self._vocab, data, len(data), buffer, len(buffer),
                                           False, False)
        if count < 0:
            raise backend_error(f"cannot tokenize {text!r}")
        return list(buffer[:count])

    def piece(self, token: int) -> str:
        buffer = ctypes.create_string_buffer(64)
        size = self._llama.llama_token_to_piece(self._vocab, token, buffer, len(buffer), 0, True)
        return buffer.raw[:size].decode(errors="replace")

    def _allowed(self, sampler: Any, token: int) -> bool:
        """Whether the grammar leaves `token` its logit: a one-candidate array, masked or not."""
        candidate = self._llama.llama_token_data(token, 0.0, 0.0)
        candidates = self._llama.llama_token_data_array(
            data=ctypes.pointer(candidate), size=1, selected=-1, sorted=False)
        self._llama.llama_sampler_apply(sampler, ctypes.byref(candidates))
        return not math.isinf(candidate.logit)

    def rejection(self, text: str) -> str | None:
        """None when the grammar accepts the whole text; else what was refused, in context."""
        sampler = self._llama.llama_sampler_clone(self._grammar)
        try:
            done = ""
            for token in self.tokens(text):
                if not self._allowed(sampler, token):
                    return f"token {self.piece(token)!r} refused after {done!r}"
                self._llama.llama_sampler_accept(sampler, token)
                done += self.piece(token)
            if not self._allowed(sampler, self._eos):
                return f"the text {done!r} is incomplete: end of generation refused"
            return None
        finally:
            self._llama.llama_sampler_free(sampler)

    def mask_seconds(self, text: str) -> list[float]:
        """Per token of `text`, how long the grammar takes to mask the whole vocabulary.

        That is the grammar's share of each decoding step, free of the model's: what the
        benchmark compares between grammar forms.
        """
        size = self._llama.llama_vocab_n_tokens(self._vocab)
        pristine = (self._llama.llama_token_data * size)(*((t, 0.0, 0.0) for t in range(size)))
        work = (self._llama.llama_token_data * size)()
        candidates = self._llama.llama_token_data_array(
            data=ctypes.cast(work, ctypes.POINTER(self._llama.llama_token_data)), size=size,
            selected=-1, sorted=False)
        sampler = self._llama.llama_sampler_clone(self._grammar)
        seconds = []
        try:
            for token in self.tokens(text):
                ctypes.memmove(work, pristine, ctypes.sizeof(work))
                start = time.perf_counter()
                self._llama.llama_sampler_apply(sampler, ctypes.byref(candidates))
                seconds.append(time.perf_counter() - start)
                self._llama.llama_sampler_accept(sampler, token)
        finally:
            self._llama.llama_sampler_free(sampler)
        return seconds

    def compile_seconds(self, gbnf: str, root: str = "root") -> float:
        """How long llama.cpp takes to parse `gbnf` into a grammar sampler (freed again)."""
        start = time.perf_counter()
        sampler = self._llama.llama_sampler_init_grammar(self._vocab, gbnf.encode(), root.encode())
        seconds = time.perf_counter() - start
        if not sampler:
            raise backend_error("llama.cpp's grammar parser rejected the grammar")
        self._llama.llama_sampler_free(sampler)
        return seconds

    def guidance_tokenizer(self) -> Any:
        """The vocabulary as llguidance's tokenizer, to compile the Lark form against."""
        import llguidance.llamacpp

        with warnings.catch_warnings():  # it calls a llama.cpp function deprecated in 0.3.x
            warnings.simplefilter("ignore", DeprecationWarning)
            return llguidance.llamacpp.lltokenizer_from_vocab(self._vocab)

    def accepts(self, text: str) -> bool:
        return self.rejection(text) is None

    def close(self) -> None:
        self._llama.llama_sampler_free(self._grammar)
        self._llama.llama_model_free(self._model)
