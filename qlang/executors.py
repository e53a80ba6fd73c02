"""Where a batch's work runs: in this machine's worker processes, or on a Ray cluster.

Every batch command (`compile`, `check`, `solve` and `translate --jsonl`, `eval`, `experiment`,
`perceive` on a folder) describes its work as a `Job`: a picklable value whose `setup()` builds
what answering needs (the grammars; the grounded theory and scenes; a loaded translator or
detector) and returns a function from a list of items to their results.  An `Executor` maps a
job over the items and yields every result **in input order**, so the caller writes and flushes
each line as soon as it is known, from one process (`qlang.records.batch.run_batch`): output files,
resuming (the ids already written are skipped) and exactly-once lines stay the caller's, the
same for every executor.

- `Local` (the default, nothing to install): the job set up once in this process, then run
  here or in forked worker processes (`Pool`) that inherit it.
- `Ray`: Ray Data's `map_batches` over an actor pool: each actor runs `setup()` once in its
  constructor, Ray schedules the batches over the cluster's cores, restarts a dead actor and
  retries its batch (`max_restarts` / `max_task_retries`, Ray Data's defaults for actors).
  Needs ``pip install 'qlang[ray]'``; imported only when used.

>>> list(Local().map(Doubling(), range(5), batch=2))
[0, 2, 4, 6, 8]
>>> list(Local(workers=2).map(Doubling(), range(5), batch=2))
[0, 2, 4, 6, 8]
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import signal
import socket
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol, TypeVar

from qlang.errors import QlangError, error
from qlang.integers import OutOfRange, integer, is_digits

T = TypeVar("T")
R = TypeVar("R")

#: What `setup()` returns: the results of a list of items, one each, in order.
Answer = Callable[[list[Any]], list[Any]]

EXECUTORS = ("local", "ray")


class Job(Protocol[T, R]):
    """The work of a batch, as a value that can travel to another process or machine.  A job
    whose workers need GPUs says how many each in a `gpus` attribute (`Ray` asks for them)."""

    def setup(self) -> Callable[[list[T]], list[R]]:
        """Build what answering needs and return the answering function: once per batch on
        this machine (forked workers inherit it), once per actor on Ray."""
        ...


class BatchError(QlangError):
    """The batch cannot go on (a worker died, or the output file is not ours); what was written
    stays, for a resumed run."""


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


def ramped(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """`items` in lists of 1, 2, 4, ... up to `size`: the first results come at once, however
    large the later lists that share each call's cost.

    >>> [len(chunk) for chunk in ramped(range(20), 8)]
    [1, 2, 4, 8, 5]
    """
    iterator = iter(items)
    length = 1
    while chunk := list(islice(iterator, length)):
        yield chunk
        length = min(2 * length, size)


# ----- local: this process, or forked worker processes ----------------------------------------

#: Tasks handed out ahead of the first unanswered one, per worker: enough that a slow task does not
#: idle the other workers at once, few enough that the results waiting for it stay small.
AHEAD = 16


@dataclass(frozen=True, slots=True)
class Local:
    """This machine.  The job is set up once, here; with one worker it runs here too, with more
    in forked worker processes (`Pool`) that inherit it set up, each replaced by a fresh fork
    after `recycle` tasks.  A task that takes longer than `patience` seconds (a stuck worker)
    or a worker that dies ends the batch with a `BatchError`.  With `ramp`, the first tasks are
    short (`ramped`), so the first results come at once however large the later tasks."""

    workers: int = 1
    recycle: int | None = None
    patience: float | None = None
    ramp: bool = False

    def map(self, job: Job[T, R], items: Iterable[T], *, batch: int) -> Iterator[R]:
        answer = job.setup()
        tasks = ramped(items, batch) if self.ramp else chunks(items, batch)
        if self.workers == 1:
            for chunk in tasks:
                yield from answer(chunk)
            return
        for results in Pool(answer, self.workers, self.recycle, self.patience).map(tasks):
            yield from results


class Pool:
    """Forked worker processes answering tasks, one at a time each, results in input order.

    Neither pool of the standard library fits: `multiprocessing.Pool` loses the task of a worker
    that dies and waits for it forever, `concurrent.futures.ProcessPoolExecutor` can neither
    replace a forked worker after some tasks nor stop a stuck one.  Here each worker has its own
    pipe and one task at a time, so the parent knows what each holds: a worker that dies (its
    pipe closes) or holds a task past `patience` ends the batch at once, and however the batch
    ends (done, failed, Ctrl-C, its reader gone) every worker is ended with it.
    """

    def __init__(self, answer: Answer, workers: int, recycle: int | None = None,
                 patience: float | None = None) -> None:
        self.answer, self.recycle, self.patience = answer, recycle, patience
        self.workers: list[_Worker] = []
        for _ in range(workers):
            self.workers.append(_Worker(answer, [w.connection for w in self.workers]))

    def map(self, tasks: Iterable[list[Any]]) -> Iterator[list[Any]]:
        """Each task's results, in input order, as soon as it and those before it are answered."""
        queue = enumerate(tasks)
        answered: dict[int, list[Any]] = {}
        handed = following = 0  # tasks handed out; the next one to yield
        try:
            while True:
                for index, worker in enumerate(self.workers):
                    if worker.task is None and handed - following < AHEAD * len(self.workers):
                        if (task := next(queue, None)) is None:
                            break
                        self.workers[index] = worker = self._fresh(worker)
                        worker.give(*task)
                        handed += 1
                busy = [worker for worker in self.workers if worker.task is not None]
                if not busy:
                    return
                for worker in self._ready(busy):
                    index, results = worker.take()
                    answered[index] = results
                while following in answered:
                    yield answered.pop(following)
                    following += 1
        finally:
            for worker in self.workers:
                worker.end()

    def _fresh(self, worker: _Worker) -> _Worker:
        """The worker, or a fresh fork in its place once it has answered `recycle` tasks
        (clingo's symbol table only grows)."""
        if self.recycle is None or worker.answered < self.recycle:
            return worker
        worker.end()
        return _Worker(self.answer, [w.connection for w in self.workers if w is not worker])

    def _ready(self, busy: list[_Worker]) -> list[_Worker]:
        """The busy workers with an answer (or that died); a silence past `patience` ends the batch."""
        timeout = None
        if self.patience is not None:
            timeout = max(0.0, min(w.since for w in busy) + self.patience - time.monotonic())
        ready = wait([w.connection for w in busy], timeout)
        if not ready:
            raise error(BatchError, "batch", f"a worker has answered nothing for {self.patience:g} s",
                        hint="the results so far are kept; run again with --output to go on")
        return [w for w in busy if w.connection in ready]


