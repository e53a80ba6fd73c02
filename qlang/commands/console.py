"""What every `qlangc` command shares: reading its input, reporting an input error, and ending a
batch the same way (the library raises; only commands turn errors into exit statuses)."""

from __future__ import annotations

import errno
import io
import math
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click
from click.core import ParameterSource

from qlang import executors, limits
from qlang.errors import QlangError, Source, error
from qlang.jsontext import split_lines
from qlang.records.output import Output, Result, same_file, writing

F = TypeVar("F", bound=Callable[..., Any])


def read_bytes(file: str, limit: limits.Limit) -> bytes:
    """The bytes of FILE or standard input, within `limit`.  Input that cannot be read (beyond
    the limit, a folder, no permission) is bad input, reported as every input error is (exit 1):
    exit 2 is for usage alone."""
    name = _name(file)
    try:
        if file != "-":
            return limits.read(file, limit)
        if sys.stdin is None:
            fail(error(QlangError, "input", "standard input is closed", path=name))
        return limits.read_file(sys.stdin.buffer, name, limit)
    except OSError as exc:
        fail(error(QlangError, "input", exc.strerror or str(exc), path=name))
    except QlangError as exc:
        fail(exc)


def read_source(file: str, limit: limits.Limit) -> Source:
    """The text of FILE or standard input (`read_bytes`), without a byte-order mark; input that
    is not UTF-8 is bad input (exit 1)."""
    data = read_bytes(file, limit)
    try:
        return Source(data.decode("utf-8-sig"), _name(file))
    except UnicodeDecodeError as exc:
        fail(error(QlangError, "input", f"not UTF-8 text ({exc.reason} at byte {exc.start})",
                   path=_name(file)))


def _name(file: str) -> str:
    """FILE as errors name it."""
    return "<stdin>" if file == "-" else file


def read_lines(file: str) -> list[bytes]:
    """The lines of a JSON-lines FILE (`qlang.jsontext.split_lines`)."""
    return split_lines(read_bytes(file, limits.QUESTIONS))


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


output_option = click.option("--output", type=click.Path(dir_okay=False),
                             help="Batch: append results here, skipping the input lines it already "
                             "has results for (resumable).")


def check_output(path: str | None, *inputs: str | None) -> None:
    """Refuse an output file before any work is done (exit 1): one whose folder does not exist
    or cannot be written, or one of the `inputs` under any name (written, it would be lost)."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    exists = os.path.lexists(path)
    if any(same_file(path, given) for given in inputs):
        fail(error(QlangError, "output", "the output file is the input file",
                   hint="write the results to another file", path=path))
    if not os.path.isdir(folder):
        fail(error(QlangError, "output", f"the output folder {folder} does not exist", path=path))
    if not os.access(path if exists else folder, os.W_OK):
        what = "file" if exists else f"folder {folder}"
        fail(error(QlangError, "output", f"the output {what} cannot be written", path=path))


def check_replaced(path: str | None, what: str, ours: Callable[[bytes], bool], *, force: bool) -> None:
    """Refuse (exit 1) an output `path` that is an existing file this command did not write
    (`ours`, of its first bytes, says whether it did: it is `what`), unless `force`: writing
    would replace what someone keeps there.  A device, a FIFO or an empty file is written."""
    if path is None or force:
        return
    try:
        with open(path, "rb") as handle:
            regular = stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
            head = handle.read(_HEAD) if regular else b""
    except OSError:
        return  # missing (made), or unreadable (`check_output` says so)
    if head and not ours(head):
        fail(error(QlangError, "output", f"an existing file that is no {what}: writing would replace it",
                   hint="give another name, or --force to replace it", path=path))


#: What `check_replaced` reads of an existing output to tell whose it is.
_HEAD = 4096


def check_distinct(*outputs: tuple[str, str | None]) -> None:
    """Refuse (exit 1) two outputs of one command, (option, path) each, that name one file under
    any names, existing or not: one would replace the other."""
    seen: dict[object, str] = {}
    for option, path in outputs:
        if path is None or path == "-":
            continue
        key: object = os.path.realpath(path)
        if os.path.exists(path):
            status = os.stat(path)
            key = (status.st_dev, status.st_ino)
        if key in seen:
            fail(error(QlangError, "output", f"{seen[key]} and {option} name one file: one would replace "
                       "the other", path=path))
        seen[key] = option


def output_folder(path: str, *inputs: str | None, files: tuple[str, ...] = ()) -> Path:
    """An output folder, made now, before any work is done (exit 1 where it cannot be), and
    whose `files` are none of the `inputs`."""
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(error(QlangError, "output", f"cannot make the output folder: {exc.strerror}", path=path))
    for name in files:
        check_output(os.path.join(path, name), *inputs)
    return Path(path)


def unwritable(exc: OSError, path: str) -> QlangError:
    """The error of an output `path` that cannot be written (or of the file the OSError names)."""
    if exc.filename is not None:
        return error(QlangError, "output", exc.strerror or str(exc), path=str(exc.filename))
    return error(QlangError, "output", f"cannot write: {exc.strerror or exc}", path=path)


class ClosedOutput(io.TextIOBase):
    """Standard output of a process started without one: writing to it fails as writing to a
    closed descriptor does."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "the descriptor is closed")


