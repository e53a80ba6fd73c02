"""`qlangc data`, `qlangc train` and `qlangc export`: make a translator from real GQA pairs.

torch, transformers and peft load only inside `train` and `export`.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from qlang.commands.console import check_output, check_replaced, fail, output_folder
from qlang.errors import QlangError, error
from qlang.paths import GQA_QUESTIONS
from qlang.syntax import SYNTAXES

if TYPE_CHECKING:
    from collections.abc import Sequence

    from qlang.train.pairs import Pair

#: The most copies `data --augment` makes of each pair, and pairs `--knowledge` makes: the
#: templates run out of new pairs long before, and a larger count only keeps a run busy.
MAX_AUGMENT, MAX_KNOWLEDGE = 100, 100_000


@click.command()
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Folder for train.jsonl, dev.jsonl, data.json (the counts) and "
                   "program_categories.json (what qlang/data/ontology holds: "
                   "qlang.train.categories).")
@click.option("--syntax", type=click.Choice(sorted(SYNTAXES)), default="nested", show_default=True)
@click.option("--dev-percent", type=click.FloatRange(0, 100), default=13.0, show_default=True,
              help="Share of image ids whose questions go to dev.")
@click.option("--exclude", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Question file(s) whose questions and images never enter the data.")
@click.option("--augment", type=click.IntRange(min=0, max=MAX_AUGMENT), default=0, show_default=True,
              help="Add up to N ontology-substituted copies of each train pair.")
@click.option("--knowledge", type=click.IntRange(min=0, max=MAX_KNOWLEDGE), default=0, show_default=True,
              help="Add N pairs of the knowledge operations made by templates over the ontology "
                   "and the bundled knowledge base; a held-out phrasing's go to knowledge-dev.jsonl.")
@click.option("--text", type=click.IntRange(min=0, max=MAX_KNOWLEDGE), default=0, show_default=True,
              help="Add N pairs of the text operations (read, extract, match) made by templates "
                   "over the ontology; a held-out phrasing's go to text-dev.jsonl.")
@click.option("--seed", type=int, default=0, show_default=True)
def data(files: tuple[str, ...], out: str, syntax: str, dev_percent: float, exclude: tuple[str, ...],
         augment: int, knowledge: int, text: int, seed: int) -> None:
    """(question, program) pairs from GQA question FILES (default: the shared ones), split by
    image id into train and dev, deduplicated, as JSON lines."""
    from qlang.ontology import load
    from qlang.train.categories import program_categories
    from qlang.train.pairs import make_pairs, write_pairs

    folder = output_folder(out, *files, *exclude,
                           files=("train.jsonl", "dev.jsonl", "knowledge-dev.jsonl", "text-dev.jsonl",
                                  "data.json", "program_categories.json"))
    sources = [Path(f) for f in files] or sorted(GQA_QUESTIONS.glob("*.json"))
    try:
        pairs, counts = make_pairs(sources, syntax=syntax, dev_percent=dev_percent, exclude=exclude)
    except QlangError as exc:
        fail(exc)
    train = [p for p in pairs if p.split == "train"]
    dev = [p for p in pairs if p.split == "dev"]
    (folder / "program_categories.json").write_text(
        json.dumps(program_categories(train, load()), indent=1) + "\n")
    if augment:
        from qlang.train.augment import augment as substitute

        added = substitute(train, augment, seed=seed, syntax=syntax)
        counts["augmented"] = len(added)
        train += added
    for name, n, making in (("knowledge", knowledge, _knowledge_pairs), ("text", text, _text_pairs)):
        if not n:
            continue
        try:
            made = making(n, seed, syntax)
        except QlangError as exc:
            fail(exc)
        train += [p for p in made if p.split == "train"]
        held_out = [p for p in made if p.split == "dev"]
        counts |= {f"{name}-train": len(made) - len(held_out),
                   f"{name}-dev": write_pairs(held_out, folder / f"{name}-dev.jsonl")}
    counts |= {"train": write_pairs(train, folder / "train.jsonl"),
               "dev": write_pairs(dev, folder / "dev.jsonl")}
    summary = {"sources": [str(s) for s in sources], "exclude": list(exclude), "syntax": syntax,
               "dev_percent": dev_percent, "augment": augment, "knowledge": knowledge, "text": text,
               "seed": seed, **counts}
    (folder / "data.json").write_text(json.dumps(summary, indent=2) + "\n")
    click.echo(", ".join(f"{k} {v}" for k, v in counts.items()))


def _knowledge_pairs(n: int, seed: int, syntax: str) -> list[Any]:
    from qlang.train.knowledge_pairs import knowledge_pairs

    return knowledge_pairs(n, seed=seed, syntax=syntax)


def _text_pairs(n: int, seed: int, syntax: str) -> list[Any]:
    from qlang.train.text_pairs import text_pairs

    return text_pairs(n, seed=seed, syntax=syntax)


@click.command()
@click.option("--data", "data_file", type=click.Path(exists=True, dir_okay=False), required=True,
              help="Training pairs (train.jsonl of `qlangc data`).")
@click.option("--out", type=click.Path(file_okay=False), required=True,
              help="Run folder: checkpoint (resumable), the adapter or model, adapter.gguf.")
@click.option("--arch", type=click.Choice(["llm", "seq2seq"]), default="llm", show_default=True,
              help="llm: fine-tune --base; seq2seq: the small parser, from scratch (out/model).")
@click.option("--base", default="smollm2", show_default=True,
              help="llm: smollm2 or gemma3 (the bundled GGUFs), another GGUF path, or a local HF "
                   "model directory.")
@click.option("--method", type=click.Choice(["lora", "full"]), default="lora", show_default=True)
@click.option("--rank", type=click.IntRange(min=1), default=16, show_default=True)
@click.option("--alpha", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--hidden", type=click.IntRange(min=8, max=4096), default=256, show_default=True,
              help="seq2seq: LSTM width.")
@click.option("--lr", type=click.FloatRange(min=0, min_open=True, max=1),
              help="Learning rate (default 1e-3 LoRA, 5e-5 full, 3e-3 seq2seq).")
@click.option("--batch-size", type=click.IntRange(min=1, max=4096),
              help="Default 8 (llm), 32 (seq2seq).")
@click.option("--epochs", type=click.FloatRange(min=0, min_open=True, max=1000),
              help="Default 1 (llm), 30 (seq2seq).")
@click.option("--max-steps", type=click.IntRange(min=1), help="Stop after N steps (overrides --epochs).")
@click.option("--checkpoint-every", type=click.IntRange(min=1), help="Default 50 (llm), 200 (seq2seq).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--device", default="auto", show_default=True, help="auto (CUDA if present), cpu, cuda...")
@click.option("--init", type=click.Path(exists=True, file_okay=False),
              help="LoRA: continue from this adapter folder (an earlier run's `adapter`); "
                   "its rank and alpha win over --rank/--alpha.")
def train(data_file: str, out: str, arch: str, base: str, method: str, rank: int, alpha: int,
          hidden: int, lr: float | None, batch_size: int | None, epochs: float | None,
          max_steps: int | None, checkpoint_every: int | None, seed: int, device: str,
          init: str | None) -> None:
    """Train a translator on question -> program pairs; run again to resume after a kill."""
    from qlang.train import finetune, small
    from qlang.train.pairs import read_pairs

    output_folder(out, data_file)
    loop = (small.LOOP if arch == "seq2seq" else finetune.LOOP).given(
        learning_rate=lr, batch_size=batch_size, epochs=epochs, max_steps=max_steps,
        checkpoint_every=checkpoint_every, seed=seed)
    try:
        pairs = list(read_pairs(data_file))
        if arch == "seq2seq":
            trained = small.train(pairs, Path(out), small.SmallSettings(hidden=hidden, loop=loop),
                                  device=device)
            trained["backoff"] = _backoff(Path(trained["output"]), pairs)
            click.echo(json.dumps(trained, indent=2))
            return
        from qlang.translate.models import hf_directory

        settings = finetune.TrainSettings(syntax=_syntax(pairs), method=method, rank=rank,
                                          alpha=alpha, loop=loop, device=device, init=init)
        summary = finetune.train(pairs, hf_directory(base), Path(out), settings)
        if method == "lora":
            summary["gguf"] = str(_export(Path(summary["output"]), Path(out) / "adapter.gguf",
                                          settings.syntax))
    except QlangError as exc:
        fail(exc)
    click.echo(json.dumps(summary, indent=2))


def _backoff(model: Path, pairs: Sequence[Pair]) -> str:
    """The back-off table written, or why not: a model without one is still a whole model
    (a GPU machine training it may lack the embedding model), and `qlangc backoff` adds it."""
    from qlang.train import backoff

    try:
        return f"{len(backoff.write(model, pairs))} words"
    except QlangError as exc:
        return f"not made ({exc.diagnostics[0].message}): run `qlangc backoff {model} --data ...`"


@click.command()
@click.argument("model", type=click.Path(exists=True, file_okay=False))
@click.option("--data", "data_file", type=click.Path(exists=True, dir_okay=False), required=True,
              help="The pairs MODEL was trained on (train.jsonl of `qlangc data`).")
def backoff(model: str, data_file: str) -> None:
    """Give a small-parser MODEL folder its back-off table: each word its training questions
    never said, read as the nearest word they did (MiniLM similarity 0.7 or more)."""
    from qlang.train import backoff as lexical
    from qlang.train.pairs import read_pairs

    try:
        found = lexical.write(Path(model), list(read_pairs(data_file)))
    except QlangError as exc:
        fail(exc)
    shown = ", ".join(f"{w} -> {found[w]}" for w in sorted(found)[:5])
    click.echo(f"{len(found)} words read as trained ones ({shown}{', ...' if len(found) > 5 else ''})")


@click.command()
@click.argument("model", type=click.Path(exists=True, file_okay=False))
@click.option("--dev", "dev_file", type=click.Path(exists=True, dir_okay=False), required=True,
              help="Dev pairs (dev.jsonl of `qlangc data`), never trained on.")
@click.option("--fallback", type=click.Path(exists=True, dir_okay=False), required=True,
              help="The fallback translator's output on the same questions (`qlangc translate "
                   "--translator finetuned --jsonl DEV --output FILE`).")
@click.option("--slack", type=click.FloatRange(0, 1), default=0.005, show_default=True,
              help="How far below the best setting's accuracy a setting may lie and still be "
                   "chosen: among those, the one whose neighbours do best, then the fastest.")
@click.option("--beam", type=click.IntRange(1, 64), default=4, show_default=True)
@click.option("--rescore-below", "cap", type=click.FloatRange(0, 1), default=0.999, show_default=True,
              help="The highest threshold tried: the fine-tuned model scores the candidates of the "
                   "questions whose best lies below it.")
@click.option("--adapter", type=click.Path(exists=True, dir_okay=False),
              help="The fine-tuned model's LoRA adapter (GGUF) that scores the candidates, as "
                   "`translate --adapter` (default: the bundled one); give the one --fallback's "
                   "programs came from.")
@click.option("--base", help="The base model --adapter applies to, as in `train --base` (a bundled "
                              "name or a GGUF path; default: smollm2).")
@click.option("--scorer", help="A bundled adapter that scores the candidates instead of the "
                                "fallback (gemma3-qlang; recorded in the config, so the cascade "
                                "scores with it too); not with --adapter or --base.")
@click.option("--splits", type=click.IntRange(0, 10_000), default=200, show_default=True,
              help="Random halvings of dev to report the held-out figure over (each half "
                   "calibrated on the other): its mean and spread; 0: none.")
def calibrate(model: str, dev_file: str, fallback: str, slack: float, beam: int, cap: float,
              adapter: str | None, base: str | None, scorer: str | None, splits: int) -> None:
    """Calibrate the cascade for a small-parser MODEL folder on dev questions.

    Its threshold, and how the fine-tuned model rescores the candidates below it, are written
    into the model's config; the same calibration on each half of dev, measured on the other, is
    printed: for the even and odd positions, and over `--splits` random halvings."""
    from qlang.records.questions import questions_by_id
    from qlang.small import calibrate as cal
    from qlang.small.files import write_config
    from qlang.small.parser import SmallParser
    from qlang.syntax import gqa
    from qlang.train.pairs import read_pairs
    from qlang.translate.factory import Models, make
    from qlang.translate.models import adapter as bundled
    from qlang.translate.translator import Settings, Translator

    try:
        if scorer is not None:
            if adapter is not None or base is not None:
                raise error(QlangError, "usage", "--scorer names the adapter and its base: give it "
                            "without --adapter or --base")
            named = bundled(scorer)
            base, adapter = named.base, str(named.path)
        dev = list(read_pairs(dev_file))
        if not dev:
            raise error(QlangError, "input", "no dev pairs to calibrate on (records with a question and "
                        "a program)", path=dev_file)
        golds = [gqa.to_ir(gqa.steps_from_json(p.record["semantic"])) for p in dev]
        parser = SmallParser.load(model, beam)
        programs = {k: v.get("program") for k, v in questions_by_id(fallback).items()}
        generated = [cal.program(programs.get(p.id), p.question) for p in dev]
        finetuned = make(Settings(translator="finetuned"), Models(model=base, adapter=adapter))
        assert isinstance(finetuned, Translator)
        scored = cal.gather(parser, [p.question for p in dev], golds, generated, finetuned.likelihoods, cap)
        chosen = cal.choose_setting(scored, cap, slack)
        setting = chosen.setting
        config = parser.network.config
        write_config(Path(model), replace(
            config, threshold=setting.threshold, rescore_weight=setting.weight, length_bonus=setting.bonus,
            scorer=scorer, notes={**config.notes, "calibration": {
                "dev": dev_file, "fallback": fallback, "slack": slack, "questions": len(dev),
                "rescore_below": cap, **asdict(setting), "exact": round(chosen.exact, 6),
                **{f"{path} share": round(chosen.share(path), 6) for path in _PATHS}}}))
    except QlangError as exc:
        fail(exc)
    _report("all of dev", chosen)
    reach = sum(map(cal.within_reach, scored))
    click.echo(f"within reach: {reach}/{len(scored)} ({reach / max(1, len(scored)):.1%}), the gold among "
               "the small parser's candidates or the fine-tuned model's own program: no setting "
               "does better")
    halves = [scored[0::2], scored[1::2]]
    for name, (fit, held) in {"even -> odd": halves, "odd -> even": halves[::-1]}.items():
        _report(f"{name} (held-out half)", cal.outcome(held, cal.choose_setting(fit, cap, slack).setting))
    if splits:
        pairs = cal.held_out(scored, cap, slack, splits)
        totals = [sum(first.right) + sum(second.right) for first, second in pairs]
        mean = statistics.mean(totals)
        click.echo(f"{splits} random halvings (held out, both halves): exact {mean:.2f}/{len(scored)} "
                   f"({mean / len(scored):.2%}) on average, {min(totals)} to {max(totals)}")
        paths = [path for pair in pairs for half in pair for path in half.paths]
        right = [r for pair in pairs for half in pair for r in half.right]
        share, exact = cal.by_path(paths, right, *_PATHS[1:])
        click.echo(f"  held out, by path: {_by_path(paths, right)}; the fine-tuned models {exact:.1%} "
                   f"exact on the {share:.1%} they answer")


_PATHS = ("small", "rescored", "finetuned")


def _report(name: str, outcome: Any) -> None:
    setting = outcome.setting
    click.echo(f"{name}: threshold {setting.threshold:.4f}, weight {setting.weight:g}, bonus "
               f"{setting.bonus:g}: exact {sum(outcome.right)}/{len(outcome.right)} "
               f"({outcome.exact:.1%}); " + _by_path(outcome.paths, outcome.right))


def _by_path(paths: Sequence[str], right: Sequence[bool]) -> str:
    """Each path's share of the questions, and how exact it is there."""
    from qlang.small.calibrate import by_path

    return ", ".join("{} {:.1%} ({:.1%} exact)".format(path, *by_path(paths, right, path)) for path in _PATHS)


def _syntax(pairs: list[Any]) -> str:
    from qlang.syntax import detect

    return detect(pairs[0].program) if pairs else "nested"


def _export(adapter: Path, target: Path, syntax: str) -> Path:
    from qlang.translate.adapters import export_lora

    return export_lora(adapter, target, metadata={"qlang.syntax": syntax})


@click.command()
@click.argument("adapter", type=click.Path(exists=True, file_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="The GGUF file to write.")
@click.option("--syntax", type=click.Choice(sorted(SYNTAXES)), default="nested", show_default=True,
              help="The syntax the adapter writes (recorded in the file).")
@click.option("--force", is_flag=True, help="Replace an existing --out that is no GGUF file.")
def export(adapter: str, out: str, syntax: str, force: bool) -> None:
    """Export a LoRA ADAPTER folder (from `qlangc train`) as a GGUF adapter for llama.cpp."""
    check_output(out)
    check_replaced(out, "GGUF file", lambda head: head.startswith(b"GGUF"), force=force)
    try:
        click.echo(_export(Path(adapter), Path(out), syntax))
    except QlangError as exc:
        fail(exc)
