"""Answering a lowered question over a scene with clingo: ranked answers, or a reason why not.

One `clingo.Control` per question, so nothing leaks from one question into the next.  Before
grounding, the guard estimates from the sizes of the scene and the question what the theory
would ground to, and refuses blow-ups before they take the machine's memory (clingo cannot
interrupt grounding).  Solving runs asynchronously against a deadline that covers the whole
question.  The top k answers come from k optimisations, each assuming the
answers found so far false, so they are distinct and in cost order.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import cache

import clingo

from qlang.asp.guard import estimate
from qlang.asp.messages import located
from qlang.asp_names import from_term
from qlang.errors import QlangError, error
from qlang.signatures import SIGNATURES
from qlang.syntax._lark import resource_dir


class SolveError(QlangError):
    """No answer could be computed: a timeout, the grounding guard, or invalid ASP input."""


@dataclass(frozen=True, slots=True)
class Limits:
    #: seconds for grounding and solving one question, all top-k answers together
    timeout: float = 10.0
    #: the grounding guard: the most ground rule instances the estimate may reach
    max_ground: int = 5_000_000


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True, slots=True)
class Answer:
    value: str
    #: the optimisation cost, highest priority first (empty for a scene without weights)
    cost: tuple[int, ...]

    def to_json(self) -> dict[str, object]:
        return {"answer": self.value, "cost": list(self.cost)}


@dataclass(frozen=True, slots=True)
class Result:
    """The answers, best first; none means the question has no answer in the scene."""

    answers: tuple[Answer, ...]
    #: False when the deadline cut the search for answers after the first short
    complete: bool = True


@dataclass(frozen=True, slots=True)
class Found:
    """An optimal model's shown atoms (the answer), its cost, and all its atoms if asked for."""

    shown: tuple[clingo.Symbol, ...]
    cost: tuple[int, ...]
    atoms: tuple[clingo.Symbol, ...]

    @property
    def answer(self) -> str:
        """The answer as words (several, which the theory never yields, are joined)."""
        return ", ".join(sorted(from_term(str(s.arguments[0])) for s in self.shown if s.name == "ans"))


@cache
def theory() -> str:
    """The theory: every ``theory/*.lp`` file, in name order."""
    return "\n".join(path.read_text(encoding="utf-8")
                     for path in sorted(resource_dir("theory").glob("*.lp")))


class Session:
    """One question grounded over one scene, ready to be solved under a deadline."""

    def __init__(self, question: str, scene: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self.deadline = time.monotonic() + limits.timeout
        self.limits = limits
        self.messages: list[str] = []
        self.ctl = clingo.Control(["--opt-mode=opt"], logger=self._log, message_limit=5)
        size = estimate(_counts(scene, _SIZES), _counts(question, tuple(SIGNATURES)))
        if size > limits.max_ground:
            raise error(SolveError, "grounding",
                        f"the question would ground to about {size:,} rules, above the guard of "
                        f"{limits.max_ground:,}", hint="a smaller scene, or a larger --max-ground")
        self._add("scene", scene)
        self._add("question", question)
        self._add("theory", theory())
        try:
            self.ctl.ground([("base", [])])
        except RuntimeError:
            raise self._invalid("scene") from None  # only a scene can bring rules of its own
        if time.monotonic() > self.deadline:
            raise self._timeout()

    def optimum(self, assumptions: list[tuple[clingo.Symbol, bool]], *, atoms: bool = False
                ) -> Found | None:
        """The optimal model under `assumptions`, copied out of clingo; None if there is none."""
        best: list[Found] = []

        def keep(model: clingo.Model) -> None:
            everything = tuple(model.symbols(atoms=True)) if atoms else ()
            best[:] = [Found(tuple(model.symbols(shown=True)), tuple(model.cost), everything)]

        with self.ctl.solve(assumptions=assumptions, on_model=keep, async_=True) as handle:
            if not handle.wait(max(0.0, self.deadline - time.monotonic())):
                handle.cancel()
                raise self._timeout()
            result = handle.get()
        if result.unsatisfiable or not best:
            return None
        return best[0]

    def _timeout(self) -> SolveError:
        return error(SolveError, "timeout",  # type: ignore[return-value]
                     f"no answer within the {self.limits.timeout:g} s timeout")

    def _log(self, code: clingo.MessageCode, message: str) -> None:
        if code not in (clingo.MessageCode.AtomUndefined, clingo.MessageCode.GlobalVariable):
            self.messages.append(message.strip())

    def _add(self, part: str, text: str) -> None:
        """Add text to the program; a syntax error names the part it is in and where."""
        try:
            self.ctl.add("base", [], text)
        except RuntimeError:
            raise self._invalid(part) from None

    def _invalid(self, part: str) -> SolveError:
        message, span = located(self.messages[0] if self.messages else "clingo rejected it")
        if part == "scene" and span is not None:  # the span is not in the program's text
            message, span = f"line {span.line}, column {span.column}: {message}", None
        return error(SolveError, "asp", f"invalid ASP in the {part}: {message}", span)  # type: ignore[return-value]


_SIZES = ("object", "has_attr", "has_rel")


def _counts(text: str, names: tuple[str, ...]) -> dict[str, int]:
    """How often each predicate is written in `text`: a fast, generous stand-in for its atoms."""
    found = re.findall(r"\b(" + "|".join(names) + r")\(", text)
    return {name: found.count(name) for name in names}


def solve(question: str, scene: str, *, top_k: int = 1, limits: Limits = DEFAULT_LIMITS) -> Result:
    """The top-k distinct answers of a lowered question over scene facts, cheapest first.

    >>> solve("scene(0). select(1, 0, cat). exist(2, 1). end(2).", "object(1). has_attr(1, class, dog).")
    Result(answers=(Answer(value='no', cost=()),), complete=True)
    """
    session = Session(question, scene, limits)
    answers: list[Answer] = []
    found: list[tuple[clingo.Symbol, bool]] = []
    for _ in range(top_k):
        try:
            best = session.optimum(found)
        except SolveError:
            if not answers:
                raise
            return Result(tuple(answers), complete=False)
        if best is None:
            break
        answers.append(Answer(best.answer, best.cost))
        found += [(s, False) for s in best.shown if s.name == "ans"]
    return Result(tuple(answers))