@contextmanager
def reported(path: str | None) -> Iterator[None]:
    """Ends a batch command that fails as every one does: a `QlangError` reported (exit 1), an
    output file `path` that cannot be written too, standard output left to `main`."""
    try:
        yield
    except QlangError as exc:
        fail(exc)
    except OSError as exc:
        if path is None:
            raise  # standard output: a closed pipe (`| head`) ends quietly, in click
        fail(unwritable(exc, path))


def run_and_exit(work: Callable[[Output], bool], path: str | None, inputs: str,
                 ours: Callable[[Result], bool]) -> NoReturn:
    """Run a batch command's `work` into its output (`writing`: `ours` tells the command's
    results) and exit: 0 if every line succeeded, else 1 (or as `reported`)."""
    with reported(path), writing(path, inputs, ours) as output:
        ok = work(output)
    sys.exit(0 if ok else 1)


#: More workers than any machine has cores.
MAX_WORKERS = 256
#: The options that only a batch takes (`--output`, the resumable output file, among them).
BATCH_ONLY = ("output", "workers", "executor", "address")


def executor_options(workers: str, *, default: int | None = 1, jobs: bool = False) -> Callable[[F], F]:
    """`--workers`, `--executor` and `--address`, for a batch command; `workers`: the help of
    `--workers`, `default` its default (None: the command's own), `jobs`: also named `--jobs`."""
    names = ("--workers", "--jobs") if jobs else ("--workers",)
    attached = (
        click.option(*names, "workers", type=click.IntRange(min=1, max=MAX_WORKERS), default=default,
                     show_default=default is not None, help=workers),
        click.option("--executor", type=click.Choice(executors.EXECUTORS), default="local", show_default=True,
                     help="Batch: where the work runs: this machine (local), or the actors of a "
                     "Ray cluster, --workers of them (ray; pip install 'qlang[ray]')."),
        click.option("--address", help="Batch, --executor ray: the cluster, as ray.init takes it "
                     "(host:port of `ray start --head`, or 'auto'); default: $RAY_ADDRESS, else a "
                     "Ray instance on this machine."),
    )

    def attach(command: F) -> F:
        for option in reversed(attached):
            command = option(command)
        return command

    return attach


def executor_from(name: str, workers: int | None, address: str | None, *,
                  batch: bool = True) -> executors.Ray | None:
    """The executor the options name; None for the local one, whose settings (how many workers,
    recycling, patience) are the batch's own.  Raises click.UsageError for options that do not
    fit: a batch's options outside batch mode, `--address` without Ray, Ray not installed."""
    if not batch:
        context = click.get_current_context()
        given = ["/".join(p.opts) for p in context.command.params if p.name in BATCH_ONLY
                 and context.get_parameter_source(p.name) not in (None, ParameterSource.DEFAULT)]
        if given:
            verb = "is" if len(given) == 1 else "are"
            raise click.UsageError(f"{' and '.join(given)} {verb} for batch mode (--jsonl)")
    if name != "ray":
        if address is not None:
            raise click.UsageError("--address is for --executor ray")
        return None
    try:
        executors.ray_module()
    except QlangError as exc:
        raise click.UsageError(exc.diagnostics[0].message) from None
    return executors.Ray(address, workers or 1)
