"""`qlangc`: the command line.  Every command reads a FILE or `-` (standard input).

Exit status: 0 success, 1 the input has errors (reported as ``file:line:col: message`` with the
source line and a caret), 2 the command was used wrongly.  No input makes it print a traceback.
"""

from __future__ import annotations

import sys

import click

from qlang import limits
from qlang.commands.ask import ask
from qlang.commands.console import ClosedOutput, fail, unwritable
from qlang.commands.evaluate import evaluate, experiment, oracle
from qlang.commands.knowledge import kb
from qlang.commands.lsp import lsp
from qlang.commands.program import check, compile, fmt, lower, ops
from qlang.commands.serve import serve
from qlang.commands.solve import explain, solve
from qlang.commands.train import calibrate, data, export, train
from qlang.commands.translate import grammar, translate
from qlang.commands.vision import perceive
from qlang.errors import Diagnostic, QlangError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="qlang")
def cli() -> None:
    """qlang: compile, check and solve GQA question programs.

    Batches (compile, check, solve and translate with --jsonl; eval; experiment) run on
    --executor local (this machine, the default) or ray (a Ray cluster's actors), with
    --workers of them; with --output a killed batch resumes where it stopped.
    """


COMMANDS = (compile, check, fmt, lower, ops, solve, explain, translate, ask, grammar, experiment,
            evaluate, oracle, data, train, export, calibrate, perceive, kb, lsp, serve)
for _command in COMMANDS:
    cli.add_command(_command)


def main() -> None:
    """Entry point: the limits checked (`qlang.limits`), and a last guard so that even a bug
    reports a message, not a traceback; standard output that cannot be written (a full disk,
    a closed descriptor: a closed pipe ends quietly, in click) is an error, exit 1."""
    if sys.stdout is None:  # started without one (`>&-`): writing to it must fail, not vanish
        sys.stdout = ClosedOutput()
    try:
        limits.check_settings()
        cli(standalone_mode=True)
    except SystemExit:
        raise
    except QlangError as exc:
        fail(exc)
    except OSError as exc:
        sys.stdout = None  # what it still holds cannot be written either: exit without trying
        fail(unwritable(exc, "standard output"))
    except Exception as exc:
        message = Diagnostic("internal", f"internal error: {type(exc).__name__}: {exc}")
        click.echo(message.render(None) + "\n(please report this as a bug)", err=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
