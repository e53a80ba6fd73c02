"""transformers: a local model directory (no hub) or a bundled GGUF model dequantised, greedy
decoding on the CPU or a GPU, with a LoRA adapter merged into the weights.

Constrained decoding uses llguidance with the Lark form of the grammar (see `guidance`): each
grammar is compiled once per grammar text (`Grammars`) and every request gets a copy of it.
`generate` runs one request through transformers' `generate`, the mask as a logits processor.
`generate_many` decodes many together (`Together`): one forward pass a step for all of them.
`likelihoods` scores given continuations, as llama.cpp's backend does for the cascade's
rescoring, so the cascade on this backend chooses as it does on llama.cpp.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qlang.errors import error
from qlang.translate.backends import BackendError, Generation, Request, backend_error
from qlang.translate.backends.batched import Generating, Together
from qlang.translate.backends.guidance import Grammars


class TransformersBackend:
    name = "transformers"

    def __init__(self, model: str | None = None, *, device: str = "cpu", lora: str | None = None,
                 batch: int = 32) -> None:
        """`model`: a transformers directory, or a GGUF model (a bundled name, a path; None:
        the default) dequantised once (`models.hf_directory`); `lora`: a PEFT folder or a GGUF
        adapter, merged; `batch`: the most requests `generate_many` and `likelihoods` run in
        one forward pass."""
        try:
            import torch
            import transformers
            from safetensors import SafetensorError
        except ImportError as exc:
            raise backend_error(f"transformers is not installed ({exc}); pip install 'qlang[translate]'") \
                from None
        directory = self._directory(model)
        self._torch = torch
        self.model = directory.name + (f"+{Path(lora).name}" if lora else "")
        auto: Any = transformers  # typed loosely: its overloads do not fit a generic caller
        try:
            from qlang.translate.backends.vllm_engine import byte_level_tokenizer

            self.tokenizer: Any = auto.AutoTokenizer.from_pretrained(
                str(byte_level_tokenizer(directory)), local_files_only=True)
            self.lm: Any = auto.AutoModelForCausalLM.from_pretrained(str(directory), local_files_only=True)
        except (OSError, ValueError, SafetensorError) as exc:  # files missing, unreadable or cut short
            raise error(BackendError, "backend", f"cannot load the model ({exc})", path=str(directory)) \
                from None
        if lora is not None:
            self.lm = self._merged(self.lm, lora, directory)
        self.lm.to(device).eval()
        #: the token that ends a text: the model's own, where `generate` stops (transformers
        #: 5.17 writes a GGUF's tokenizer with <|im_start|> as its end token: the grammar's
        #: end would never stop a generation, nor would a scored program end)
        ends = self.lm.generation_config.eos_token_id
        ends = self.tokenizer.eos_token_id if ends is None else ends
        self.end: int = ends if isinstance(ends, int) else ends[0]
        self.device = device
        self.batch = batch
        self._guidance: Grammars | None = None
        self._together: Together | None = None

    @staticmethod
    def _directory(model: str | None) -> Path:
        if model is not None and Path(model).is_dir():
            return Path(model)
        from qlang.translate.models import hf_directory

        return hf_directory(model)

    @staticmethod
    def _merged(lm: Any, lora: str, directory: Path) -> Any:
        """The model with the LoRA adapter's product added into its weights: the same
        arithmetic on every token as the adapter beside them, none of its cost."""
        try:
            from peft import PeftModel
        except ImportError as exc:
            raise backend_error(f"peft is not installed ({exc}): it applies the LoRA adapter") from None
        from qlang.translate.backends.vllm_engine import peft_adapter

        return PeftModel.from_pretrained(lm, str(peft_adapter(lora, directory))).merge_and_unload()

    def _batched(self) -> Together:
        if self._together is None:
            self._together = Together(self.lm, self._torch, self.device, self.end)
        return self._together

    def _grammars(self) -> Grammars:
        if self._guidance is None:
            import llguidance.hf

            self._guidance = Grammars(llguidance.hf.from_tokenizer(self.tokenizer, eos_token=self.end))
        return self._guidance

    def _prompt(self, request: Request) -> str:
        if request.chat and self.tokenizer.chat_template:
            messages = [{"role": r, "content": c} for r, c in request.messages]
            text: str = self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                            add_generation_prompt=True)
            return text
        return request.completion

    def tokens(self, request: Request) -> list[int]:
        """The prompt's tokens, as `generate` hands them to the model."""
        ids: list[int] = self.tokenizer(self._prompt(request))["input_ids"]
        return ids

    def generate(self, request: Request) -> Generation:
        inputs = self.tokenizer(self._prompt(request), return_tensors="pt").to(self.device)
        processors = [] if request.lark is None else [self._grammars().mask(request.lark)]
        start = time.perf_counter()
        with self._torch.no_grad():
            output = self.lm.generate(
                **inputs, max_new_tokens=request.max_tokens, do_sample=False,
                logits_processor=processors, pad_token_id=self.end)
        new = output[0, inputs["input_ids"].shape[1]:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        return Generation(text, int(inputs["input_ids"].shape[1]), int(new.shape[0]),
                          time.perf_counter() - start)

    def generate_many(self, requests: Sequence[Request]) -> list[Generation]:
        """`generate` of each request, `batch` of them decoded together (`Together`); each is
        charged its share of its batch's time."""
        generations: list[Generation] = []
        for first in range(0, len(requests), self.batch):
            chunk = requests[first:first + self.batch]
            rows = [Generating(self.tokens(r), None if r.lark is None else self._grammars().mask(r.lark),
                        r.max_tokens) for r in chunk]
            start = time.perf_counter()
            self._batched().generate(rows)
            share = (time.perf_counter() - start) / len(rows)
            generations += [Generation(self.tokenizer.decode(row.tokens, skip_special_tokens=True),
                                       len(row.prompt), len(row.tokens), share) for row in rows]
        return generations

    def likelihoods(self, requests: Sequence[Request],
                    continuations: Sequence[Sequence[str]]) -> list[list[float]]:
        """Per request, the log-probability the model gives each continuation (its tokens, then
        the end of the text) after the request's prompt, `batch` sequences a forward pass."""
        def ended(text: str) -> list[int]:
            return [*self.tokenizer(text, add_special_tokens=False)["input_ids"], self.end]

        items = [(prompt, ended(text)) for request, texts in zip(requests, continuations, strict=True)
                 for prompt in [self.tokens(request)] for text in texts]
        scores = [score for first in range(0, len(items), self.batch)
                  for score in self._batched().score(items[first:first + self.batch])]
        results, taken = [], 0
        for texts in continuations:
            results.append(scores[taken:taken + len(texts)])
            taken += len(texts)
        return results
