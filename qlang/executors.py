"""Where a batch's work runs: in this machine's worker processes, or on a Ray cluster.

A batch (`solve --jsonl`, `translate --jsonl`) describes its work as a `Job`: a picklable value
whose `setup()` builds, once per worker, what answering needs (the grounded theory and scenes,
a loaded translator) and returns a function from a list of items to their results.  An
`Executor` maps a job over the items and yields every result **in input order**, so the
caller writes and flushes each line as soon as it is known, from one process: output files,
resuming (the ids already written are skipped) and exactly-once lines stay the caller's, the
same for every executor.

- `Local` (the default, nothing to install): the job in this process, or in forked worker
  processes that are replaced every `recycle` tasks (clingo's symbol table only grows).
- `Ray`: Ray Data's `map_batches` over an actor pool: each actor runs `setup()` once in its
  constructor, Ray schedules the batches over the cluster's cores, restarts a dead actor and
  retries its batch (`max_restarts` / `max_task_retries`, Ray Data's defaults for actors).
  Needs ``pip install 'qlang[distributed]'``; imported only when used.

>>> list(Local().map(Doubling(), range(5), batch=2))
[0, 2, 4, 6, 8]
"""

from __future__ import annotations

import logging
import multiprocessing
import pickle
import signal
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any, Protocol, TypeVar

import click

from qlang.batch import BatchError
from qlang.errors import QlangError, error

T = TypeVar("T")
R = TypeVar("R")

#: What `setup()` returns: the results of a list of items, one each, in order.
Answer = Callable[[list[Any]], list[Any]]

EXECUTORS = ("local", "ray")


class Job(Protocol[T, R]):
    """The work of a batch, as a value that can travel to another process or machine."""

    def setup(self) -> Callable[[list[T]], list[R]]:
        """Build the worker's state (once per worker) and return its answering function."""
        ...


class Executor(Protocol):
    def map(self, job: Job[T, R], items: Iterable[T], *, batch: int) -> Iterator[R]:
        """Every item's result, in input order; `batch` items a call of the job's function."""
        ...


