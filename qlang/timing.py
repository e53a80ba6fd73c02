"""Seconds per stage, in order: the figure a user of `ask` or `perceive` sees, and the benches."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Stages:
    """Seconds per stage, in the order the stages first ran."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def time(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(stage, time.perf_counter() - start)

    def add(self, stage: str, seconds: float) -> None:
        self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds

    def line(self) -> str:
        return ", ".join(f"{stage} {s * 1000:.0f} ms" for stage, s in self.seconds.items())
