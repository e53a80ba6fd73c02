"""`qlangc data`, `qlangc train` and `qlangc export`: make a translator from real GQA pairs.

torch, transformers and peft load only inside `train` and `export`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from qlang.console import fail
from qlang.errors import QlangError
from qlang.syntax import SYNTAXES

#: the real GQA question files the project ships beside it
SHARED_QUESTIONS = Path(__file__).resolve().parents[3] / "shared" / "data" / "gqa" / "questions"


@click.command()
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Folder for train.jsonl, dev.jsonl and data.json (the counts).")
@click.option("--syntax", type=click.Choice(sorted(SYNTAXES)), default="nested", show_default=True)
@click.option("--dev-percent", type=click.FloatRange(0, 100), default=13.0, show_default=True,
              help="Share of image ids whose questions go to dev.")
@click.option("--exclude", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Question file(s) whose questions and images never enter the data.")
@click.option("--augment", type=click.IntRange(min=0), default=0, show_default=True,
              help="Add up to N ontology-substituted copies of each train pair.")
@click.option("--seed", type=int, default=0, show_default=True)
def data(files: tuple[str, ...], out: str, syntax: str, dev_percent: float, exclude: tuple[str, ...],
         augment: int, seed: int) -> None:
    """(question, program) pairs from GQA question FILES (default: the shared ones), split by
    image id into train and dev, deduplicated, as JSON lines."""
    from qlang.train.pairs import make_pairs, write_pairs

    sources = [Path(f) for f in files] or sorted(SHARED_QUESTIONS.glob("*.json"))
    try:
        pairs, counts = make_pairs(sources, syntax=syntax, dev_percent=dev_percent, exclude=exclude)
    except QlangError as exc:
        fail(exc)
    train = [p for p in pairs if p.split == "train"]
    dev = [p for p in pairs if p.split == "dev"]
    if augment:
        from qlang.train.augment import augment as substitute

        added = substitute(train, augment, seed=seed, syntax=syntax)
        counts["augmented"] = len(added)
        train += added
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    counts |= {"train": write_pairs(train, folder / "train.jsonl"),
               "dev": write_pairs(dev, folder / "dev.jsonl")}
    summary = {"sources": [str(s) for s in sources], "exclude": list(exclude), "syntax": syntax,
               "dev_percent": dev_percent, "augment": augment, "seed": seed, **counts}
    (folder / "data.json").write_text(json.dumps(summary, indent=2) + "\n")
    click.echo(", ".join(f"{k} {v}" for k, v in counts.items()))


@click.command()
@click.option("--data", "data_file", type=click.Path(exists=True, dir_okay=False), required=True,
              help="Training pairs (train.jsonl of `qlangc data`).")
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Run folder: checkpoint (resumable), the adapter or model, adapter.gguf.")
@click.option("--base", default="smollm2", show_default=True,
              help="smollm2 (the bundled GGUF), another GGUF path, or a local HF model directory.")
@click.option("--method", type=click.Choice(["lora", "full"]), default="lora", show_default=True)
@click.option("--rank", type=click.IntRange(min=1), default=16, show_default=True)
@click.option("--alpha", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--lr", type=click.FloatRange(min=0, min_open=True, max=1),
              help="Learning rate (default 1e-3 LoRA, 5e-5 full).")
@click.option("--batch-size", type=click.IntRange(min=1, max=4096), default=8, show_default=True)
@click.option("--epochs", type=click.FloatRange(min=0, min_open=True, max=1000), default=1.0,
              show_default=True)
@click.option("--max-steps", type=click.IntRange(min=1), help="Stop after N steps (overrides --epochs).")
@click.option("--checkpoint-every", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--device", default="auto", show_default=True, help="auto (CUDA if present), cpu, cuda...")
@click.option("--init", type=click.Path(exists=True, file_okay=False),
              help="LoRA: continue from this adapter folder (an earlier run's `adapter`); "
                   "its rank and alpha win over --rank/--alpha.")
def train(data_file: str, out: str, base: str, method: str, rank: int, alpha: int, lr: float | None,
          batch_size: int, epochs: float, max_steps: int | None, checkpoint_every: int, seed: int,
          device: str, init: str | None) -> None:
    """Fine-tune a model on question -> program pairs; run again to resume after a kill."""
    from qlang.train.finetune import TrainSettings
    from qlang.train.finetune import train as run
    from qlang.train.pairs import read_pairs
    from qlang.translate.models import hf_directory

    try:
        pairs = list(read_pairs(data_file))
        settings = TrainSettings(syntax=_syntax(pairs), method=method, rank=rank, alpha=alpha,
                                 learning_rate=lr, batch_size=batch_size, epochs=epochs,
                                 max_steps=max_steps, checkpoint_every=checkpoint_every, seed=seed,
                                 device=device, init=init)
        summary = run(pairs, hf_directory(base), Path(out), settings)
        if method == "lora":
            summary["gguf"] = str(_export(Path(summary["output"]), Path(out) / "adapter.gguf",
                                          settings.syntax))
    except QlangError as exc:
        fail(exc)
    click.echo(json.dumps(summary, indent=2))


def _syntax(pairs: list[Any]) -> str:
    from qlang.syntax import detect

    return detect(pairs[0].program) if pairs else "nested"


def _export(adapter: Path, target: Path, syntax: str) -> Path:
    from qlang.train.export import export_lora

    return export_lora(adapter, target, metadata={"qlang.syntax": syntax})


@click.command()
@click.argument("adapter", type=click.Path(exists=True, file_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="The GGUF file to write.")
@click.option("--syntax", type=click.Choice(sorted(SYNTAXES)), default="nested", show_default=True,
              help="The syntax the adapter writes (recorded in the file).")
def export(adapter: str, out: str, syntax: str) -> None:
    """Export a LoRA ADAPTER folder (from `qlangc train`) as a GGUF adapter for llama.cpp."""
    try:
        click.echo(_export(Path(adapter), Path(out), syntax))
    except QlangError as exc:
        fail(exc)
