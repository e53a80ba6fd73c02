"""`qlangc`: the command line.  Every command reads a FILE or `-` (standard input).

Exit status: 0 success, 1 the input has errors (reported as ``file:line:col: message`` with the
source line and a caret), 2 the command was used wrongly.  No input makes it print a traceback.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, NoReturn

import click

from qlang import api, batch, executors
from qlang.batch import Record
from qlang.console import fail, read_lines, read_source
from qlang.errors import Diagnostic, QlangError, Source
from qlang.ir import Node
from qlang.signatures import markdown_table
from qlang.syntax import SYNTAXES, detect

SYNTAX_NAMES = click.Choice(sorted(SYNTAXES))
_from = click.option("--from", "from_", type=SYNTAX_NAMES, help="Input syntax (guessed if omitted).")
_open = click.option("--open-vocabulary", is_flag=True,
                     help="Report unknown classes, attributes and relations as warnings, not errors.")
_jsonl = click.option("--jsonl", is_flag=True,
                      help='Batch: each input line is {"id", "program" | "semantic"}; one result line each.')
_workers = executors.options("Batch: worker processes (default: all cores), or Ray actors with "
                             "--executor ray (default 1); the output keeps input order.",
                             default=None, jobs=True)
_input = click.argument("file", type=click.Path(allow_dash=True, dir_okay=False), default="-")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="qlang")
def cli() -> None:
    """qlang: compile, check and solve GQA question programs.

    Batches (compile, check, solve and translate with --jsonl; eval; experiment) run on
    --executor local (this machine, the default) or ray (a Ray cluster's actors), with
    --workers of them; with --output a killed batch resumes where it stopped.
    """


def run_batch(file: str, syntax: str | None, handle: batch.Handler, output: str | None,
              workers: int | None, executor: executors.Executor | None) -> NoReturn:
    """Answer every line of a JSON-lines input still missing from `output` (default: standard
    output), in order, on `executor` (default: `workers` local processes, default all cores);
    exit 1 if any line failed."""
    lines = read_lines(file)
    batch.run_and_exit(lambda out, pending: batch.run(
        lines, handle, out, syntax=syntax, jobs=workers or batch.cores(), pending=pending,
        executor=executor), output, file)


@cli.command()
@_from
@click.option("--to", "to", type=SYNTAX_NAMES, required=True, help="Output syntax.")
@_open
@_jsonl
@batch.output_option
@_workers
@_input
def compile(from_: str | None, to: str, open_vocabulary: bool, jsonl: bool, output: str | None,
            workers: int | None, executor: str, address: str | None, file: str) -> None:
    """Convert a checked program from one syntax to another (exit 1 with every error if it is
    not well formed and well typed)."""
    runner = executors.from_options(executor, workers, address, batch=jsonl)
    if jsonl:
        run_batch(file, from_, Converting(to, open_vocabulary), output, workers, runner)
    source = read_source(file)
    try:
        click.echo(SYNTAXES[to].print(_checked(source, from_, open_vocabulary)))
    except QlangError as exc:
        fail(exc, source)


@dataclass(frozen=True, slots=True)
class Converting:
    """What `compile --jsonl` makes of a line: its checked program in syntax `to` (printers
    name equal steps once, so the program need not be canonicalised first)."""

    to: str
    open_vocabulary: bool = False

    def __call__(self, record: Record) -> dict[str, object]:
        warnings = _warnings(record, self.open_vocabulary)
        return {"id": record.id, "program": SYNTAXES[self.to].print(_root(record)), **warnings}


def _root(record: Record) -> Any:
    assert record.root is not None
    return record.root


@cli.command()
@_from
@_open
@_jsonl
@batch.output_option
@_workers
@_input
def check(from_: str | None, open_vocabulary: bool, jsonl: bool, output: str | None,
          workers: int | None, executor: str, address: str | None, file: str) -> None:
    """Check that a program is well formed and well typed (exit 0), else list every error."""
    runner = executors.from_options(executor, workers, address, batch=jsonl)
    if jsonl:
        run_batch(file, from_, Checking(open_vocabulary), output, workers, runner)
    source = read_source(file)
    try:
        _checked(source, from_, open_vocabulary)
    except QlangError as exc:
        fail(exc, source)


def _checked(source: Source, syntax: str | None, open_vocabulary: bool) -> Node:
    """The program of a source, parsed and checked, its warnings written to standard error;
    raises `QlangError` with its errors."""
    root = api.parse(source.text, syntax, name=source.name)
    for warning in api.check(root, open_vocabulary=open_vocabulary, source=source):
        click.echo(warning.render(source), err=True)
    return root


@dataclass(frozen=True, slots=True)
class Checking:
    """What `check --jsonl` makes of a line: ok, with the warnings it has."""

    open_vocabulary: bool

    def __call__(self, record: Record) -> dict[str, object]:
        return {"id": record.id, "ok": True, **_warnings(record, self.open_vocabulary)}


def _warnings(record: Record, open_vocabulary: bool) -> dict[str, object]:
    """The warnings of a line's program, as its result shows them (none: nothing); raises
    `CheckError` with its errors."""
    warnings = api.check(_root(record), open_vocabulary=open_vocabulary, source=record.source)
    return {"warnings": [w.to_json() for w in warnings]} if warnings else {}


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
