"""Training the small parser from scratch: seeded, length-grouped batches, resumable.

Pairs are the same as the fine-tuned model's (`qlangc data`, with or without augmentation);
their programs, in whatever syntax, are parsed and written in prefix notation.  The loss is
the negative log-likelihood of each program token given the question and the tokens before it
(teacher forcing), generated or copied.  Batch
order, schedule and checkpoints are `qlang.train.loop`'s, so a killed run started again with
the same command carries on exactly where it stopped.

It trains on the device asked for, by default CUDA where torch finds a GPU (8,000 steps are
minutes there, an hour on the project's loaded 2-core CPU); the model is written from the CPU
either way.  The device is no setting of the run (a run may resume on another).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang.api import parse
from qlang.errors import QlangError, error
from qlang.small.network import Config
from qlang.small.tokens import BOS, EOS, PAD, Vocabularies, prefix, source_vocabulary, target_vocabulary
from qlang.syntax import detect
from qlang.train import loop
from qlang.train.loop import LoopSettings
from qlang.train.pairs import Pair

FINAL = "model"
#: the small parser learns from scratch: many epochs at a high rate
RATE = 3e-3
LOOP = LoopSettings(learning_rate=RATE, batch_size=32, epochs=30.0, warmup=0.03, checkpoint_every=200)


@dataclass(frozen=True, slots=True)
class SmallSettings:
    embedding: int = 128
    hidden: int = 256
    layers: int = 1
    dropout: float = 0.2
    loop: LoopSettings = LOOP
    max_length: int = 48


Example = tuple[list[int], list[int], list[int]]


def _examples(pairs: Sequence[Pair], vocabularies: Vocabularies) -> list[Example]:
    """Per pair: question ids, copy ids, program ids between start and end marks."""
    target = vocabularies.target
    examples = []
    for pair in pairs:
        try:
            root = parse(pair.program, detect(pair.program))
        except QlangError as exc:
            raise error(QlangError, "input", f"pair {pair.id}: the program does not parse: "
                        f"{exc.diagnostics[0].message}") from None
        ids, copy = vocabularies.row(pair.question)
        examples.append((ids, copy, [target.id(BOS), *vocabularies.program_ids(pair.question, prefix(root)),
                                     target.id(EOS)]))
    return examples


def _collate(batch: Sequence[Example], pad_source: int, pad_target: int) -> tuple[Any, ...]:
    import torch

    width_s = max(len(s) for s, _, _ in batch)
    width_t = max(len(t) for _, _, t in batch)
    source = torch.full((len(batch), width_s), pad_source, dtype=torch.long)
    copy = torch.full((len(batch), width_s), pad_target, dtype=torch.long)
    target = torch.full((len(batch), width_t), pad_target, dtype=torch.long)
    for row, (s, c, t) in enumerate(batch):
        source[row, :len(s)] = torch.tensor(s)
        copy[row, :len(c)] = torch.tensor(c)
        target[row, :len(t)] = torch.tensor(t)
    lengths = torch.tensor([len(s) for s, _, _ in batch])
    return source, lengths, copy, target[:, :-1], target[:, 1:]


def train(pairs: Sequence[Pair], out: Path, settings: SmallSettings = SmallSettings(), *,
          device: str = "auto", progress: bool = True) -> dict[str, Any]:
    """Train on `pairs` on `device` (`loop.pick_device`), resuming from `out` if it holds this
    run's checkpoint; the model is written to `out/model`.  Returns the run's summary (also
    `out/train.json`)."""
    import torch

    from qlang.small.model import Seq2Seq, save

    if not pairs:
        raise error(QlangError, "input", "no training pairs")
    out.mkdir(parents=True, exist_ok=True)
    run = settings.loop
    loop.same_run(out, {"arch": "seq2seq", "settings": loop.record(settings), "pairs": len(pairs)})
    torch.manual_seed(run.seed)
    source, target = source_vocabulary(p.question for p in pairs), target_vocabulary()
    config = Config(source.tokens, target.tokens, settings.embedding, settings.hidden,
                    settings.layers, settings.dropout, settings.max_length)
    on = torch.device(loop.pick_device(device))
    model = Seq2Seq(config).to(on).train()
    examples = _examples(pairs, model.vocabularies)
    steps_per_epoch, total = run.steps(len(examples))
    order = loop.batch_order([len(s) for s, _, _ in examples], run.batch_size, total, run.seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=run.rate(RATE))
    warmup = run.warmup_steps(total)
    checkpoint = out / "checkpoint.pt"
    start, losses = loop.load_checkpoint(checkpoint, model, optimizer) if checkpoint.exists() else (0, [])
    scheduler = loop.scheduler(optimizer, start, total, warmup)
    criterion = torch.nn.NLLLoss(ignore_index=target.id(PAD))
    began = time.perf_counter()

    def loss_at(step: int) -> Any:
        torch.manual_seed(run.seed * 1_000_003 + step)  # dropout, the same after a resume
        source_ids, lengths, copy, target_in, target_out = (t.to(on) for t in _collate(
            [examples[i] for i in order[step]], source.id(PAD), target.id(PAD)))
        logprobs = model(source_ids, lengths, copy, target_in)
        return criterion(logprobs.reshape(-1, logprobs.shape[-1]), target_out.reshape(-1))

    loop.optimise(loss_at, model, optimizer, scheduler, start=start, total=total, clip=5.0,
                  checkpoint=checkpoint, every=run.checkpoint_every, losses=losses,
                  progress=progress)
    model.cpu().eval()
    summary = {"arch": "seq2seq", "settings": loop.record(settings), "pairs": len(pairs), "steps": total,
               "steps_per_epoch": steps_per_epoch, "parameters": sum(p.numel() for p in model.parameters()),
               "torch": torch.__version__, "device": str(on), "threads": torch.get_num_threads(),
               "seconds_this_run": round(time.perf_counter() - began, 1), "first_loss": losses[0],
               "final_loss": sum(losses[-50:]) / len(losses[-50:]), "output": str(out / FINAL)}
    save(model, out / FINAL, notes={"training": summary})
    (out / "train.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "losses.json").write_text(json.dumps(losses) + "\n")
    return summary
