"""What solving a query gives back: its answers, ranked, or a `SolveError` saying why none."""

from __future__ import annotations

from dataclasses import dataclass, field

import clingo

from qlang.errors import QlangError


class SolveError(QlangError):
    """No answer could be computed: a timeout, the grounding guard, or input clingo cannot take."""


@dataclass(frozen=True, slots=True)
class Answer:
    value: str
    #: the optimisation cost, highest priority first (empty for a scene without weights)
    cost: tuple[int, ...]
    #: 1 + the number of models (distinct answers) found that cost less: tied ones share a rank
    rank: int = 1

    def to_json(self) -> dict[str, object]:
        return {"answer": self.value, "cost": list(self.cost), "rank": self.rank}


@dataclass(frozen=True, slots=True)
class Solution:
    """The answers, best first; none means the question has no answer in the scene."""

    answers: tuple[Answer, ...]
    #: False when the deadline cut the search for answers after the first short
    complete: bool = True
    #: every atom of the best model, where they were asked for (the steps' bindings are there)
    atoms: tuple[clingo.Symbol, ...] = field(default=(), repr=False)
