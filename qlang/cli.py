"""`qlangc`: the command line.  Every command reads a FILE or `-` (standard input).

Exit status: 0 success, 1 the input has errors (reported as ``file:line:col: message`` with the
source line and a caret), 2 the command was used wrongly.  No input makes it print a traceback.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import click

from qlang import api, batch
from qlang.batch import Record
from qlang.console import fail, read_lines, read_source
from qlang.errors import Diagnostic, QlangError
from qlang.passes.canonical import canonicalize
from qlang.signatures import markdown_table
from qlang.syntax import SYNTAXES, detect

SYNTAX_NAMES = click.Choice(sorted(SYNTAXES))
#: More jobs than any machine has cores.
MAX_JOBS = 256
_from = click.option("--from", "from_", type=SYNTAX_NAMES, help="Input syntax (guessed if omitted).")
_open = click.option("--open-vocabulary", is_flag=True,
                     help="Report unknown classes, attributes and relations as warnings, not errors.")
_jsonl = click.option("--jsonl", is_flag=True,
                      help='Batch: each input line is {"id", "program" | "semantic"}; one result line each.')
_jobs = click.option("--jobs", type=click.IntRange(min=1, max=MAX_JOBS), default=None,
                     help="Batch: processes answering lines (default: all cores); output keeps input order.")
_input = click.argument("file", type=click.Path(allow_dash=True, dir_okay=False), default="-")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="qlang")
def cli() -> None:
    """qlang: compile, check and solve GQA question programs."""


def run_batch(file: str, syntax: str | None, handle: batch.Handler, jobs: int | None) -> NoReturn:
    """Answer every line of a JSON-lines input, in order, on `jobs` cores (default: all); exit 1
    if any line failed."""
    try:
        ok = batch.run(read_lines(file), handle, sys.stdout, syntax=syntax, jobs=jobs or batch.cores())
    except QlangError as exc:
        fail(exc)
    sys.exit(0 if ok else 1)


@cli.command()
@_from
@click.option("--to", "to", type=SYNTAX_NAMES, required=True, help="Output syntax.")
@_jsonl
@_jobs
@_input
def compile(from_: str | None, to: str, jsonl: bool, jobs: int | None, file: str) -> None:
    """Convert a program from one syntax to another."""
    printer = SYNTAXES[to].print
    _batch_only(jsonl, jobs)
    if jsonl:
        run_batch(file, from_, lambda r: {"id": r.id, "program": printer(canonicalize(_root(r)))}, jobs)
    source = read_source(file)
    try:
        click.echo(printer(canonicalize(api.parse(source.text, from_, name=source.name))))
    except QlangError as exc:
        fail(exc, source)


def _batch_only(jsonl: bool, jobs: int | None) -> None:
    if jobs is not None and not jsonl:
        raise click.UsageError("--jobs is for batch mode (--jsonl)")


def _root(record: Record) -> Any:
    assert record.root is not None
    return record.root


@cli.command()
@_from
@_open
@_jsonl
@_jobs
@_input
def check(from_: str | None, open_vocabulary: bool, jsonl: bool, jobs: int | None, file: str) -> None:
    """Check that a program is well formed and well typed (exit 0), else list every error."""
    _batch_only(jsonl, jobs)
    if jsonl:
        run_batch(file, from_, lambda r: _check_record(r, open_vocabulary), jobs)
    source = read_source(file)
    try:
        root = api.parse(source.text, from_, name=source.name)
        warnings = api.check(root, open_vocabulary=open_vocabulary, source=source)
    except QlangError as exc:
        fail(exc, source)
    for warning in warnings:
        click.echo(warning.render(source), err=True)


def _check_record(record: Record, open_vocabulary: bool) -> dict[str, object]:
    warnings = api.check(_root(record), open_vocabulary=open_vocabulary, source=record.source)
    result: dict[str, object] = {"id": record.id, "ok": True}
    if warnings:
        result["warnings"] = [w.to_json() for w in warnings]
    return result


@cli.command()
@_from
@_input
def fmt(from_: str | None, file: str) -> None:
    """Pretty-print a program in its own syntax (idempotent)."""
    source = read_source(file)
    syntax = from_ or detect(source.text)
    try:
        click.echo(api.convert(source.text, syntax, from_=syntax, name=source.name))
    except QlangError as exc:
        fail(exc, source)


@cli.command()
@_from
@_open
@_input
def lower(from_: str | None, open_vocabulary: bool, file: str) -> None:
    """Check a program and print its ASP facts, ready for the theory."""
    source = read_source(file)
    try:
        root = api.parse(source.text, from_, name=source.name)
        api.check(root, open_vocabulary=open_vocabulary, source=source)
        click.echo(api.lower(root, open_vocabulary=open_vocabulary))
    except QlangError as exc:
        fail(exc, source)


@cli.command()
def ops() -> None:
    """Print the operation table (Markdown)."""
    click.echo(markdown_table())


# backend commands register here: cli.add_command(<command>)
from qlang.asp.cli import explain, solve  # noqa: E402 - it imports this module's helpers lazily
from qlang.evaluate.cli import evaluate, experiment, oracle  # noqa: E402
from qlang.train.cli import calibrate, data, export, train  # noqa: E402
from qlang.translate.cli import ask, grammar, translate  # noqa: E402
from qlang.vision.cli import perceive  # noqa: E402

for _command in (solve, explain, translate, ask, grammar, experiment, evaluate, oracle, data, train,
                 export, calibrate, perceive):
    cli.add_command(_command)


def main() -> None:
    """Entry point: a last guard so that even a bug reports a message, not a traceback."""
    try:
        cli(standalone_mode=True)
    except SystemExit:
        raise
    except Exception as exc:
        message = Diagnostic("internal", f"internal error: {type(exc).__name__}: {exc}")
        click.echo(message.render(None) + "\n(please report this as a bug)", err=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
