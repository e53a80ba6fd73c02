"""LoRA adapters between PEFT (safetensors) and GGUF: llama.cpp applies GGUF ones at run time,
vLLM and transformers read PEFT ones.

This is what llama.cpp's `convert_lora_to_gguf.py` does, written against the `gguf` package so
that no llama.cpp checkout is needed: rename each PEFT tensor to llama.cpp's name, keep A and B
as they are (ggml's shapes are numpy's reversed: A is [in, rank], B is [rank, out]), and, for a
Llama base, apply to B the row permutation llama.cpp's converter applies to the query and key
projections (it reorders rotary halves; `W = B A` permutes with B's rows; Gemma 3's converter
reorders nothing).  The base's architecture comes from its `config.json` (`ARCHITECTURES`).  The
scale `alpha / rank` travels as `adapter.lora.alpha`.  `import_lora` undoes all of it, so the
shipped GGUF adapter also serves engines that read PEFT folders (vLLM's LoRA).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang import jsontext, limits
from qlang.errors import QlangError, error
from qlang.translate import gguf_file

#: PEFT module name -> llama.cpp tensor name (the same in every architecture below)
_NAMES = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
          "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
          "mlp.down_proj": "ffn_down"}
_TENSOR = re.compile(r"(?:base_model\.model\.)?model\.layers\.(\d+)\.(\w+\.\w+)\.lora_([AB])\.weight$")


def permute(weights: Any, heads: int) -> Any:
    """llama.cpp's reordering of a query/key projection's rows (its `LlamaModel.permute`)."""
    return (weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


def unpermute(weights: Any, heads: int) -> Any:
    """The inverse of `permute`."""
    return (weights.reshape(heads, weights.shape[0] // heads // 2, 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


@dataclass(frozen=True, slots=True)
class Architecture:
    """How llama.cpp names and lays out a base model family's weights."""

    #: llama.cpp's name for it (`general.architecture`: an adapter must carry its base's)
    gguf: str
    #: whether llama.cpp's converter permutes the query and key rows
    permuted: bool


#: a transformers `model_type` -> its llama.cpp architecture
ARCHITECTURES = {"llama": Architecture("llama", permuted=True),
                 "gemma3_text": Architecture("gemma3", permuted=False),
                 "gemma3": Architecture("gemma3", permuted=False)}


def _layout(base: Path) -> tuple[Architecture, dict[str, int]]:
    """The base's architecture, and the heads of each projection whose rows llama.cpp permutes."""
    config = _config(base / "config.json")
    kind = config.get("model_type")
    architecture = ARCHITECTURES.get(kind) if isinstance(kind, str) else None
    if architecture is None:
        raise ValueError(f"a base model of type {kind!r} ({base / 'config.json'}), which qlang writes no "
                         f"llama.cpp adapters for (one of {', '.join(sorted(ARCHITECTURES))})")
    if not architecture.permuted:
        return architecture, {}
    return architecture, {"attn_q": config["num_attention_heads"],
                          "attn_k": config.get("num_key_value_heads", config["num_attention_heads"])}


def _config(path: Path) -> dict[str, Any]:
    """A model's JSON settings, read within their own limit (they are small)."""
    config = jsontext.loads(limits.read(path, limits.CONFIG).decode("utf-8"))
    if not isinstance(config, dict):
        raise ValueError(f"{path.name} holds no JSON object")
    return config


def export_lora(adapter: Path, target: Path, *, metadata: dict[str, str] | None = None) -> Path:
    """Write the PEFT adapter in directory `adapter` as the GGUF file `target` (float16)."""
    import gguf
    import numpy as np
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    try:
        config = _config(adapter / "adapter_config.json")
        architecture, heads = _layout(Path(config["base_model_name_or_path"]))
        weights = adapter / "adapter_model.safetensors"
        limits.check_file(weights, limits.MODEL)  # no FIFO or device reaches the reader
        tensors = load_file(str(weights))
    except (OSError, KeyError, TypeError, ValueError, SafetensorError) as exc:
        raise error(QlangError, "input", f"not a PEFT LoRA adapter of a local base model: {exc}",
                    path=adapter) from None
    writer = gguf.GGUFWriter(str(target), architecture.gguf)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(config["lora_alpha"]))
    for key, value in (metadata or {}).items():
        writer.add_string(key, value)
    for name, tensor in sorted(tensors.items()):
        match = _TENSOR.match(name)
        if match is None or match[2] not in _NAMES:
            raise error(QlangError, "input", f"cannot export tensor {name} to llama.cpp", path=adapter)
        layer, module, side = int(match[1]), _NAMES[match[2]], match[3].lower()
        data = tensor.astype(np.float32)
        if side == "b" and module in heads:
            data = permute(data, heads[module])
        writer.add_tensor(f"blk.{layer}.{module}.weight.lora_{side}", data.astype(np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target


_GGUF_TENSOR = re.compile(r"blk\.(\d+)\.(\w+)\.weight\.lora_([ab])$")


def import_lora(source: Path, target: Path, base: Path) -> Path:
    """Write the GGUF LoRA adapter `source` as a PEFT adapter folder `target` for the
    transformers model directory `base` (its dequantised base model); returns `target`."""
    import gguf
    import numpy as np
    from safetensors.numpy import save_file

    gguf_file.read(source)  # the `gguf` package's reader trusts the header it reads
    try:
        reader = gguf.GGUFReader(str(source))
        alpha = float(reader.fields[gguf.Keys.Adapter.LORA_ALPHA].contents())
        heads = _layout(base)[1]
    except (OSError, KeyError, ValueError) as exc:
        raise error(QlangError, "input", f"not a GGUF LoRA adapter of {base}: {exc}", path=source) from None
    modules = {gguf_name: peft_name for peft_name, gguf_name in _NAMES.items()}
    tensors, rank, targets = {}, 0, set()
    for tensor in reader.tensors:
        match = _GGUF_TENSOR.match(tensor.name)
        if match is None or match[2] not in modules:
            raise error(QlangError, "input", f"unexpected tensor {tensor.name}", path=source)
        layer, module, side = int(match[1]), match[2], match[3]
        data = np.array(tensor.data, dtype=np.float32)
        if side == "b" and module in heads:
            data = unpermute(data, heads[module])
        rank = data.shape[0] if side == "a" else rank
        targets.add(modules[module].rpartition(".")[2])
        tensors[f"base_model.model.model.layers.{layer}.{modules[module]}.lora_{side.upper()}.weight"] = data
    target.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(target / "adapter_model.safetensors"))
    config = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": str(base),
              "r": rank, "lora_alpha": alpha, "lora_dropout": 0.0, "bias": "none",
              "target_modules": sorted(targets), "fan_in_fan_out": False, "inference_mode": True}
    (target / "adapter_config.json").write_text(json.dumps(config, indent=2) + "\n")
    return target