class _Worker:
    """A forked process answering the tasks it is sent over its pipe, one at a time."""

    def __init__(self, answer: Answer, others: list[Connection]) -> None:
        """`others`: the parent's ends of the other workers' pipes."""
        self.connection, theirs = _FORK.Pipe()
        self.process = _FORK.Process(target=_serve, args=(answer, theirs, [*others, self.connection]),
                                     daemon=True)
        # no Ctrl-C reaches it before it ignores it: Ctrl-C is the parent's to handle
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        theirs.close()  # the worker's end is the worker's alone: it closes when the worker dies
        self.answered = 0
        #: the index of the task it holds, and since when
        self.task: int | None = None
        self.since = 0.0

    def give(self, index: int, items: list[Any]) -> None:
        self.task, self.since = index, time.monotonic()
        try:
            self.connection.send(items)
        except OSError:
            raise _died() from None

    def take(self) -> tuple[int, list[Any]]:
        """The index and results of its task (raising what the task raised)."""
        assert self.task is not None
        try:
            results = self.connection.recv()
        except (EOFError, OSError):
            raise _died() from None
        if isinstance(results, BaseException):
            raise results
        index, self.task = self.task, None
        self.answered += 1
        return index, results

    def end(self) -> None:
        """Close its pipe (an idle worker then ends by itself) and make sure it has ended."""
        self.connection.close()
        if self.task is not None:
            self.process.kill()
        self.process.join()


_FORK = multiprocessing.get_context("fork")


def _died() -> QlangError:
    return error(BatchError, "batch", "a worker process died",
                 hint="the results so far are kept; run again with --output to go on")


