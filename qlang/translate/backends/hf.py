"""transformers: a local model directory (no hub), greedy decoding on the CPU or a GPU.

Constrained decoding uses llguidance with the Lark form of the grammar (see `guidance`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from qlang.errors import error
from qlang.translate.backends import BackendError, Generation, Request, backend_error
from qlang.translate.backends.guidance import Grammars


class TransformersBackend:
    name = "transformers"

    def __init__(self, model: str | None = None, *, device: str = "cpu") -> None:
        if model is None or not Path(model).is_dir():
            raise backend_error(f"the transformers backend needs a local model directory, got {model!r}")
        try:
            import torch
            import transformers
            from safetensors import SafetensorError
        except ImportError as exc:
            raise backend_error(f"transformers is not installed ({exc}); pip install 'qlang[translate]'") \
                from None
        self._torch = torch
        self.model = Path(model).name
        auto: Any = transformers  # typed loosely: its overloads do not fit a generic caller
        try:
            self.tokenizer: Any = auto.AutoTokenizer.from_pretrained(model, local_files_only=True)
            self.lm: Any = auto.AutoModelForCausalLM.from_pretrained(model, local_files_only=True)
        except (OSError, ValueError, SafetensorError) as exc:  # files missing, unreadable or cut short
            raise error(BackendError, "backend", f"cannot load the model ({exc})", path=model) from None
        self.lm.to(device).eval()
        self.device = device
        self._guidance: Grammars | None = None

    def _grammars(self) -> Grammars:
        if self._guidance is None:
            import llguidance.hf

            self._guidance = Grammars(llguidance.hf.from_tokenizer(self.tokenizer))
        return self._guidance

    def _prompt(self, request: Request) -> str:
        if request.chat and self.tokenizer.chat_template:
            messages = [{"role": r, "content": c} for r, c in request.messages]
            text: str = self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                            add_generation_prompt=True)
            return text
        return request.completion

    def generate(self, request: Request) -> Generation:
        inputs = self.tokenizer(self._prompt(request), return_tensors="pt").to(self.device)
        processors = [] if request.lark is None else [self._grammars().mask(request.lark)]
        start = time.perf_counter()
        with self._torch.no_grad():
            output = self.lm.generate(
                **inputs, max_new_tokens=request.max_tokens, do_sample=False,
                logits_processor=processors, pad_token_id=self.tokenizer.eos_token_id)
        new = output[0, inputs["input_ids"].shape[1]:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        return Generation(text, int(inputs["input_ids"].shape[1]), int(new.shape[0]),
                          time.perf_counter() - start)
