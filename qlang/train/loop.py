"""The training loop's pieces both trainers share: its settings, batch order, schedule,
checkpoints.

Everything that decides a run's result is a function of its seed and step, and a checkpoint
holds the trainable weights, the optimiser state and the step, so a run killed at step k and
started again reads the checkpoint and sees exactly the batches it would have seen.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from qlang.errors import QlangError, error
from qlang.paths import replacing


@dataclass(frozen=True, slots=True, kw_only=True)
class LoopSettings:
    """What the loop reads, embedded in both trainers' settings (each has its own defaults)."""

    #: None: the trainer's default
    learning_rate: float | None
    batch_size: int
    epochs: float
    #: stop after this many steps, whatever `epochs` says
    max_steps: int | None = None
    #: the share of the steps that warms the learning rate up
    warmup: float
    seed: int = 0
    checkpoint_every: int

    def given(self, **options: Any) -> LoopSettings:
        """These settings with a command's options (one left out, None, keeps its value)."""
        return replace(self, **{name: value for name, value in options.items() if value is not None})

    def rate(self, default: float) -> float:
        """The learning rate, or the trainer's `default` where none is set."""
        return default if self.learning_rate is None else self.learning_rate

    def steps(self, examples: int) -> tuple[int, int]:
        """Steps per epoch over `examples`, and the run's steps: `max_steps`, or the epochs'.

        >>> LoopSettings(learning_rate=None, batch_size=8, epochs=2.5, warmup=0.1,
        ...              checkpoint_every=10).steps(20)
        (3, 8)
        """
        per_epoch = math.ceil(examples / self.batch_size)
        return per_epoch, self.max_steps or max(1, round(self.epochs * per_epoch))

    def warmup_steps(self, total: int) -> int:
        return max(1, round(self.warmup * total))


def pick_device(requested: str = "auto") -> str:
    """`auto`: CUDA where present, else Apple's MPS, else the CPU."""
    import torch

    if requested != "auto":
        return requested
    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def record(settings: Any) -> dict[str, Any]:
    """A trainer's settings (a dataclass with a `loop` field) as one flat record, the loop's
    fields in its place: what run.json and train.json hold, as they did before the loop's
    settings were one value (a run of then resumes)."""
    flat: dict[str, Any] = {}
    for name, value in asdict(settings).items():
        flat |= value if name == "loop" else {name: value}
    return flat


def batch_order(lengths: Sequence[int], batch_size: int, steps: int, seed: int) -> list[list[int]]:
    """Which examples each step trains on: every epoch a fresh seeded shuffle, grouped by length.

    >>> order = batch_order([5, 1, 4, 2, 3, 6], 2, 4, seed=0)
    >>> len(order), all(len(b) == 2 for b in order), sorted(i for b in order[:3] for i in b)
    (4, True, [0, 1, 2, 3, 4, 5])
    >>> order == batch_order([5, 1, 4, 2, 3, 6], 2, 4, seed=0)
    True
    """
    window = batch_size * 16
    batches: list[list[int]] = []
    epoch = 0
    while len(batches) < steps:
        rng = random.Random(f"{seed}/{epoch}")
        indices = list(range(len(lengths)))
        rng.shuffle(indices)
        epoch_batches = []
        for start in range(0, len(indices), window):
            chunk = sorted(indices[start:start + window], key=lambda i: lengths[i])
            epoch_batches += [chunk[i:i + batch_size] for i in range(0, len(chunk), batch_size)]
        rng.shuffle(epoch_batches)
        batches += epoch_batches
        epoch += 1
    return batches[:steps]


def schedule(step: int, total: int, warmup: int) -> float:
    """Linear warm-up, then cosine decay to a tenth."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))


def optimise(loss_at: Callable[[int], Any], model: Any, optimizer: Any, scheduler: Any, *,
             start: int, total: int, clip: float, checkpoint: Path, every: int, losses: list[float],
             progress: bool = True, window: int = 50) -> None:
    """Steps `start` to `total`: each step's loss (`loss_at(step)`) back-propagated, gradients
    clipped, the optimiser and schedule stepped; the loss appended to `losses`, shown as a
    running mean on a progress bar; a checkpoint every `every` steps and after the last."""
    import torch
    from tqdm import tqdm

    parameters = list(trainable(model).values())
    bar = tqdm(range(start, total), desc="train", unit="step", file=sys.stderr, initial=start,
               total=total, disable=None if progress else True)
    for step in bar:
        loss = loss_at(step)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(parameters, clip)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(float(loss.detach()))
        bar.set_postfix(loss=f"{sum(losses[-window:]) / len(losses[-window:]):.3f}")
        if (step + 1) % every == 0 or step + 1 == total:
            save_checkpoint(checkpoint, model, optimizer, step + 1, losses)


def scheduler(optimizer: Any, start: int, total: int, warmup: int) -> Any:
    """The learning-rate schedule from step `start` on (create it after loading a checkpoint)."""
    import torch

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: schedule(start + s, total, warmup))


def trainable(model: Any) -> dict[str, Any]:
    return {name: p for name, p in model.named_parameters() if p.requires_grad}


def save_checkpoint(path: Path, model: Any, optimizer: Any, step: int, losses: list[float]) -> None:
    """Trainable weights, optimiser state and step; written aside, then renamed into place."""
    import torch

    state = {"step": step, "losses": losses, "optimizer": optimizer.state_dict(),
             "weights": {n: p.detach().cpu() for n, p in trainable(model).items()}}
    with replacing(path) as partial:
        torch.save(state, partial)


def load_checkpoint(path: Path, model: Any, optimizer: Any) -> tuple[int, list[float]]:
    import torch

    state = torch.load(path, map_location="cpu", weights_only=False)
    parameters = trainable(model)
    with torch.no_grad():
        for name, value in state["weights"].items():
            parameters[name].copy_(value)
    optimizer.load_state_dict(state["optimizer"])
    return int(state["step"]), list(state["losses"])


def same_run(out: Path, identity: dict[str, Any]) -> None:
    """Refuse to resume a checkpoint made with other data or settings (its batches would not
    fit); `identity` is what makes a run this run."""
    path = out / "run.json"
    resuming = path.exists() and (out / "checkpoint.pt").exists()
    if resuming and json.loads(path.read_text()) != identity:
        raise error(QlangError, "usage", f"{out} holds a checkpoint of another run "
                    "(other data or settings): choose another --out, or delete it")
    path.write_text(json.dumps(identity, indent=2) + "\n")
