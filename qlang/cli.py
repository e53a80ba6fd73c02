"""`qlangc`: the command line.  Every command reads a FILE or `-` (standard input).

Exit status: 0 success, 1 the input has errors (reported as ``file:line:col: message`` with the
source line and a caret), 2 the command was used wrongly.  No input makes it print a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

import click

from qlang import api
from qlang.batch import Record, internal_error, read_records, write
from qlang.console import fail, read_lines, read_source
from qlang.errors import Diagnostic, QlangError
from qlang.passes.canonical import canonicalize
from qlang.signatures import markdown_table
from qlang.syntax import SYNTAXES, detect

SYNTAX_NAMES = click.Choice(sorted(SYNTAXES))
_from = click.option("--from", "from_", type=SYNTAX_NAMES, help="Input syntax (guessed if omitted).")
_open = click.option("--open-vocabulary", is_flag=True,
                     help="Report unknown classes, attributes and relations as warnings, not errors.")
_jsonl = click.option("--jsonl", is_flag=True,
                      help='Batch: each input line is {"id", "program" | "semantic"}; one result line each.')
_input = click.argument("file", type=click.Path(allow_dash=True, dir_okay=False), default="-")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="qlang")
def cli() -> None:
    """qlang: compile, check and solve GQA question programs."""


def run_batch(file: str, syntax: str | None, handle: Callable[[Record], dict[str, object]]) -> None:
    """Answer every line of a JSON-lines input; exit 1 if any line failed."""
    failed = False
    out: TextIO = sys.stdout
    for record in read_records(read_lines(file), syntax):
        result = record.error_json() if record.error else _guarded(record, handle)
        failed = failed or "error" in result or bool(result.get("errors"))
        write(out, result)
    sys.exit(1 if failed else 0)


def _guarded(record: Record, handle: Callable[[Record], dict[str, object]]) -> dict[str, object]:
    try:
        return handle(record)
    except QlangError as exc:
        return record.error_json(exc)
    except Exception as exc:  # one line's failure must not end the batch
        return record.error_json(internal_error(exc))


@cli.command()
@_from
@click.option("--to", "to", type=SYNTAX_NAMES, required=True, help="Output syntax.")
@_jsonl
@_input
def compile(from_: str | None, to: str, jsonl: bool, file: str) -> None:
    """Convert a program from one syntax to another."""
    printer = SYNTAXES[to].print
    if jsonl:
        run_batch(file, from_, lambda r: {"id": r.id, "program": printer(canonicalize(_root(r)))})
    source = read_source(file)
    try:
        click.echo(printer(canonicalize(api.parse(source.text, from_, name=source.name))))
    except QlangError as exc:
        fail(exc, source)


def _root(record: Record) -> Any:
    assert record.root is not None
    return record.root


@cli.command()
@_from
@_open
@_jsonl
@_input
def check(from_: str | None, open_vocabulary: bool, jsonl: bool, file: str) -> None:
    """Check that a program is well formed and well typed (exit 0), else list every error."""
    if jsonl:
        run_batch(file, from_, lambda r: _check_record(r, open_vocabulary))
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
