"""Every batch's loop: a `Job` mapped over the pending items on an executor, each result written
as it comes, in input order; `attempt` is the batches' rule that one item's failure is recorded
as its result (a `QlangError`, or any other exception as an internal error) and the batch goes
on."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from qlang.errors import Diagnostic, QlangError
from qlang.executors import Executor, Job
from qlang.records.output import Output, Written, succeeded

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Progress:
    """A progress bar on standard error, shown on a terminal only (`shown`: at all)."""

    what: str
    total: int
    unit: str = "q"
    shown: bool = True

    def over(self, results: Iterable[T]) -> Iterable[T]:
        from tqdm import tqdm

        shown: Iterable[T] = tqdm(results, total=self.total, desc=self.what, unit=self.unit,
                                  file=sys.stderr, disable=None if self.shown else True)
        return shown


def run_batch(job: Job[T, Written], items: Iterable[T], output: Output,
              executor: Executor, *, batch: int, progress: Progress | None = None) -> bool:
    """Every batch's loop: `job` mapped over `items` on `executor`, `batch` items a call, each
    result written to `output` as soon as it and those before it are known, in input order;
    True if no item failed.  The items are the pending ones (`Pending.todo`), and a job answers
    each, its failure included (`attempt`): only a batch that cannot go on raises."""
    results: Iterable[Written] = executor.map(job, items, batch=batch)
    ok = True
    for result in progress.over(results) if progress else results:
        ok = succeeded(result) and ok
        output.write(result)
    return ok


def failure(exc: Exception) -> QlangError:
    """Why an item failed, as its result records it: its QlangError, or any other exception as
    an internal error (qlang's fault)."""
    if isinstance(exc, QlangError):
        return exc
    return QlangError([Diagnostic("internal", f"internal error: {type(exc).__name__}: {exc}")])


def attempt(work: Callable[[], R], failed: Callable[[QlangError], R]) -> R:
    """What `work` returns, or, where it raises, what `failed` makes of why (`failure`): the
    batches' rule that one item's failure is recorded as its result and the batch goes on."""
    try:
        return work()
    except Exception as exc:  # one item's failure must not end the batch
        return failed(failure(exc))
