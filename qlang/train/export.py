"""Export a LoRA adapter (PEFT's safetensors) as a GGUF adapter that llama.cpp applies at run time.

This is what llama.cpp's `convert_lora_to_gguf.py` does for Llama models, written against the
`gguf` package so that no llama.cpp checkout is needed: rename each PEFT tensor to llama.cpp's
name, keep A and B as they are (ggml's shapes are numpy's reversed: A is [in, rank], B is
[rank, out]), and apply to B the row permutation llama.cpp's converter applies to the query and
key projections (it reorders rotary halves; `W = B A` permutes with B's rows).  The scale
`alpha / rank` travels as `adapter.lora.alpha`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from qlang.errors import QlangError, error

#: PEFT module name -> llama.cpp tensor name (Llama architecture)
_NAMES = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
          "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
          "mlp.down_proj": "ffn_down"}
_TENSOR = re.compile(r"(?:base_model\.model\.)?model\.layers\.(\d+)\.(\w+\.\w+)\.lora_([AB])\.weight$")


def permute(weights: Any, heads: int) -> Any:
    """llama.cpp's reordering of a query/key projection's rows (its `LlamaModel.permute`)."""
    return (weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
            .swapaxes(1, 2).reshape(weights.shape))


def export_lora(adapter: Path, target: Path, *, architecture: str = "llama",
                metadata: dict[str, str] | None = None) -> Path:
    """Write the PEFT adapter in directory `adapter` as the GGUF file `target` (float16)."""
    import gguf
    import numpy as np
    from safetensors.numpy import load_file

    try:
        config = json.loads((adapter / "adapter_config.json").read_text())
        base = json.loads((Path(config["base_model_name_or_path"]) / "config.json").read_text())
        tensors = load_file(str(adapter / "adapter_model.safetensors"))
    except (OSError, KeyError, ValueError) as exc:
        raise error(QlangError, "input", f"{adapter}: not a PEFT LoRA adapter of a local base "
                    f"model: {exc}") from None
    heads = {"attn_q": base["num_attention_heads"],
             "attn_k": base.get("num_key_value_heads", base["num_attention_heads"])}
    writer = gguf.GGUFWriter(str(target), architecture)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(config["lora_alpha"]))
    for key, value in (metadata or {}).items():
        writer.add_string(key, value)
    for name, tensor in sorted(tensors.items()):
        match = _TENSOR.match(name)
        if match is None or match[2] not in _NAMES:
            raise error(QlangError, "input", f"{adapter}: cannot export tensor {name} to llama.cpp")
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
