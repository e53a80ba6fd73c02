"""vLLM: offline batch generation on a GPU, under the same typed grammar, with qlang's adapter.

For GPU machines only (`pip install 'qlang[gpu]'`); nothing here imports vLLM until a backend
is made, so CPU machines never need it.  A batch of requests goes to vLLM at once
(`generate_many`, which `Translator.translate_many` uses), greedy, each with its grammar as
vLLM structured output: the Lark form of `qlang.translate.grammar`, which vLLM's `guidance`
backend (llguidance, the engine qlang uses with llama.cpp) reads as it is.  The base model is
the bundled GGUF dequantised into a transformers directory (`models.hf_directory`), or any
transformers directory; a LoRA adapter is a PEFT folder or a GGUF adapter (the shipped one),
converted once into the project cache (`qlang.translate.adapters.import_lora`).  vLLM reads the
folder's tokenizer with a plain byte-level decoder (`byte_level_tokenizer`), which llguidance
needs to know the bytes of each token.

The request building is plain data (`vllm_request`), unit-tested without vLLM or a GPU.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang.translate.backends import Generation, Request, backend_error
from qlang.translate.models import CACHE, hf_directory

#: vLLM's structured-output backend for our grammars: llguidance reads their Lark form
STRUCTURED_BACKEND = "guidance"


@dataclass(frozen=True, slots=True)
class VllmRequest:
    """What vLLM is asked for one request: a prompt (text, or chat messages it renders with
    the model's template) and the arguments of its `SamplingParams`."""

    prompt: str | None
    messages: tuple[dict[str, str], ...] | None
    sampling: dict[str, Any]


def vllm_request(request: Request) -> VllmRequest:
    """The vLLM form of a request: greedy, its token budget, its grammar as structured output.

    >>> r = vllm_request(Request((), "Question: Is it red?\\nProgram:\\n", chat=False, lark="start: ..."))
    >>> r.prompt, r.sampling["structured_outputs"]
    ('Question: Is it red?\\nProgram:\\n', {'grammar': 'start: ...'})
    """
    if request.gbnf is not None and request.lark is None:
        raise backend_error("the vllm backend takes the Lark form of the grammar (--engine lark)")
    sampling: dict[str, Any] = {"temperature": 0.0, "max_tokens": request.max_tokens}
    if request.lark is not None:
        sampling["structured_outputs"] = {"grammar": request.lark}
    if request.chat:
        messages = tuple({"role": role, "content": content} for role, content in request.messages)
        return VllmRequest(None, messages, sampling)
    return VllmRequest(request.completion, None, sampling)


def peft_adapter(lora: str, base: Path) -> Path:
    """A PEFT adapter folder for `lora`: the folder itself, or a GGUF adapter converted once."""
    path = Path(lora)
    if path.is_dir():
        return path
    if not path.is_file():
        raise backend_error(f"no LoRA adapter at {path}")
    from qlang.translate.adapters import import_lora

    target = CACHE / f"{path.stem}-{int(path.stat().st_mtime)}-peft"
    if not (target / "adapter_config.json").exists():
        partial = target.with_name(target.name + ".partial")
        import_lora(path, partial, base)
        partial.rename(target)
    return target


def _types(node: Any) -> list[str]:
    """The component types of a tokenizer.json pre-tokenizer or decoder (a Sequence's members)."""
    if not isinstance(node, dict):
        return []
    parts = node.get("pretokenizers") or node.get("decoders")
    return [t for part in parts for t in _types(part)] if parts else [node.get("type", "")]


def byte_level_tokenizer(directory: Path) -> Path:
    """The tokenizer folder vLLM is given: `directory`, or once a copy of its tokenizer files
    (weights left out) in the project cache whose decoder is plain byte-level.

    transformers 5.17 (not 5.23) converts a GGUF's GPT-2 vocabulary (SmolLM2's) to a byte-level
    BPE tokenizer with a sentencepiece decoder: byte fallback, "▁" for a space, then byte-level.
    It decodes text the same, but llguidance learns each token's bytes from the decoder, takes
    such a vocabulary for a sentencepiece one and reads " clothing" as the bytes of "Ġclothing":
    under the grammar no token would hold a space.  Byte fallback never fires after a byte-level
    pre-tokenizer (every byte has a token), so the copy tokenizes exactly as the folder does."""
    path = directory / "tokenizer.json"
    if not path.exists():
        return directory
    tokenizer = json.loads(path.read_text(encoding="utf-8"))
    byte_level = "ByteLevel" in _types(tokenizer.get("pre_tokenizer"))
    if not byte_level or _types(tokenizer.get("decoder")) == ["ByteLevel"]:
        return directory
    target = CACHE / f"{directory.name}-{int(path.stat().st_mtime)}-tokenizer"
    if not (target / "tokenizer.json").exists():
        partial = target.with_name(target.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for file in directory.iterdir():
            if file.is_file() and file.suffix not in (".safetensors", ".bin", ".gguf"):
                shutil.copy(file, partial / file.name)
        tokenizer["decoder"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                                "use_regex": True}
        tokenizer["model"]["byte_fallback"] = False
        (partial / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")
        partial.rename(target)
    return target


class VllmBackend:
    name = "vllm"

    def __init__(self, model: str | None = None, *, lora: str | None = None,
                 gpu_memory_utilization: float = 0.85, max_model_len: int = 2048, **engine: Any) -> None:
        """`engine`: further arguments of `vllm.LLM` (`enforce_eager=True`, ...)."""
        try:
            import vllm
        except ImportError as exc:
            raise backend_error(f"vLLM is not installed ({exc}): on a GPU machine, "
                                "pip install 'qlang[gpu]'") from None
        self._vllm: Any = vllm
        directory = hf_directory(model)
        self.model = directory.name + (f"+{Path(lora).name}" if lora else "")
        self._lora: Any = None
        options: dict[str, Any] = {}
        if lora is not None:
            from vllm.lora.request import LoRARequest

            adapter = peft_adapter(lora, directory)
            self._lora = LoRARequest("qlang", 1, str(adapter))
            options |= {"enable_lora": True, "max_lora_rank": 64}
        try:
            self.llm: Any = vllm.LLM(model=str(directory), tokenizer=str(byte_level_tokenizer(directory)),
                                     gpu_memory_utilization=gpu_memory_utilization,
                                     max_model_len=max_model_len, seed=0,
                                     structured_outputs_config={"backend": STRUCTURED_BACKEND},
                                     **options, **engine)
        except Exception as exc:  # CUDA, memory, unsupported model: vLLM raises many kinds
            raise backend_error(f"vLLM could not load {directory}: {exc}") from None

    def generate(self, request: Request) -> Generation:
        return self.generate_many([request])[0]

    def generate_many(self, requests: Sequence[Request]) -> list[Generation]:
        """Every request in one vLLM batch; each is charged its share of the time."""
        from vllm.sampling_params import SamplingParams, StructuredOutputsParams

        built = [vllm_request(r) for r in requests]
        params = []
        for b in built:
            sampling = dict(b.sampling)
            if "structured_outputs" in sampling:
                sampling["structured_outputs"] = StructuredOutputsParams(**sampling["structured_outputs"])
            params.append(SamplingParams(**sampling))
        prompts = [b.prompt if b.prompt is not None else self._chat(b.messages or ()) for b in built]
        start = time.perf_counter()
        outputs = self.llm.generate(prompts, params, lora_request=self._lora, use_tqdm=False)
        share = (time.perf_counter() - start) / max(1, len(requests))
        return [Generation(o.outputs[0].text, len(o.prompt_token_ids or ()),
                           len(o.outputs[0].token_ids), share) for o in outputs]

    def _chat(self, messages: Sequence[dict[str, str]]) -> str:
        text: str = self.llm.get_tokenizer().apply_chat_template(
            list(messages), tokenize=False, add_generation_prompt=True)
        return text