@dataclass(frozen=True, slots=True)
class Doubling:
    """A job for the doctests: each item times two."""

    def setup(self) -> Callable[[list[int]], list[int]]:
        return lambda items: [2 * item for item in items]


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """`items` in lists of `size` (the last one shorter).

    >>> list(chunks(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


# ----- local: this process, or forked worker processes ----------------------------------------

@dataclass(frozen=True, slots=True)
class Local:
    """This machine.  One worker: the job runs in this process.  More: forked processes (the job
    is inherited, not pickled), each replaced after `recycle` tasks; a silence of `patience`
    seconds (a worker died holding a task) ends the batch with a `BatchError`."""

    workers: int = 1
    recycle: int | None = None
    patience: float | None = None

    def map(self, job: Job[T, R], items: Iterable[T], *, batch: int) -> Iterator[R]:
        if self.workers == 1:
            answer = job.setup()
            for chunk in chunks(items, batch):
                yield from answer(chunk)
            return
        pool = multiprocessing.get_context("fork").Pool(self.workers, _local_worker, (job,), self.recycle)
        try:
            for results in watched(pool.imap(_local_answer, chunks(items, batch)), self.patience):
                yield from results
        finally:
            pool.terminate()  # every result is in, or the pool is stuck
            pool.join()


#: the answering function of this worker process
_ANSWER: Answer | None = None


def _local_worker(job: Job[Any, Any]) -> None:
    """A worker leaves Ctrl-C to the parent, which ends the pool quietly."""
    global _ANSWER
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _ANSWER = job.setup()


def _local_answer(items: list[Any]) -> list[Any]:
    assert _ANSWER is not None, "the worker's initializer sets it"
    return _ANSWER(items)


def watched(results: Any, patience: float | None) -> Iterator[Any]:
    """The pool's results as they come.  A worker that dies takes its task with it and the pool
    would wait for it forever, so a silence longer than any task can take ends the batch.
    (One task at a time: only then does the pool's iterator take a timeout.)"""
    while True:
        try:
            yield results.next(patience)
        except StopIteration:
            return
        except multiprocessing.TimeoutError:
            raise error(BatchError, "batch", f"no result for {patience:g} s: a worker has probably "
                        "died", hint="the results so far are kept; run again with --output to go on"
                        ) from None


# ----- Ray --------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Ray:
    """A Ray cluster: `address` as `ray.init` takes it (None: the one in $RAY_ADDRESS, or a new
    one on this machine), `workers` actors of `cpus` cores each.  Items and results travel
    pickled, so a job's items and results need only be picklable."""

    address: str | None = None
    workers: int = 1
    cpus: float = 1.0

    def map(self, job: Job[T, R], items: Iterable[T], *, batch: int) -> Iterator[R]:
        ray = _ray()
        rows = [{"item": pickle.dumps(item)} for item in items]
        if not rows:
            return
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, logging_level="warning", log_to_driver=False)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise error(QlangError, "executor", f"cannot start or reach Ray at "
                            f"{self.address or 'this machine'}: {exc}") from None
        logging.getLogger("ray.data").setLevel(logging.WARNING)  # no progress reports every 5 s
        context = ray.data.DataContext.get_current()
        context.execution_options.preserve_order = True  # results in input order
        dataset = ray.data.from_items(rows, override_num_blocks=max(1, -(-len(rows) // batch)))
        mapped = dataset.map_batches(_RayWorker, fn_constructor_args=(job,), batch_size=batch,
                                     batch_format="numpy", num_cpus=self.cpus,
                                     compute=ray.data.ActorPoolStrategy(size=self.workers))
        try:
            for row in mapped.iter_rows():
                yield pickle.loads(row["result"])
        except Exception as exc:
            raise _failed(exc) from None


class SetupFailed(Exception):
    """A worker could not set its job up (a model that does not load): the batch cannot go on."""


class _RayWorker:
    """One actor of the pool: the job set up once, then batch after batch."""

    def __init__(self, job: Job[Any, Any]) -> None:
        try:
            self.answer = job.setup()
        except QlangError as exc:  # Ray cannot rebuild a QlangError on the driver
            raise SetupFailed(exc.diagnostics[0].message) from None

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[bytes]]:
        results = self.answer([pickle.loads(item) for item in batch["item"]])
        return {"result": [pickle.dumps(result) for result in results]}


def _failed(exc: BaseException) -> QlangError:
    """What a failed Ray job says: a worker's `SetupFailed` message where there is one (Ray
    passes an actor's failure to start on as text, inside its own error)."""
    text = str(exc)
    marker = f"{SetupFailed.__name__}: "
    if marker in text:
        why = text[text.index(marker) + len(marker):].splitlines()[0]
        return error(BatchError, "executor", f"a Ray worker failed to start: {why}")
    first = text.strip().splitlines()[0] if text.strip() else ""
    return error(BatchError, "executor", f"the Ray job failed: {type(exc).__name__}: {first}",
                 hint="the results so far are kept; run again with --output to go on")


def _ray() -> Any:
    try:
        import ray
        import ray.data
    except ImportError:
        raise error(QlangError, "executor", "--executor ray needs Ray: pip install 'qlang[distributed]'"
                    ) from None
    return ray


# ----- the command line -------------------------------------------------------------------------

def options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--executor` and `--address`, for a batch command that also has `--workers`."""
    command = click.option("--address", help="Batch, --executor ray: the cluster, as ray.init "
                           "takes it (host:port of `ray start --head`, or 'auto'); default: "
                           "$RAY_ADDRESS, else a Ray instance on this machine.")(command)
    return click.option("--executor", type=click.Choice(EXECUTORS), default="local", show_default=True,
                        help="Batch: where the work runs: this machine's worker processes, or Ray "
                        "actors (--workers of them; pip install 'qlang[distributed]').")(command)


def from_options(name: str, workers: int, address: str | None) -> Ray | None:
    """The executor the options name; None for the local one, whose settings (recycling,
    patience) are the batch's own.  Raises click.UsageError for options that do not fit."""
    if name != "ray":
        if address is not None:
            raise click.UsageError("--address is for --executor ray")
        return None
    try:
        _ray()
    except QlangError as exc:
        raise click.UsageError(exc.diagnostics[0].message) from None
    return Ray(address, workers)
