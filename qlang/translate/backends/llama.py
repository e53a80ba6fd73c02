"""llama.cpp through llama-cpp-python: local GGUF models, on the CPU or offloaded to a GPU.

Grammars are GBNF (llama.cpp's own engine, compiled once per grammar text) or Lark (the
llguidance engine, as a logits processor).  Prompts sharing a prefix with the previous
one (the system prompt, common examples) reuse llama.cpp's KV cache.
"""

from __future__ import annotations

import os
import time
import warnings
from pathlib import Path
from typing import Any

from qlang.translate.backends import Generation, Request, backend_error
from qlang.translate.backends.guidance import GrammarMask
from qlang.translate.models import gguf_path


class LlamaCppBackend:
    name = "llama-cpp"

    def __init__(self, model: str | None = None, *, n_gpu_layers: int = 0, n_ctx: int = 4096,
                 seed: int = 0, threads: int | None = None, lora: str | None = None) -> None:
        # ggml's OpenMP threads spin while they wait; on a busy machine (CI, a parallel test, a
        # second model) spinning threads steal each other's cores and decoding slows down
        # several-fold.  Passive waiting costs little when the machine is idle.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import llama_cpp
        except ImportError as exc:
            raise backend_error(f"llama-cpp-python is not installed ({exc}); run `make install`") from None
        self._llama_cpp: Any = llama_cpp  # typed loosely: its stubs disagree with its runtime
        path = gguf_path(model)
        # `lora`: a GGUF LoRA adapter that llama.cpp applies on top of the base model.
        if lora is not None and not Path(lora).is_file():
            raise backend_error(f"no GGUF LoRA adapter at {lora}")
        self.model = path.name if lora is None else f"{path.name}+{Path(lora).name}"
        self.llm: Any = llama_cpp.Llama(
            model_path=str(path), n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, seed=seed,
            n_threads=threads or os.cpu_count(), lora_path=lora, verbose=False)
        self._grammars: dict[str, Any] = {}
        self._guidance_tokenizer: Any = None

    def _grammar(self, gbnf: str | None) -> Any:
        if gbnf is None:
            return None
        if gbnf not in self._grammars:
            self._grammars[gbnf] = self._llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)
        return self._grammars[gbnf]

    def _processors(self, lark: str | None) -> Any:
        """llguidance's mask for the Lark grammar, if the request asks for that engine."""
        if lark is None:
            return None
        if self._guidance_tokenizer is None:
            import llguidance.llamacpp

            with warnings.catch_warnings():  # it calls a llama.cpp function deprecated in 0.3.x
                warnings.simplefilter("ignore", DeprecationWarning)
                self._guidance_tokenizer = llguidance.llamacpp.lltokenizer_from_vocab(
                    self._llama_cpp.llama_model_get_vocab(self.llm.model))
        return self._llama_cpp.LogitsProcessorList([GrammarMask(self._guidance_tokenizer, lark)])

    def generate(self, request: Request) -> Generation:
        options: dict[str, Any] = {"max_tokens": request.max_tokens, "temperature": 0.0,
                                   "grammar": self._grammar(request.gbnf),
                                   "logits_processor": self._processors(request.lark)}
        start = time.perf_counter()
        if request.chat:
            messages = [{"role": role, "content": content} for role, content in request.messages]
            result = self.llm.create_chat_completion(messages=messages, **options)
            text = result["choices"][0]["message"]["content"] or ""
        else:
            result = self.llm(request.completion, **options)
            text = result["choices"][0]["text"]
        usage = result["usage"]
        return Generation(text, usage["prompt_tokens"], usage["completion_tokens"],
                          time.perf_counter() - start)
