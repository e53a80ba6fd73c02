"""`qlangc experiment ...` and `qlangc eval`: measure translators, reproduce the thesis's tables."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import click

from qlang.errors import QlangError
from qlang.translate.cli import backend_from, read_questions, settings_from, translation_options

_experiment_options = (
    click.option("--questions", "questions_file", type=click.Path(exists=True, dir_okay=False),
                 required=True, help="GQA question file (or JSON lines with id, question, semantic)."),
    click.option("--limit", type=click.IntRange(min=1), help="Only the first N questions."),
    click.option("--out", type=click.Path(file_okay=False), required=True,
                 help="Output folder: results.jsonl (resumable), report.md and PNG plots."),
)


@click.group()
def experiment() -> None:
    """Run one of the seed thesis's experiments (or the constrained-decoding one)."""


def _experiment(name: str, doc: str, extra: tuple[Any, ...] = ()) -> None:
    def command(questions_file: str, limit: int | None, out: str, **options: Any) -> None:
        from qlang.evaluate import experiments, report

        specs = options.pop("models", None)
        try:
            base = settings_from(options)
            build = experiments.EXPERIMENTS[name]
            configs = build(base, list(specs)) if name == "models" else build(base)
            questions = experiments.questions_from(read_questions(questions_file, limit))
            log = experiments.run(configs, questions, Path(out), _factory(options))
        except QlangError as exc:
            click.echo(exc.render(), err=True)
            sys.exit(1)
        axes = [axis for axis, _ in configs[0].axes]
        command_line = "qlangc " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        path = report.write(Path(out), f"Experiment: {name}", log, axes, command_line)
        click.echo(f"report: {path}")

    command.__doc__ = doc
    for option in reversed((*_experiment_options, *extra)):
        command = option(command)
    experiment.command(name)(translation_options(command))


def _factory(options: dict[str, Any]) -> Any:
    """Builds a translator per configuration, loading each backend/model once."""
    from qlang.translate.examples import load_pool
    from qlang.translate.translator import Translator

    backends: dict[tuple[str, str | None], Any] = {}
    pool = load_pool(options["pool"])

    def make(config: Any) -> Any:
        key = (config.backend, config.model or options["model"])
        if key not in backends:
            backends[key] = backend_from(options, *key)
        return Translator(backends[key], pool, config.settings)

    return make


_experiment("prompt-grid", "Examples {1,3,5,10,15} x sampling x cover_operators (thesis Tables 4-5).")
_experiment("prompts", "Prompt versions v1-v10 (thesis Table 6).")
_experiment("syntaxes", "GQA vs flat vs nested vs code-like (thesis Tables 7-8).")
_experiment("constrained", "Unconstrained vs syntax-only vs GBNF vs llguidance decoding.")
_experiment("models", "Any list of backends/models (thesis Table 9).", (
    click.option("--models", multiple=True, required=True,
                 help="backend:model, repeatable (e.g. llama-cpp:smollm2, llama-cpp:gemma3)."),))
