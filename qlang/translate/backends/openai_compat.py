"""Any OpenAI-compatible HTTP endpoint (`--base-url`; the key from `OPENAI_API_KEY`).

A grammar is sent as the `grammar` field (GBNF), the extension llama.cpp's servers
(llama-cpp-python's and llama-server) understand; other servers ignore it, so their output
goes through post-processing and the checker like any unconstrained output.
"""

from __future__ import annotations

import os
import time
from typing import Any

from qlang.translate.backends import Generation, Request, backend_error


class OpenAIBackend:
    name = "openai"

    def __init__(self, model: str | None = None, *, base_url: str | None = None,
                 timeout: float = 120.0) -> None:
        try:
            import openai
        except ImportError as exc:
            raise backend_error(f"the openai package is not installed ({exc}); "
                                "pip install 'qlang[translate]'") from None
        self._openai = openai
        self.model = model or "default"
        self.client = openai.OpenAI(
            base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
            api_key=os.environ.get("OPENAI_API_KEY", "no-key"), timeout=timeout, max_retries=1)

    def generate(self, request: Request) -> Generation:
        extra: dict[str, Any] = {"grammar": request.gbnf} if request.gbnf else {}
        start = time.perf_counter()
        try:
            if request.chat:
                messages: Any = [{"role": r, "content": c} for r, c in request.messages]
                chat = self.client.chat.completions.create(
                    model=self.model, messages=messages, temperature=0.0,
                    max_tokens=request.max_tokens, extra_body=extra)
                text, usage = chat.choices[0].message.content or "", chat.usage
            else:
                completion = self.client.completions.create(
                    model=self.model, prompt=request.completion, temperature=0.0,
                    max_tokens=request.max_tokens, extra_body=extra)
                text, usage = completion.choices[0].text, completion.usage
        except self._openai.OpenAIError as exc:
            raise backend_error(f"{self.client.base_url}: {type(exc).__name__}: {exc}") from None
        prompt_tokens = usage.prompt_tokens if usage else 0
        completion_tokens = usage.completion_tokens if usage else 0
        return Generation(text, prompt_tokens, completion_tokens, time.perf_counter() - start)
