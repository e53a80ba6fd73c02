"""How a query is solved: one value every way of solving takes and hands down (the command
line, the pipeline, a batch, a grounded scene, a session), in place of the six settings each
would otherwise pass on one by one."""

from __future__ import annotations

from dataclasses import dataclass

from qlang.asp.background import Background


@dataclass(frozen=True, slots=True)
class Limits:
    #: seconds for grounding and solving one question, all top-k answers together
    timeout: float = 10.0
    #: the grounding guard: the most ground rule instances the estimate may reach
    max_ground: int = 5_000_000


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class SolveOptions:
    """How to solve a query: how many answers and which, within what limits, under which
    semantics, against what background."""

    #: how many answers, best first
    top_k: int = 1
    #: the k best distinct answers instead of the k best models
    distinct: bool = False
    limits: Limits = DEFAULT_LIMITS
    #: the theory's choice rules (`qlang.asp.theory.SEMANTICS`)
    semantics: str = "qlang"
    #: the knowledge and rules besides the scene
    background: Background | None = None
    #: the best model's atoms too (the steps' bindings are there)
    atoms: bool = False
    #: the English question the query was translated from, if any: what the knowledge
    #: operations' paths are ranked against under ``--rank question``
    question: str | None = None


DEFAULT_OPTIONS = SolveOptions()