def _serve(answer: Answer, connection: Connection, parents: list[Connection]) -> None:
    """A worker's life: answer tasks until the parent closes the pipe or dies.  It leaves Ctrl-C
    to the parent, which ends it, and closes its copies of the parent's ends of the pipes, so
    that the parent's end of its own pipe is the parent's alone (and closes when it dies)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    for parent in parents:
        parent.close()
    while True:
        try:
            items = connection.recv()
        except (EOFError, OSError):  # the parent closed the pipe (the batch is over) or died
            return
        try:
            results: list[Any] | Exception = answer(items)
        except Exception as exc:  # the parent raises it
            results = exc
        try:
            connection.send(results)
        except OSError:  # the batch ended while the task was answered: nobody waits for it
            return


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
        ray = ray_module()
        rows = [{"item": pickle.dumps(item)} for item in items]
        if not rows:
            return
        if not ray.is_initialized():
            answering(self.address or os.environ.get("RAY_ADDRESS"))
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
                                     batch_format="numpy", **self.resources(job),
                                     compute=ray.data.ActorPoolStrategy(size=self.workers))
        for result in _results(mapped):
            if isinstance(result, _Unstarted):
                raise error(BatchError, "executor", f"a Ray worker failed to start: {result.why}")
            yield result

    def resources(self, job: Job[Any, Any]) -> dict[str, float]:
        """What each actor asks Ray for: `cpus` cores, and the GPUs the job says its workers need
        (Ray then starts an actor only where one is free, so the actors spread over the GPUs).

        >>> Ray(cpus=2).resources(Doubling())
        {'num_cpus': 2, 'num_gpus': 0.0}
        """
        return {"num_cpus": self.cpus, "num_gpus": float(getattr(job, "gpus", 0))}


#: Seconds a cluster's address has to answer in: Ray itself retries for minutes.
CONNECT_TIMEOUT = 10.0


def answering(address: str | None) -> None:
    """That something answers at a cluster's ``host:port`` (or ``ray://host:port``); raises a
    QlangError, within `CONNECT_TIMEOUT`, where nothing does.  Other addresses (none, "auto",
    "local") name clusters Ray finds by itself, failing fast where there is none."""
    host, _, port = (address or "").removeprefix("ray://").rpartition(":")
    if not host or not is_digits(port):
        return
    try:
        number = integer(port, most=65_535)
        socket.create_connection((host.strip("[]"), number), timeout=CONNECT_TIMEOUT).close()
    except (OSError, OutOfRange) as exc:
        raise error(QlangError, "executor", f"cannot reach Ray at {address}: "
                    f"{getattr(exc, 'strerror', None) or exc}",
                    hint="start it with `ray start --head`, or give --address of a running cluster") from None


@dataclass(frozen=True, slots=True)
class _Unstarted:
    """What an actor that could not set its job up (a model that does not load) answers, for
    every item: the batch cannot go on.  An answer, not an exception, since Ray prints an
    actor's failing constructor as a traceback and retries it without end."""

    why: str


class _RayWorker:
    """One actor of the pool: the job set up once, then batch after batch."""

    def __init__(self, job: Job[Any, Any]) -> None:
        self.answer: Callable[[list[Any]], list[Any]]
        try:
            self.answer = job.setup()
        except QlangError as exc:  # nor could Ray rebuild a QlangError on the driver
            where = f"{exc.source.name}: " if exc.source is not None else ""
            unstarted = _Unstarted(where + exc.diagnostics[0].message)
            self.answer = lambda items: [unstarted] * len(items)

    def __call__(self, batch: dict[str, Any]) -> dict[str, list[bytes]]:
        results = self.answer([pickle.loads(item) for item in batch["item"]])
        return {"result": [pickle.dumps(result) for result in results]}


def _results(mapped: Any) -> Iterator[Any]:
    """The results of a mapped Ray dataset, in order; a failed job is a BatchError."""
    try:
        for row in mapped.iter_rows():
            yield pickle.loads(row["result"])
    except Exception as exc:
        raise _failed(exc) from None


def _failed(exc: BaseException) -> QlangError:
    """What a failed Ray job says."""
    text = str(exc)
    first = text.strip().splitlines()[0] if text.strip() else ""
    return error(BatchError, "executor", f"the Ray job failed: {type(exc).__name__}: {first}",
                 hint="the results so far are kept; run again with --output to go on")


def ray_module() -> Any:
    try:
        import ray
        import ray.data
    except ImportError:
        raise error(QlangError, "executor", "--executor ray needs Ray: pip install 'qlang[ray]'"
                    ) from None
    return ray
