"""What every `qlangc` command shares: reading its input and reporting an input error.

Kept apart from `qlang.cli` so that the command modules (`qlang.asp.cli`, `qlang.translate.cli`,
`qlang.evaluate.cli`) can import it at the top without a cycle.
"""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from qlang.errors import QlangError, Source


def read_source(file: str) -> Source:
    """The text of FILE or standard input; unreadable input is a usage error."""
    try:
        if file == "-":
            return Source(sys.stdin.buffer.read().decode("utf-8"), "<stdin>")
        with open(file, "rb") as handle:
            return Source(handle.read().decode("utf-8"), file)
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise click.UsageError(f"{file}: {exc.strerror}") from None


def fail(exc: QlangError, source: Source | None = None) -> NoReturn:
    """Report an input error on standard error and exit with status 1."""
    if source is not None and exc.source is None:
        exc.source = source
    click.echo(exc.render(), err=True)
    sys.exit(1)
