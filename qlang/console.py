"""What every `qlangc` command shares: reading its input and reporting an input error.

Kept apart from `qlang.cli` so that the command modules (`qlang.asp.cli`, `qlang.translate.cli`,
`qlang.evaluate.cli`) can import it at the top without a cycle.
"""

from __future__ import annotations

import math
import sys
from typing import Any, NoReturn

import click

from qlang.errors import QlangError, Source


def read_bytes(file: str) -> bytes:
    """The bytes of FILE or standard input; an unreadable file is a usage error."""
    try:
        if file == "-":
            return sys.stdin.buffer.read()
        with open(file, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise click.UsageError(f"{file}: {exc.strerror}") from None


def read_source(file: str) -> Source:
    """The text of FILE or standard input, without a byte-order mark; input that is not UTF-8 is a
    usage error."""
    try:
        return Source(read_bytes(file).decode("utf-8-sig"), "<stdin>" if file == "-" else file)
    except UnicodeDecodeError as exc:
        raise click.UsageError(f"{file}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_lines(file: str) -> list[bytes]:
    """The lines of a JSON-lines FILE, split on "\\n" alone (a JSON string may hold U+2028 or
    U+0085, which `str.splitlines` would split on) and left undecoded, so that one line that is
    not UTF-8 costs only itself."""
    return read_bytes(file).removeprefix(b"\xef\xbb\xbf").split(b"\n")


class Bounded(click.FloatRange):
    """A float in a range that is never NaN (which every comparison lets through)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


def fail(exc: QlangError, source: Source | None = None) -> NoReturn:
    """Report an input error on standard error and exit with status 1."""
    if source is not None and exc.source is None:
        exc.source = source
    click.echo(exc.render(), err=True)
    sys.exit(1)
