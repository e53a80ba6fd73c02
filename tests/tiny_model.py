"""A tiny causal LM, built and trained here, for testing the transformers backend offline.

No model hub is reachable, so the test builds its own: a byte-level BPE tokenizer and a
two-layer Llama trained for a few seconds on the real pool of (question, nested program) pairs,
enough to learn the format and to stop.  Built once into `.cache/tiny-model/<hash>`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from qlang.paths import cache_dir
from tests.conftest import questions

ROOT = cache_dir("tiny-model")
EOS = "</s>"


def prompt(question: str) -> str:
    return f"Q: {question}\nA: "


def _pairs() -> list[tuple[str, str]]:
    import qlang
    from qlang.syntax import gqa

    pairs = []
    for question in questions("val_balanced_tail.json").values():
        root = qlang.canonicalize(gqa.to_ir(gqa.steps_from_json(question["semantic"])))
        pairs.append((question["question"], qlang.SYNTAXES["nested"].print(root)))
    return pairs


def build() -> Path:
    """The model directory, trained on first use."""
    key = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    target = ROOT / key
    if (target / "config.json").exists():
        return target
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    torch.manual_seed(0)
    texts = [prompt(q) + p + EOS for q, p in _pairs()]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(texts, vocab_size=1200, special_tokens=[EOS, "<pad>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token=EOS, pad_token="<pad>")
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=128, intermediate_size=256,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=4,
                         max_position_embeddings=256, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.eos_token_id)
    model = LlamaForCausalLM(config)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model.train()
    for step in range(400):
        batch = [texts[(step * 32 + i) % len(texts)] for i in range(32)]
        encoded = tokenizer(batch, return_tensors="pt", padding=True)
        labels = encoded["input_ids"].masked_fill(encoded["attention_mask"] == 0, -100)
        loss = model(**encoded, labels=labels).loss
        loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    (target / "training.json").write_text(json.dumps({"final_loss": float(loss.detach()), "steps": 400}))
    return target
