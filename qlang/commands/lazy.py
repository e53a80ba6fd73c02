"""A command group that imports a command's module only when that command runs.

`qlangc compile` is run from editors on save and from scripts in loops: it must not pay for the
language server, the translators or the web stack that other commands import.  So the group
holds each command as a name in a table: where it is defined (``module:function``), its one-line
help (what ``qlangc --help`` lists, without importing anything) and the extra of pyproject.toml
that installs what it imports.  A command whose extra is missing says which ``pip install``
brings it, instead of a traceback.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import click

from qlang.errors import QlangError, error


@dataclass(frozen=True, slots=True)
class Lazy:
    """A command not yet imported: ``module:attribute``, its short help (the first sentence of
    its docstring; a test keeps the two equal) and its extra (None: the core has all it needs)."""

    target: str
    help: str
    extra: str | None = None


class MissingExtra(QlangError):
    """A command needs a package its extra installs, and the extra is not installed."""


class LazyGroup(click.Group):
    """A `click.Group` whose commands are all `Lazy`, each imported when first asked for."""

    def __init__(self, *args: Any, lazy: Mapping[str, Lazy], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.lazy)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = self.lazy.get(cmd_name)
        if entry is None:
            return None
        module, _, attribute = entry.target.partition(":")
        try:
            command = getattr(importlib.import_module(module), attribute)
        except ModuleNotFoundError as exc:
            raise missing(cmd_name, entry, exc) from None
        assert isinstance(command, click.Command), entry.target
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ModuleNotFoundError as exc:
            name = ctx.invoked_subcommand or ""
            raise missing(name, self.lazy.get(name), exc) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their short help, as click lists them, read from the table."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(map(len, names))
        rows = [(name, click.Command(name, help=self.lazy[name].help).get_short_help_str(limit))
                for name in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def missing(command: str, entry: Lazy | None, exc: ModuleNotFoundError) -> Exception:
    """What a third-party module missing while `command` is imported or run raises: the error
    that names the extra bringing it; in a command of the core (no extra), `exc` itself, a bug."""
    module = (exc.name or "").partition(".")[0]
    if entry is None or entry.extra is None or module in ("", "qlang"):
        return exc
    return error(MissingExtra, "missing-extra", f"qlangc {command} needs {module!r}, which is not installed",
                 hint=f"pip install 'qlang[{entry.extra}]'")
