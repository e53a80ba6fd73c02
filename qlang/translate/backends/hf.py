"""transformers: a local model directory (no hub), greedy decoding on the CPU or a GPU.

Constrained decoding uses llguidance with the Lark form of the grammar: a logits processor
masks, at every step, the tokens the grammar cannot accept next.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from qlang.translate.backends import Generation, Request, backend_error


class TransformersBackend:
    name = "transformers"

    def __init__(self, model: str | None = None, *, device: str = "cpu") -> None:
        if model is None or not Path(model).is_dir():
            raise backend_error(f"the transformers backend needs a local model directory, got {model!r}")
        try:
            import torch
            import transformers
        except ImportError as exc:
            raise backend_error(f"transformers is not installed ({exc}); run `make install`") from None
        self._torch = torch
        self.model = Path(model).name
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(model, local_files_only=True)
        self.lm = transformers.AutoModelForCausalLM.from_pretrained(model, local_files_only=True)
        self.lm.to(device).eval()
        self.device = device

    def _prompt(self, request: Request) -> str:
        if request.chat and self.tokenizer.chat_template:
            messages = [{"role": r, "content": c} for r, c in request.messages]
            text: str = self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                            add_generation_prompt=True)
            return text
        return request.completion

    def generate(self, request: Request) -> Generation:
        inputs = self.tokenizer(self._prompt(request), return_tensors="pt").to(self.device)
        processors = [] if request.lark is None else [_GrammarMask(self.tokenizer, request.lark)]
        start = time.perf_counter()
        with self._torch.no_grad():
            output = self.lm.generate(
                **inputs, max_new_tokens=request.max_tokens, do_sample=False,
                logits_processor=processors, pad_token_id=self.tokenizer.eos_token_id)
        new = output[0, inputs["input_ids"].shape[1]:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        return Generation(text, int(inputs["input_ids"].shape[1]), int(new.shape[0]),
                          time.perf_counter() - start)


class _GrammarMask:
    """A transformers logits processor: only tokens the grammar accepts next survive."""

    def __init__(self, tokenizer: Any, lark: str) -> None:
        try:
            import llguidance
            import llguidance.hf
            import llguidance.torch
        except ImportError as exc:
            raise backend_error(f"llguidance is not installed ({exc}); run `make install`") from None
        self._lg = llguidance
        self.tokenizer = llguidance.hf.from_tokenizer(tokenizer)
        self.matcher = llguidance.LLMatcher(self.tokenizer, llguidance.LLMatcher.grammar_from_lark(lark))
        self.mask = llguidance.torch.allocate_token_bitmask(1, self.tokenizer.vocab_size)
        self.seen = 0

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        generated = input_ids[0].tolist()
        if self.seen == 0:
            self.seen = len(generated)
        else:
            self.matcher.consume_token(generated[-1])
        self._lg.torch.fill_next_token_bitmask(self.matcher, self.mask, 0)
        self._lg.torch.apply_token_bitmask_inplace(scores, self.mask.to(scores.device))
        return scores
