"""LLM backends behind one small interface: a prompt (and maybe a grammar) in, text out.

Each backend module imports its heavy library lazily, so `qlangc` starts fast and a missing
optional library is a clear error only for the backend that needs it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol

from qlang.errors import Diagnostic, QlangError


@dataclass(frozen=True, slots=True)
class Request:
    """What to generate from: chat messages or a completion text, and an optional grammar."""

    messages: tuple[tuple[str, str], ...]
    completion: str
    chat: bool = True
    gbnf: str | None = None
    lark: str | None = None
    max_tokens: int = 256


@dataclass(frozen=True, slots=True)
class Generation:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds > 0 else 0.0


class Backend(Protocol):
    name: str
    #: the model it runs, for reports (a file name, a directory name or a server's model name)
    model: str

    def generate(self, request: Request) -> Generation: ...


class BackendError(QlangError):
    """A backend could not be loaded or failed to answer (not the user's program's fault)."""


def backend_error(message: str) -> BackendError:
    return BackendError([Diagnostic("backend", message)])


#: backend name -> (module, class); imported only when chosen.
BACKENDS = {
    "llama-cpp": ("qlang.translate.backends.llama", "LlamaCppBackend"),
    "openai": ("qlang.translate.backends.openai_compat", "OpenAIBackend"),
    "transformers": ("qlang.translate.backends.hf", "TransformersBackend"),
    "vllm": ("qlang.translate.backends.vllm_engine", "VllmBackend"),
}


def load_backend(name: str, model: str | None = None, **options: object) -> Backend:
    """A backend by name (see `BACKENDS`), for `model` (a name or a path; None: the default)."""
    if name not in BACKENDS:
        raise backend_error(f"unknown backend {name!r} (one of {', '.join(BACKENDS)})")
    module, cls = BACKENDS[name]
    backend: Backend = getattr(importlib.import_module(module), cls)(model, **options)
    return backend
