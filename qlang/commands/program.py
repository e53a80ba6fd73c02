"""`qlangc compile`, `check`, `fmt`, `lower` and `ops`: programs in, programs (or their facts) out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import click

from qlang import api, executors, limits
from qlang.commands.background_options import background_from, background_options
from qlang.commands.console import (
    check_output,
    executor_from,
    executor_options,
    fail,
    output_option,
    read_lines,
    read_source,
    run_and_exit,
)
from qlang.errors import Diagnostic, QlangError, Source
from qlang.ir import Node
from qlang.passes.lower import facts
from qlang.records import program_lines
from qlang.records.output import holding
from qlang.records.program_lines import Record
from qlang.signatures import markdown_table
from qlang.syntax import SYNTAXES, detect

if TYPE_CHECKING:
    from qlang.asp.background import Background

SYNTAX_NAMES = click.Choice(sorted(SYNTAXES))
_from = click.option("--from", "from_", type=SYNTAX_NAMES, help="Input syntax (guessed if omitted).")
_open = click.option("--open-vocabulary", is_flag=True,
                     help="Report unknown classes, attributes and relations as warnings, not errors.")
_jsonl = click.option("--jsonl", is_flag=True,
                      help='Batch: each input line is {"id", "program" | "semantic"}; one result line each.')
_workers = executor_options("Batch: worker processes (default: all cores), or Ray actors with "
                             "--executor ray (default 1); the output keeps input order.",
                             default=None, jobs=True)
_input = click.argument("file", type=click.Path(allow_dash=True, dir_okay=False), default="-")


@dataclass(frozen=True, slots=True)
class Against:
    """What programs are checked against: GQA's words, with a rules file's (`--rules`) and the
    knowledge's in use (`--kb`) where given, unknown ones errors or (`--open-vocabulary`) warnings."""

    open_vocabulary: bool = False
    background: Background | None = None

    def check(self, root: Node, source: Source | None) -> list[Diagnostic]:
        """The program's warnings; raises `CheckError` with its errors."""
        if self.background is None:  # GQA's words (and the bundled base's), clingo left unloaded
            return api.check(root, open_vocabulary=self.open_vocabulary, source=source)
        return self.background.check(root, open_vocabulary=self.open_vocabulary, source=source)


def _against(open_vocabulary: bool, kb: tuple[str, ...], rules: str | None) -> Against:
    """What the options say to check against (the bundled base is opened only where a program needs it, as
    `api.check` does, when neither `--kb` nor `--rules` is given)."""
    return Against(open_vocabulary, background_from(kb, rules) if kb or rules else None)


def run_batch(file: str, syntax: str | None, handle: program_lines.Handler, output: str | None,
              workers: int | None, executor: executors.Executor | None, *fields: str) -> NoReturn:
    """Answer every line of a JSON-lines input still missing from `output` (default: standard
    output; its results hold `fields`), in order, on `executor` (default: `workers` local
    processes, default all cores); exit 1 if any line failed."""
    check_output(output, file)
    lines = read_lines(file)
    run_and_exit(lambda out: program_lines.run(lines, handle, out, syntax=syntax,
                                         jobs=workers or program_lines.cores(), executor=executor),
                 output, file, holding(*fields))


@click.command()
@_from
@click.option("--to", "to", type=SYNTAX_NAMES, required=True, help="Output syntax.")
@_open
@background_options
@_jsonl
@output_option
@_workers
@_input
def compile(from_: str | None, to: str, open_vocabulary: bool, kb: tuple[str, ...], rules: str | None,
            jsonl: bool, output: str | None, workers: int | None, executor: str, address: str | None,
            file: str) -> None:
    """Convert a checked program from one syntax to another (exit 1 with every error if it is
    not well formed and well typed)."""
    runner = executor_from(executor, workers, address, batch=jsonl)
    against = _against(open_vocabulary, kb, rules)
    if jsonl:
        run_batch(file, from_, Converting(to, against), output, workers, runner, "program", "warnings")
    source = read_source(file, limits.PROGRAM)
    try:
        click.echo(SYNTAXES[to].print(_checked(source, from_, against)))
    except QlangError as exc:
        fail(exc, source)


@dataclass(frozen=True, slots=True)
class Converting:
    """What `compile --jsonl` makes of a line: its checked program in syntax `to` (printers
    name equal steps once, so the program need not be canonicalised first)."""

    to: str
    against: Against = Against()

    def __call__(self, record: Record) -> dict[str, object]:
        warnings = _warnings(record, self.against)
        return {"id": record.id, "program": SYNTAXES[self.to].print(_root(record)), **warnings}


def _root(record: Record) -> Any:
    assert record.root is not None
    return record.root


@click.command()
@_from
@_open
@background_options
@_jsonl
@output_option
@_workers
@_input
def check(from_: str | None, open_vocabulary: bool, kb: tuple[str, ...], rules: str | None, jsonl: bool,
          output: str | None, workers: int | None, executor: str, address: str | None, file: str) -> None:
    """Check that a program is well formed and well typed (exit 0), else list every error."""
    runner = executor_from(executor, workers, address, batch=jsonl)
    against = _against(open_vocabulary, kb, rules)
    if jsonl:
        run_batch(file, from_, Checking(against), output, workers, runner, "ok", "warnings")
    source = read_source(file, limits.PROGRAM)
    try:
        _checked(source, from_, against)
    except QlangError as exc:
        fail(exc, source)


def _checked(source: Source, syntax: str | None, against: Against) -> Node:
    """The program of a source, parsed and checked, its warnings written to standard error;
    raises `QlangError` with its errors."""
    root = api.parse(source.text, syntax, name=source.name)
    for warning in against.check(root, source):
        click.echo(warning.render(source), err=True)
    return root


@dataclass(frozen=True, slots=True)
class Checking:
    """What `check --jsonl` makes of a line: ok, with the warnings it has."""

    against: Against

    def __call__(self, record: Record) -> dict[str, object]:
        return {"id": record.id, "ok": True, **_warnings(record, self.against)}


def _warnings(record: Record, against: Against) -> dict[str, object]:
    """The warnings of a line's program, as its result shows them (none: nothing); raises
    `CheckError` with its errors."""
    warnings = against.check(_root(record), record.source)
    return {"warnings": [w.to_json() for w in warnings]} if warnings else {}


@click.command()
@_from
@_input
def fmt(from_: str | None, file: str) -> None:
    """Pretty-print a program in its own syntax (idempotent)."""
    source = read_source(file, limits.PROGRAM)
    syntax = from_ or detect(source.text)
    try:
        click.echo(api.convert(source.text, syntax, from_=syntax, name=source.name))
    except QlangError as exc:
        fail(exc, source)


@click.command()
@_from
@_open
@background_options
@_input
def lower(from_: str | None, open_vocabulary: bool, kb: tuple[str, ...], rules: str | None,
          file: str) -> None:
    """Check a program and print its ASP facts, ready for the theory."""
    source = read_source(file, limits.PROGRAM)
    try:
        root = _checked(source, from_, _against(open_vocabulary, kb, rules))
        click.echo("\n".join(str(fact) for fact in facts(root)))
    except QlangError as exc:
        fail(exc, source)


@click.command()
def ops() -> None:
    """Print the operation table (Markdown)."""
    click.echo(markdown_table())


