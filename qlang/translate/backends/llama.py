"""llama.cpp through llama-cpp-python: local GGUF models, on the CPU or offloaded to a GPU.

Grammars are GBNF (llama.cpp's own engine) or Lark (the llguidance engine, as a logits
processor), either compiled once per grammar text.  Prompts sharing a prefix with the previous
one (the system prompt, common examples) reuse llama.cpp's KV cache.

Chat prompts are rendered here rather than by `create_chat_completion`, for two reasons.  A
GGUF without a chat template gets llama-cpp-python's Llama 2 ``[INST]`` fallback, and its own
``gemma`` format drops the system prompt: Gemma 3 270M, whose GGUF has no template, then loops
``and(and(and(...`` under the grammar.  So the template is the GGUF's own, else its model
family's (`prompts.CHAT_TEMPLATES`), else there is none and the model gets the completion
prompt.  And the chat API takes no stopping criterion, which `Repetition` needs.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from qlang.translate import gguf_file
from qlang.translate.backends import Generation, Request, backend_error
from qlang.translate.backends.cores import free_cores
from qlang.translate.backends.greedy import Greedy, Running
from qlang.translate.backends.guidance import GrammarMask, Grammars
from qlang.translate.backends.likelihood import Likelihoods, SideContext
from qlang.translate.models import gguf_model
from qlang.translate.prompts import CHAT_TEMPLATES

Messages = Sequence[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Repetition:
    """Whether generated tokens have degenerated into a loop, so generation stops early.

    A loop is one block of at most `period` tokens repeated `times` times in a row at the end
    of the output, the copies covering at least `span` tokens (short blocks need more copies):
    ``and(and(and(and(`` or one sub-expression written again and again.  The output so far is
    kept, and the checker locates where it breaks off instead of the decoder burning the whole
    token budget.  No real program comes near: the 3,091 gold programs, printed in every syntax
    and tokenized by both bundled models, never have a block more than twice in a row, nor
    copies covering more than 6 tokens.
    """

    times: int = 4
    period: int = 32
    span: int = 16

    def __call__(self, tokens: Sequence[int]) -> bool:
        for period in range(1, self.period + 1):
            length = period * max(self.times, -(-self.span // period))
            if length <= len(tokens):
                tail = list(tokens[len(tokens) - length:])
                if tail == tail[:period] * (length // period):
                    return True
        return False


def chat_formatter(template: str, bos: str, eos: str) -> Callable[[Messages], str]:
    """(role, content) messages -> the prompt text, as the Jinja chat `template` writes it.

    Rendered by llama-cpp-python's formatter, with Hugging Face's conventions, ending with the
    assistant's turn opened.
    """
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    # typed loosely: its message TypedDicts refuse plain dicts
    formatter: Any = Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos)

    def render(messages: Messages) -> str:
        prompt: str = formatter(messages=[{"role": r, "content": c} for r, c in messages]).prompt
        return prompt

    return render


#: llama.cpp's log levels (ggml.h) that `_errors_only` lets through: an error, and what continues one
_ERROR, _CONTINUED = 4, 5


@cache
def _errors_only(llama_cpp: Any) -> Any:
    """Let llama.cpp log only its errors, to stderr; returns the callback, which must live as
    long as the process.  llama-cpp-python's quiet mode compares the levels by their old
    numbers (warn was 2, it is 3), so every load of Gemma 3 with its adapter printed 28
    warnings (a sliding-window cache, a LoRA tensor per layer on a repacked base) to users'
    terminals; what a failed load says, it says in the error qlang reports."""
    last = [_ERROR]

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def log(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        if level != _CONTINUED:
            last[0] = level
        if last[0] == _ERROR:
            sys.stderr.write(text.decode("utf-8", "replace"))

    llama_cpp.llama_log_set(log, ctypes.c_void_p(0))
    return log


class LlamaCppBackend:
    name = "llama-cpp"

    def __init__(self, model: str | None = None, *, n_gpu_layers: int = 0, n_ctx: int = 4096,
                 seed: int = 0, threads: int | None = None, lora: str | None = None,
                 repetition: Repetition = Repetition(), together: bool = False) -> None:
        # ggml's OpenMP threads wait for each other after every operation, hundreds of times a
        # token.  Spinning forever (ACTIVE) steals the cores of a busy machine (CI, a second
        # model) and slows decoding several-fold; sleeping at once (PASSIVE) pays a wake-up per
        # operation, which doubles a small model's time per token on an idle machine.  A short
        # spin, then sleep, is the best of both (SmolLM2 + adapter, 2 cores: 17 ms a token idle,
        # against 36 passive).
        os.environ.setdefault("GOMP_SPINCOUNT", "10000")
        try:
            import llama_cpp
        except ImportError as exc:
            raise backend_error(f"llama-cpp-python is not installed ({exc}); "
                                "pip install 'qlang[translate]'") from None
        self._llama_cpp: Any = llama_cpp  # typed loosely: its stubs disagree with its runtime
        _errors_only(llama_cpp)
        #: the threads asked for (None: the cores free at each request, `free_cores`)
        self.threads = threads
        base = gguf_model(model)
        path = base.path
        # `lora`: a GGUF LoRA adapter that llama.cpp applies on top of the base model.  One it
        # refuses crashes the process later (see `gguf_file`), so it is checked first.
        if lora is not None:
            if not Path(lora).is_file():
                raise backend_error(f"no GGUF LoRA adapter at {lora}")
            gguf_file.check_adapter(gguf_file.read(Path(lora)), base)
        self.model = path.name if lora is None else f"{path.name}+{Path(lora).name}"
        try:
            self.llm: Any = llama_cpp.Llama(
                model_path=str(path), n_ctx=n_ctx, n_gpu_layers=n_gpu_layers, seed=seed,
                n_threads=threads or os.cpu_count(), lora_path=lora, verbose=False)
        except (ValueError, RuntimeError) as exc:  # llama.cpp's word for a file that is no model
            raise backend_error(f"cannot load the model {self.model}: {exc}") from None
        self.repetition = repetition
        #: `generate_many` decodes its requests together (else one after another: batched
        #: arithmetic rounds otherwise, so a near tie may fall another way; the shipped
        #: calibration was made one by one)
        self.together = together
        self._chat = self._chat_formatter()
        self._grammars: dict[str, Any] = {}
        self._guidance: Grammars | None = None
        self._side: SideContext | None = None

    def _chat_formatter(self) -> Callable[[Messages], str] | None:
        metadata = self.llm.metadata
        template = (metadata.get("tokenizer.chat_template")
                    or CHAT_TEMPLATES.get(metadata.get("general.architecture", "")))
        if template is None:
            return None
        bos, eos = (self.llm.detokenize([t], special=True).decode(errors="replace")
                    for t in (self.llm.token_bos(), self.llm.token_eos()))
        return chat_formatter(template, bos, eos)

    def tokens(self, request: Request) -> list[int]:
        """The prompt's tokens: the chat in the model's template (it writes BOS if it wants
        one), else the completion text after BOS."""
        if request.chat and self._chat is not None:
            return list(self.llm.tokenize(self._chat(request.messages).encode(), add_bos=False,
                                          special=True))
        return list(self.llm.tokenize(request.completion.encode(), add_bos=True, special=True))

    def _grammar(self, gbnf: str | None) -> Any:
        if gbnf is None:
            return None
        if gbnf not in self._grammars:
            self._grammars[gbnf] = self._llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)
        return self._grammars[gbnf]

    def _processors(self, lark: str | None) -> Any:
        """llguidance's mask for the Lark grammar, if the request asks for that engine."""
        mask = self._mask(lark)
        return None if mask is None else self._llama_cpp.LogitsProcessorList([mask])

    def _mask(self, lark: str | None) -> GrammarMask | None:
        if lark is None:
            return None
        if self._guidance is None:
            import llguidance.llamacpp

            with warnings.catch_warnings():  # it calls a llama.cpp function deprecated in 0.3.x
                warnings.simplefilter("ignore", DeprecationWarning)
                self._guidance = Grammars(llguidance.llamacpp.lltokenizer_from_vocab(
                    self._llama_cpp.llama_model_get_vocab(self.llm.model)))
        return self._guidance.mask(lark)

    def _stop(self, prompt_length: int) -> Any:
        """Stops on `repetition` in the generated tokens (llama.cpp passes the prompt's too)."""
        def degenerate(ids: Any, _logits: Any) -> bool:
            return self.repetition(ids[prompt_length:])

        return self._llama_cpp.StoppingCriteriaList([degenerate])

    def _threads(self) -> int:
        return self.threads or free_cores()

    def likelihoods(self, requests: Sequence[Request],
                    continuations: Sequence[Sequence[str]]) -> list[list[float]]:
        """Per request, the log-probability the model gives each continuation (its tokens, then
        the end of the text) after the request's prompt: every request scored in one batch."""
        def ended(text: str) -> list[int]:
            return [*self.llm.tokenize(text.encode(), add_bos=False, special=False), self.llm.token_eos()]

        items = [(self.tokens(request), [ended(text) for text in texts])
                 for request, texts in zip(requests, continuations, strict=True)]
        return Likelihoods(self.llm, self._llama_cpp, self._side_context()).score(items, self._threads())

    def _side_context(self) -> SideContext:
        """The context scoring and batched generation share (opened when first needed)."""
        if self._side is None:
            self._side = SideContext.open(self.llm, self._llama_cpp)
        return self._side

    def generate(self, request: Request) -> Generation:
        prompt = self.tokens(request)
        threads = self._threads()
        self._llama_cpp.llama_set_n_threads(self.llm.ctx, threads, threads)
        start = time.perf_counter()
        try:
            result = self.llm.create_completion(
                prompt, max_tokens=request.max_tokens, temperature=0.0,
                grammar=self._grammar(request.gbnf), logits_processor=self._processors(request.lark),
                stopping_criteria=self._stop(len(prompt)))
        except ValueError as exc:  # e.g. a prompt longer than the context
            raise backend_error(f"{self.model}: {exc}") from None
        usage = result["usage"]
        return Generation(result["choices"][0]["text"], usage["prompt_tokens"],
                          usage["completion_tokens"], time.perf_counter() - start)

    def generate_many(self, requests: Sequence[Request]) -> list[Generation]:
        """`generate` of each request; with `together`, those under a Lark grammar (or none)
        decoded together, a step of all of them in one batch (`greedy`), and one under GBNF,
        whose engine llama.cpp runs inside its own sampler, on its own."""
        together = [i for i, request in enumerate(requests) if request.gbnf is None and self.together]
        running = [Running(self.tokens(requests[i]), self._mask(requests[i].lark), requests[i].max_tokens)
                   for i in together]
        seconds = Greedy(self.llm, self._llama_cpp, self._side_context()).generate(
            running, self._threads(), self.repetition) if running else []
        generations: dict[int, Generation] = {}
        for i, run, taken in zip(together, running, seconds, strict=True):
            text = self.llm.detokenize(run.tokens, prev_tokens=run.prompt).decode("utf-8", errors="ignore")
            generations[i] = Generation(text, len(run.prompt), len(run.tokens), taken)
        return [generations[i] if i in generations else self.generate(request)
                for i, request in enumerate(requests)]
