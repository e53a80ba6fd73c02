"""Making translators: a registry of kinds (name -> factory), each made from typed settings.

A translator is its `Settings` (how it prompts and decodes) and its `Models` (which models
run it).  `make` looks the kind up in `FACTORIES`, the way sqlglot looks up a dialect, and
loads each model once per `Loaded` cache, timing every load so that a caller can report it.
The cascade's fine-tuned model is loaded only when the small parser first defers to it: most
questions never reach it, and loading it costs seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from qlang.ir import Node
from qlang.translate.backends import Backend, load_backend
from qlang.translate.cascade import Cascade, SmallTranslator
from qlang.translate.translator import Settings, Translates, Translation, Translator


@dataclass(frozen=True, slots=True)
class Models:
    """Which models a translator runs: everything it needs beside its `Settings`."""

    #: the language model's backend (`qlang.translate.backends.BACKENDS`) and model
    backend: str = "llama-cpp"
    model: str | None = None
    #: llama-cpp, vllm, transformers: a LoRA adapter (None: for `finetuned`, the bundled one)
    adapter: str | None = None
    #: openai: the endpoint
    base_url: str | None = None
    #: llama-cpp: layers offloaded to the GPU
    n_gpu_layers: int = 0
    #: llama-cpp: threads (None: the cores free before each request, `backends.cores`)
    threads: int | None = None
    #: llama-cpp: a batch's generations decoded together (`backends.greedy`)
    together: bool = False
    #: fewshot: the GQA question file examples are drawn from (None: the shared pool)
    pool: str | None = None
    #: small, cascade: the small parser's folder (None: the bundled one) and beam width
    small_model: str | None = None
    beam: int = 4
    #: cascade: the small parser's least probability to answer (None: its calibrated one)
    cascade_threshold: float | None = None

    def needs_gpu(self, translator: str) -> bool:
        """Whether a worker running this translator needs a GPU (a vLLM engine does)."""
        return self.backend == "vllm" and translator != "small"


@dataclass
class Loaded:
    """Models loaded so far, each once, and the seconds each load took, in order."""

    models: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)

    def once(self, key: tuple[Any, ...], label: str, load: Callable[[], Any]) -> Any:
        if key not in self.models:
            start = time.perf_counter()
            self.models[key] = load()
            self.seconds[label] = self.seconds.get(label, 0.0) + time.perf_counter() - start
        return self.models[key]


def resolve(translator: str, model: str | None, examples: int | None) -> str:
    """The translator kind, resolving `auto`: asking for a model or examples means few-shot,
    else the cascade."""
    if translator != "auto":
        return translator
    return "fewshot" if model is not None or examples is not None else "cascade"


def make(settings: Settings, models: Models | None = None, loaded: Loaded | None = None) -> Translates:
    """The translator `settings.translator` names, running `models` (raises QlangError)."""
    factory = FACTORIES[settings.translator]
    return factory(settings, models or Models(), Loaded() if loaded is None else loaded)


#: the backends that apply a LoRA adapter (the bundled ones, on their bundled bases, too)
_ADAPTER_BACKENDS = ("llama-cpp", "vllm", "transformers")


def _backend(models: Models, kind: str) -> Backend:
    """The language model's backend; a `finetuned` translator on llama.cpp, vLLM or
    transformers gets the bundled adapter unless `models.adapter` names another."""
    extra: dict[str, Any] = {}
    if models.backend == "llama-cpp":
        extra |= {"n_gpu_layers": models.n_gpu_layers, "threads": models.threads,
                  "together": models.together}
    if models.backend in _ADAPTER_BACKENDS:
        adapter = models.adapter
        if adapter is None and kind == "finetuned":
            from qlang.translate.models import ADAPTER

            adapter = str(ADAPTER)
        if adapter is not None:
            extra["lora"] = adapter
    elif models.backend == "openai":
        extra["base_url"] = models.base_url
    return load_backend(models.backend, models.model, **extra)


def _language_model(settings: Settings, models: Models, loaded: Loaded) -> Translator:
    from qlang.translate.examples import Example, load_pool

    kind = settings.translator
    pool: list[Example] = []  # only few-shot prompts show examples: the others need no pool file
    if kind == "fewshot":
        pool = loaded.once(("pool", models.pool), "load examples", lambda: load_pool(models.pool))
    backend = loaded.once((models.backend, models.model, kind), f"load {kind} model",
                          lambda: _backend(models, kind))
    return Translator(backend, pool, settings)


def _small(settings: Settings, models: Models, loaded: Loaded) -> SmallTranslator:
    def load() -> Any:
        from qlang.small.parser import SmallParser  # numpy and the model: part of the load

        return SmallParser.load(models.small_model, models.beam)

    parser = loaded.once(("small", models.small_model, models.beam), "load small parser", load)
    return SmallTranslator(parser, settings)


def _cascade(settings: Settings, models: Models, loaded: Loaded) -> Translates:
    small = _small(settings, models, loaded)
    fallback = replace(settings, translator="finetuned")
    deferred = Deferred(fallback, f"finetuned {models.backend} model",
                        lambda: _language_model(fallback, models, loaded))
    return Cascade(small, deferred, models.cascade_threshold, scorer=_scorer(small, fallback, models, loaded))


def _scorer(small: SmallTranslator, settings: Settings, models: Models, loaded: Loaded) -> Deferred | None:
    """The bundled adapter the small parser was calibrated with to score its candidates, on
    the same backend (None: the fallback scores, as where the user names its model or adapter)."""
    name = small.parser.scorer
    if name is None or models.model is not None or models.adapter is not None \
            or models.backend not in _ADAPTER_BACKENDS:
        return None
    from qlang.translate.models import adapter

    bundled = adapter(name)
    scoring = replace(models, model=bundled.base, adapter=str(bundled.path))
    return Deferred(settings, f"{name} {models.backend} model",
                    lambda: _language_model(settings, scoring, loaded))


class Deferred:
    """A translator made when first asked to translate or score a question (asked about none,
    as when the small parser answers a whole batch, it loads nothing).  Its description stays
    the one it was given: what answers must read the same before and after the load (a report
    of one request is the same whichever request came first)."""

    def __init__(self, settings: Settings, description: str, load: Callable[[], Translator]) -> None:
        self.settings = settings
        self.description = description
        self._load = load
        self._translator: Translator | None = None

    def _made(self) -> Translator:
        if self._translator is None:
            self._translator = self._load()
        return self._translator

    def likelihoods(self, questions: Sequence[str],
                    programs: Sequence[Sequence[Node]]) -> list[list[float]] | None:
        return self._made().likelihoods(questions, programs) if questions else []

    def translate(self, question: str) -> Translation:
        return self._made().translate(question)

    def translate_many(self, questions: Sequence[str]) -> list[Translation]:
        return self._made().translate_many(questions) if questions else []


#: translator kind -> factory
FACTORIES: dict[str, Callable[[Settings, Models, Loaded], Translates]] = {
    "finetuned": _language_model,
    "fewshot": _language_model,
    "small": _small,
    "cascade": _cascade,
}
