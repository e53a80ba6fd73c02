"""How far solving one query may go: its deadline and the grounding guard's bound."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    #: seconds for grounding and solving one question, all top-k answers together
    timeout: float = 10.0
    #: the grounding guard: the most ground rule instances the estimate may reach
    max_ground: int = 5_000_000


DEFAULT_LIMITS = Limits()
