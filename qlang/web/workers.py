"""The page's workers: a bounded pool of processes, each with models of its own, each answering
one request at a time within a time budget, so that one slow question never holds up the rest.

Processes, not threads: what answers (llama.cpp's model, the detector's network, clingo's
deadline watcher) is one per process and not made to be shared between threads; and a request
past its budget (the fine-tuned fallback writing a looping program for a page of text) can only
be stopped by ending the process that runs it.  Each worker is spawned, not forked (the server's
threads, and llama.cpp's, do not survive a fork), builds its service once, and tells which
stage it is in as it goes; one stopped past its budget is replaced in the background.  A job
that runs past a second yields the cores to the shorter ones (its worker is reniced), so that
questions about scenes are answered in well under a second beside a slow one.

A request waits for a free worker in arrival order; past `waiting` requests already waiting, it
is refused at once, saying how many are ahead.  The page's text comes from the first worker
(`page`), so the server process itself loads no model.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from qlang.errors import QlangError, error
from qlang.timing import Stages
from qlang.web.service import About, Service

logger = logging.getLogger(__name__)

#: Builds a worker's service (picklable: it travels to the spawned process).
Build = Callable[[], Service]
#: The page a service offers (picklable too).
Page = Callable[[Service], str]

#: What a stage was doing when the budget ran out, as the page says it.
DOING = {"translate": "translating the question", "perceive": "perceiving the photo",
         "scene": "reading the scene", "solve": "solving", "explain": "explaining the answer",
         "draw": "drawing the boxes"}


class Busy(QlangError):
    """Every worker is answering and the queue is full."""


class OverBudget(QlangError):
    """The request ran past its time budget; its worker was stopped."""


class Failed(Exception):
    """A worker failed on a request by a bug (not the request's fault), or ended."""


@dataclass(frozen=True, slots=True)
class ServiceCall:
    """A request as a worker answers it: `Service.ask` or `Service.solve`, and their arguments."""

    method: str
    text: str
    about: About
    top_k: int


class _Reporting(Stages):
    """Stages that tell the server each stage as it starts and ends (what a stopped request was
    doing: a stage never ended, else translating where a question was not yet translated)."""

    def __init__(self, connection: Connection) -> None:
        super().__init__()
        self.connection = connection

    def time(self, stage: str) -> Any:
        self.connection.send(("stage", stage))
        return super().time(stage)

    def add(self, stage: str, seconds: float) -> None:
        super().add(stage, seconds)
        self.connection.send(("ended", stage))


def _serve(build: Build, page: Page, connection: Connection) -> None:
    """A worker's life: build the service, say it is ready (with the page), then answer jobs
    until the server closes the connection.  A job's files go in a folder of its own, named to
    the server first, so that the server removes it if it stops the worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle: it ends us
    _one_thread_each()
    started = time.perf_counter()
    try:
        service = build()
        connection.send(("ready", (page(service), time.perf_counter() - started)))
    except QlangError as exc:
        connection.send(("error", exc))
        return
    while True:
        try:
            job: ServiceCall = connection.recv()
        except (EOFError, OSError):
            return
        tempfile.tempdir = None  # the server's TMPDIR again, not the last job's folder
        folder = tempfile.mkdtemp(prefix="qlang-job-")
        connection.send(("folder", folder))
        tempfile.tempdir = folder
        try:
            answer = getattr(service, job.method)
            connection.send(("done", answer(job.text, job.about, job.top_k, _Reporting(connection))))
        except QlangError as exc:
            connection.send(("error", exc))
        except Exception as exc:  # a bug: said to the server, which reports it; the worker goes on
            logger.exception("answering %s", job.method)
            connection.send(("bug", f"{type(exc).__name__}: {exc}"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _one_thread_each() -> None:
    """A worker is one of several sharing the cores: its libraries' own thread pools (OpenCV's
    detector, the BLAS, OpenMP's) would only wait for each other's threads, so each runs one.
    llama.cpp sets its own count: the cores free before each request."""
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    try:
        import cv2
    except ImportError:
        return
    cv2.setNumThreads(1)


#: After this many seconds a job yields the cores to shorter ones: its worker's threads are
#: reniced to `YIELDING` until it ends (a question about a scene takes 0.1-0.3 s; one about a
#: photo 1-3 s; the fine-tuned fallback's, seconds to a minute).  Where the server may not
#: lower the niceness again (it has no CAP_SYS_NICE, as root has), the worker stays yielding.
LONG, YIELDING = 1.0, 10


def _renice(worker: _Process, niceness: int) -> bool:
    """Set every thread of the worker to `niceness`; False where that is not allowed."""
    try:
        for thread in os.listdir(f"/proc/{worker.process.pid}/task"):
            os.setpriority(os.PRIO_PROCESS, int(thread), niceness)
    except (PermissionError, FileNotFoundError, ProcessLookupError):
        return False
    return True


class _Process:
    """A worker process, its end of the pipe, and the folder of the job it is answering."""

    def __init__(self, context: Any, build: Build, page: Page) -> None:
        self.folder: str | None = None
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(build, page, theirs), daemon=True)
        self.process.start()
        theirs.close()

    def ready(self) -> tuple[str, float]:
        """The page and the seconds the worker took to load; raises its error if it failed."""
        kind, value = self.receive()
        if kind == "error":
            raise value
        return value  # type: ignore[no-any-return]

    def receive(self) -> tuple[str, Any]:
        try:
            message: tuple[str, Any] = self.connection.recv()
        except (EOFError, OSError):
            raise Failed(f"the worker process ended (exit status {self.process.exitcode})") from None
        return message

    def stop(self) -> None:
        self.process.kill()
        self.process.join()
        self.connection.close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


class Workers:
    """`workers` processes each running `build()`'s service; requests answered by `answer`."""

    def __init__(self, build: Build, page: Page, *, workers: int, waiting: int, budget: float) -> None:
        self.build, self.page_of, self.budget, self.waiting = build, page, budget, waiting
        self._context = multiprocessing.get_context("spawn")
        self._idle: deque[_Process] = deque()
        self._all: set[_Process] = set()
        #: guards the workers and the line; notified when a worker is free
        self._free = threading.Condition()
        #: the line of waiting requests, by ticket: the next to give out, the next to serve
        self._issued = self._served = 0
        self._closed = False
        started = [self._start() for _ in range(workers)]
        try:
            ready = [worker.ready() for worker in started]
        except Failed as exc:
            self.close()
            raise error(QlangError, "serve", f"a worker could not start: {exc}") from None
        except BaseException:
            self.close()
            raise
        self.page = ready[0][0]
        #: the seconds the slowest worker took to load
        self.loaded = max(seconds for _, seconds in ready)
        for worker in started:
            self._release(worker)

    def _start(self) -> _Process:
        worker = _Process(self._context, self.build, self.page_of)
        with self._free:
            self._all.add(worker)
        return worker

    def _release(self, worker: _Process) -> None:
        with self._free:
            self._idle.append(worker)
            self._free.notify_all()

    def answer(self, job: ServiceCall) -> dict[str, Any]:
        """`job`'s report, answered by the first free worker within the budget; raises `Busy`,
        `OverBudget`, `Failed`, or the request's own error."""
        with self._free:
            waiting = self._issued - self._served
            if (waiting or not self._idle) and waiting >= self.waiting:
                ahead = waiting + len(self._all) - len(self._idle)
                raise error(Busy, "busy", f"the server is busy, {ahead} requests ahead of yours: "
                            "ask again in a moment")
            ticket, self._issued = self._issued, self._issued + 1
            while ticket != self._served or not self._idle:  # in arrival order, none jumping the line
                self._free.wait()
            self._served += 1
            worker = self._idle.popleft()
            self._free.notify_all()  # the next in line may have a worker too
        return self._run(worker, job)

    def _run(self, worker: _Process, job: ServiceCall) -> dict[str, Any]:
        try:
            worker.connection.send(job)
        except OSError:
            self._replace(worker)
            raise Failed("the worker process had ended") from None
        started = time.monotonic()
        deadline, long = started + self.budget, started + LONG
        tried = yielding = False
        stage: str | None = None
        ended: set[str] = set()
        while True:
            now = time.monotonic()
            if now >= deadline:
                self._replace(worker)
                stage = stage or ("translate" if job.method == "ask" and "translate" not in ended else None)
                doing = DOING.get(stage, stage) if stage else "answering"
                raise error(OverBudget, "budget", f"cannot tell: {doing} took longer than the "
                            f"{self.budget:g} s a request may take, and was stopped")
            if now >= long and not tried:
                tried, yielding = True, _renice(worker, YIELDING)
            if not worker.connection.poll((deadline if tried else min(deadline, long)) - now):
                continue
            try:
                kind, value = worker.receive()
            except Failed:
                self._replace(worker)
                raise
            if kind == "stage":
                stage = value
                continue
            if kind == "ended":
                ended.add(value)
                stage = None if value == stage else stage
                continue
            if kind == "folder":
                worker.folder = value
                continue
            worker.folder = None
            if yielding:
                _renice(worker, 0)  # not allowed without CAP_SYS_NICE: the worker stays yielding
            self._release(worker)
            if kind == "done":
                return value  # type: ignore[no-any-return]
            if kind == "error":
                raise value
            raise Failed(value)

    def _replace(self, worker: _Process) -> None:
        """Stop `worker` and start another in its place, in the background (it loads models)."""
        with self._free:
            self._all.discard(worker)
        worker.stop()
        threading.Thread(target=self._restart, daemon=True).start()

    def _restart(self) -> None:
        if self._closed:
            return
        worker = self._start()
        try:
            worker.ready()
        except (QlangError, Failed) as exc:
            logger.error("a replacement worker failed to start: %s", exc)
            with self._free:
                self._all.discard(worker)
            worker.stop()
            return
        if self._closed:
            worker.stop()
        else:
            self._release(worker)

    def close(self) -> None:
        """Stop every worker (a request still running gets `Failed`)."""
        self._closed = True
        with self._free:
            workers, self._all = set(self._all), set()
        for worker in workers:
            worker.stop()
