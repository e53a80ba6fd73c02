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
from qlang.asp.scene import domain
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
#: The theory's choice rules for query, choose_attr, choose_rel and common: qlang's, among the
#: values the scene has, or the seed thesis's, among the value domain (theory/semantics/).
SEMANTICS = ("qlang", "thesis")


@dataclass(frozen=True, slots=True)
class Answer:
    value: str
    #: the optimisation cost, highest priority first (empty for a scene without weights)
    cost: tuple[int, ...]
    #: 1 + the number of models found that cost less: tied models share a rank
    rank: int = 1

    def to_json(self) -> dict[str, object]:
        return {"answer": self.value, "cost": list(self.cost), "rank": self.rank}


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
def theory(semantics: str = "qlang") -> str:
    """The theory under a semantics (`SEMANTICS`): every ``theory/*.lp`` file, in name order, then
    the value-valued operations' choice rules of ``theory/semantics/<semantics>.lp`` (the
    thesis's with the value domain they choose from)."""
    if semantics not in SEMANTICS:
        raise ValueError(f"unknown semantics {semantics!r} (one of {', '.join(SEMANTICS)})")
    folder = resource_dir("theory")
    parts = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.lp"))]
    parts.append((folder / "semantics" / f"{semantics}.lp").read_text(encoding="utf-8"))
    return "\n".join([*parts, domain()] if semantics == "thesis" else parts)


class Session:
    """One question grounded over one scene, ready to be solved under a deadline."""

    def __init__(self, question: str, scene: str, limits: Limits = DEFAULT_LIMITS,
                 semantics: str = "qlang") -> None:
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
        self._add("theory", theory(semantics))
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

        result = self._search(keep, assumptions)
        if result.unsatisfiable or not best:
            return None
        return best[0]

    def best_models(self, k: int) -> tuple[list[Found], bool]:
        """Up to k models, cheapest first: all optimal models (a tier), then, once they are
        excluded, the next tier, and so on; False when the deadline cut a later tier short."""
        self.ctl.configuration.solve.opt_mode = "optN"  # type: ignore[union-attr]
        self.ctl.configuration.solve.models = 0  # type: ignore[union-attr]
        # what tells one model from another, needed only to exclude a tier before the next
        open_atoms = [a.literal for a in self.ctl.symbolic_atoms if not a.is_fact] if k > 1 else []
        found: list[Found] = []
        tier: list[tuple[Found, list[int]]] = []

        def keep(model: clingo.Model) -> bool:
            if model.cost and not model.optimality_proven:
                return True  # still converging on this tier's cost
            assignment = [a if model.is_true(a) else -a for a in open_atoms]
            tier.append((Found(tuple(model.symbols(shown=True)), tuple(model.cost), ()), assignment))
            return len(found) + len(tier) < k

        while len(found) < k:
            tier.clear()
            try:
                self._search(keep, [])
            except SolveError:
                if not found:
                    raise
                return found, False
            if not tier:
                break
            found += [model for model, _ in tier]
            with self.ctl.backend() as backend:  # exclude this tier's models from the next one
                for _, assignment in tier:
                    backend.add_rule([], assignment)
        return found, True

    def _search(self, on_model: object, assumptions: list[tuple[clingo.Symbol, bool]]) -> clingo.SolveResult:
        with self.ctl.solve(assumptions=assumptions, on_model=on_model, async_=True) as handle:  # type: ignore[call-overload]
            if not handle.wait(max(0.0, self.deadline - time.monotonic())):
                handle.cancel()
                raise self._timeout()
            result: clingo.SolveResult = handle.get()
        return result

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


def solve(question: str, scene: str, *, top_k: int = 1, distinct: bool = False,
          limits: Limits = DEFAULT_LIMITS, semantics: str = "qlang") -> Result:
    """The k best models of a lowered question over scene facts, cheapest first, as answers
    with their rank; with `distinct`, the k best distinct answers instead; `semantics` picks
    the theory's choice rules (`SEMANTICS`).

    >>> solve("scene(0). select(1, 0, cat). exist(2, 1). end(2).", "object(1). has_attr(1, class, dog).")
    Result(answers=(Answer(value='no', cost=(), rank=1),), complete=True)
    """
    session = Session(question, scene, limits, semantics)
    if not distinct:
        models, complete = session.best_models(top_k)
        rank: dict[tuple[int, ...], int] = {}
        for index, model in enumerate(models):
            rank.setdefault(model.cost, index + 1)
        return Result(tuple(Answer(m.answer, m.cost, rank[m.cost]) for m in models), complete)
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
        answers.append(Answer(best.answer, best.cost, len(answers) + 1))
        found += [(s, False) for s in best.shown if s.name == "ans"]
    return Result(tuple(answers))
