"""Fine-tuning a causal language model on (question, program) pairs: LoRA or full, resumable.

The model learns to continue `instruction.prompt(question, syntax)` with the gold program and
its end-of-sequence token; the loss covers only those continuation tokens.  Everything that
decides the result is seeded: the batch order is a function of the seed and the step alone,
so a run killed at step k and started again with the same command reads the last checkpoint
and carries on with exactly the batches it would have seen.  Batches group questions of
similar length (shuffled within a window), which on a CPU saves most of the padding.

LoRA is the default because it serves best: llama.cpp applies a LoRA adapter at run time on
the *same* quantised base that transformers dequantised for training, so the shipped model is
the trained one, and the adapter weighs a few MB.  A fully fine-tuned model would have to be
re-quantised to ship small, which rounds small weight updates back to the base's grid.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang.errors import QlangError, error
from qlang.train import loop
from qlang.train.loop import LoopSettings
from qlang.train.pairs import Pair
from qlang.translate.instruction import prompt

METHODS = ("lora", "full")
#: where the adapter or the model ends up inside the output folder
FINAL = {"lora": "adapter", "full": "model"}
#: the projections LoRA adapts: all of a Llama block's linear layers
LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
#: a pretrained model: one epoch; the learning rate by method (`TrainSettings.lr`)
LOOP = LoopSettings(learning_rate=None, batch_size=8, epochs=1.0, warmup=0.05, checkpoint_every=50)


@dataclass(frozen=True, slots=True)
class TrainSettings:
    syntax: str = "nested"
    method: str = "lora"
    rank: int = 16
    alpha: int = 32
    loop: LoopSettings = LOOP
    device: str = "auto"
    #: LoRA: start from this adapter folder (an earlier run's) instead of fresh weights
    init: str | None = None

    @property
    def lr(self) -> float:
        return self.loop.rate(1e-3 if self.method == "lora" else 5e-5)


@dataclass(frozen=True, slots=True)
class Encoded:
    ids: tuple[int, ...]
    #: how many of `ids` are the prompt (no loss there)
    prompt_length: int


def encode(tokenizer: Any, pairs: Sequence[Pair], syntax: str) -> list[Encoded]:
    """Prompt and program tokenized apart, as llama.cpp sees them when it decodes."""
    result = []
    for pair in pairs:
        head = tokenizer(prompt(pair.question, syntax))["input_ids"]
        tail = tokenizer(pair.program, add_special_tokens=False)["input_ids"]
        result.append(Encoded((*head, *tail, tokenizer.eos_token_id), len(head)))
    return result


def _collate(examples: Sequence[Encoded], pad: int) -> dict[str, Any]:
    import torch

    width = max(len(e.ids) for e in examples)
    ids = torch.full((len(examples), width), pad, dtype=torch.long)
    mask = torch.zeros((len(examples), width), dtype=torch.long)
    labels = torch.full((len(examples), width), -100, dtype=torch.long)
    for row, example in enumerate(examples):
        n = len(example.ids)
        ids[row, :n] = torch.tensor(example.ids)
        mask[row, :n] = 1
        labels[row, example.prompt_length:n] = torch.tensor(example.ids[example.prompt_length:])
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def _wrap(model: Any, settings: TrainSettings) -> Any:
    if settings.method == "full":
        if settings.init is not None:
            raise error(QlangError, "usage", "--init continues a LoRA adapter; for full "
                        "fine-tuning, give the earlier model as --base")
        return model
    from peft import LoraConfig, get_peft_model

    if settings.init is None:
        config = LoraConfig(r=settings.rank, lora_alpha=settings.alpha, lora_dropout=0.0,
                            target_modules=list(LORA_TARGETS), task_type="CAUSAL_LM")
        return get_peft_model(model, config)
    from peft import PeftModel

    try:
        return PeftModel.from_pretrained(model, settings.init, is_trainable=True)
    except (OSError, ValueError) as exc:
        raise error(QlangError, "input", f"{settings.init}: not a LoRA adapter folder: {exc}") from None


def train(pairs: Sequence[Pair], base: Path, out: Path, settings: TrainSettings = TrainSettings(),
          *, progress: bool = True) -> dict[str, Any]:
    """Fine-tune the model in directory `base` on `pairs`; resumes from `out` if it holds a
    checkpoint of the same run.  Returns the run's summary (also written to `out/train.json`)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if settings.method not in METHODS:
        raise error(QlangError, "usage", f"unknown method {settings.method!r} (one of {', '.join(METHODS)})")
    if not pairs:
        raise error(QlangError, "input", "no training pairs")
    out.mkdir(parents=True, exist_ok=True)
    run = settings.loop
    loop.same_run(out, {"settings": loop.record(settings), "base": str(base), "pairs": len(pairs)})
    torch.manual_seed(run.seed)
    device = loop.pick_device(settings.device)
    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=True)
    model = _wrap(AutoModelForCausalLM.from_pretrained(base, local_files_only=True,
                                                       dtype=torch.float32), settings)
    model.to(device).train()
    examples = encode(tokenizer, pairs, settings.syntax)
    steps_per_epoch, total = run.steps(len(examples))
    order = loop.batch_order([len(e.ids) for e in examples], run.batch_size, total, run.seed)
    parameters = list(loop.trainable(model).values())
    optimizer = torch.optim.AdamW(parameters, lr=settings.lr, weight_decay=0.0)
    warmup = run.warmup_steps(total)
    checkpoint = out / "checkpoint.pt"
    start, losses = loop.load_checkpoint(checkpoint, model, optimizer) if checkpoint.exists() else (0, [])
    scheduler = loop.scheduler(optimizer, start, total, warmup)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    began = time.perf_counter()

    def loss_at(step: int) -> Any:
        batch = _collate([examples[i] for i in order[step]], pad)
        return model(**{k: v.to(device) for k, v in batch.items()}).loss

    loop.optimise(loss_at, model, optimizer, scheduler, start=start, total=total, clip=1.0,
                  checkpoint=checkpoint, every=run.checkpoint_every, losses=losses,
                  progress=progress, window=20)
    final = out / FINAL[settings.method]
    model.save_pretrained(final)
    tokenizer.save_pretrained(final)
    summary = {"settings": loop.record(settings), "base": str(base), "pairs": len(pairs), "steps": total,
               "steps_per_epoch": steps_per_epoch, "device": device, "torch": torch.__version__,
               "threads": torch.get_num_threads(), "seconds_this_run": round(time.perf_counter() - began, 1),
               "first_loss": losses[0], "final_loss": sum(losses[-20:]) / len(losses[-20:]),
               "output": str(final)}
    (out / "train.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "losses.json").write_text(json.dumps(losses) + "\n")
    return summary
