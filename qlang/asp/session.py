"""One query grounded on a clingo Control, solved under a deadline: its optimum, or its k best.

`ground` makes one Control per query, with only the theory's rules for the query's operations;
`qlang.asp.multishot` grounds queries on top of a scene's shared Control instead, and solves
them through the same `Session`.  A `Background` (knowledge bases, a rules file) adds the rules'
statements and the knowledge facts the rules and the query read.  Before grounding, the guard
(`qlang.asp.guard`) refuses blow-ups from the sizes of the scene, the rules and the query, as
clingo cannot interrupt grounding; each search is watched (`qlang.asp.watchdog`) against a
deadline that covers the whole query."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import clingo

from qlang.asp import guard, theory
from qlang.asp.background import NOTHING
from qlang.asp.facts import INT_RANGE
from qlang.asp.messages import Log
from qlang.asp.options import DEFAULT_OPTIONS, Limits, SolveOptions
from qlang.asp.outcome import SolveError
from qlang.asp.query import Query
from qlang.asp.watchdog import WATCHDOG
from qlang.asp_names import from_term, literal_symbol
from qlang.errors import error
from qlang.passes.lower import Fact
from qlang.rules.statements import add
from qlang.signatures import SIGNATURES, Kind


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


class Session:
    """A query grounded on `ctl`, ready to be solved before `deadline` (monotonic seconds).

    `active`: the external that holds the query's rules, where several queries share a
    Control; a subclass that shares one says how to read its models (`open_atoms`, `cost`,
    `model_atoms`, `answer_atom`)."""

    def __init__(self, ctl: clingo.Control, log: Log, deadline: float, limits: Limits,
                 active: int | None = None) -> None:
        self.ctl = ctl
        self.log = log
        self.deadline = deadline
        self.limits = limits
        self.active = active
        solving = ctl.configuration.solve  # looked up once: each lookup builds clingo's wrappers
        assert isinstance(solving, clingo.Configuration)
        self.solving = solving

    def optimum(self, assumptions: list[tuple[clingo.Symbol, bool]], *, atoms: bool = False
                ) -> Found | None:
        """The optimal model under `assumptions`, copied out of clingo; None if there is none."""
        best: list[Found] = []

        def keep(model: clingo.Model) -> None:
            everything = self.model_atoms(model) if atoms else ()
            best[:] = [Found(tuple(model.symbols(shown=True)), self.cost(model), everything)]

        result = self.search(keep, assumptions)
        if result.unsatisfiable or not best:
            return None
        return best[0]

    def best_models(self, k: int, *, atoms: bool = False) -> tuple[list[Found], bool]:
        """Up to k models, cheapest first: all optimal models (a tier), then, once they are
        excluded, the next tier, and so on; False when the deadline cut a later tier short.
        With `atoms`, the first (an optimal model) has all its atoms."""
        self.solving.opt_mode = "optN"
        self.solving.models = 0
        # what tells one model from another, needed only to exclude a tier before the next
        open_atoms = self.open_atoms() if k > 1 else []
        guard = [] if self.active is None else [self.active]
        found: list[Found] = []
        tier: list[tuple[Found, list[int]]] = []

        def keep(model: clingo.Model) -> bool:
            if model.cost and not model.optimality_proven:
                return True  # still converging on this tier's cost
            assignment = [a if model.is_true(a) else -a for a in open_atoms]
            everything = self.model_atoms(model) if atoms and not found and not tier else ()
            tier.append((Found(tuple(model.symbols(shown=True)), self.cost(model), everything),
                         assignment))
            return len(found) + len(tier) < k

        while len(found) < k:
            tier.clear()
            try:
                self.search(keep, [])
            except SolveError:
                if not found:
                    raise
                return found, False
            if not tier:
                break
            found += [model for model, _ in tier]
            if len(found) >= k:
                break
            with self.ctl.backend() as backend:  # exclude this tier's models from the next one
                for _, assignment in tier:
                    backend.add_rule([], guard + assignment)
        return found, True

    def answer_atom(self, shown: clingo.Symbol) -> clingo.Symbol:
        """The atom behind a shown answer, to assume it false."""
        return shown

    def open_atoms(self) -> list[int]:
        """The atoms that tell one model from another."""
        return [a.literal for a in self.ctl.symbolic_atoms if not a.is_fact]

    def model_atoms(self, model: clingo.Model) -> tuple[clingo.Symbol, ...]:
        """Every atom of a model, as the theory writes them."""
        return tuple(model.symbols(atoms=True))

    def cost(self, model: clingo.Model) -> tuple[int, ...]:
        """A model's cost, highest priority first."""
        return tuple(model.cost)

    def search(self, on_model: Callable[[clingo.Model], bool | None],
               assumptions: list[tuple[clingo.Symbol, bool]]) -> clingo.SolveResult:
        """One search, interrupted at the deadline (a `SolveError` then)."""
        with WATCHDOG.watching(self.ctl, self.deadline):
            result = self.ctl.solve(assumptions=assumptions, on_model=on_model)
        # a search that ended at its deadline is cut short too: the watcher may have interrupted
        # just after it, and that interrupt waits on the Control for its next search (which a
        # cut-short query's Control never has)
        if result.interrupted or time.monotonic() >= self.deadline:
            raise timeout(self.limits)
        return result


def ground(query: Query, scene: str, options: SolveOptions = DEFAULT_OPTIONS) -> Session:
    """One query grounded over one scene on a Control of its own, with the `options`' limits,
    semantics and background.

    Only the theory's rules for the query's operations go in (`qlang.asp.theory.cut`):
    the others would ground to nothing, and preparing them costs more than the rest."""
    limits, semantics = options.limits, options.semantics
    background = options.background or NOTHING
    background.ready(query, semantics)
    deadline = time.monotonic() + limits.timeout
    log = Log()
    ctl = log.control()
    sizes = guard.sizes(scene)
    guard.check(sizes, query, limits, guard.rules_size(scene, sizes, background))
    atoms = symbols(query)
    _add(ctl, log, "scene", scene)
    _add(ctl, log, "theory", theory.cut({f.name for f in query}, scene, semantics))
    if statements := background.statements():
        add(ctl, statements)
    words = cache(lambda: background.words(scene))
    atoms += [*background.rule_facts(words),
              *background.query_facts(query, words, semantics, options.question)]
    with ctl.backend() as backend:  # the query's facts go straight in
        for atom in atoms:
            backend.add_rule([backend.add_atom(atom)])
    try:
        ctl.ground([("base", [])])
    except RuntimeError:
        raise log.invalid("scene") from None  # only a scene can bring rules of its own
    if time.monotonic() > deadline:
        raise timeout(limits)
    return Session(ctl, log, deadline, limits)


def _add(ctl: clingo.Control, log: Log, part: str, text: str) -> None:
    """Add text to the program; a syntax error names the part it is in and where."""
    try:
        ctl.add("base", [], text)
    except RuntimeError:
        raise log.invalid(part) from None


def timeout(limits: Limits) -> SolveError:
    """The error of a query whose deadline passed."""
    return error(SolveError, "timeout",  # type: ignore[return-value]
                 f"no answer within the {limits.timeout:g} s timeout")


def symbols(query: Query) -> list[clingo.Symbol]:
    """The query's facts as clingo symbols, built directly: step numbers as numbers (one
    beyond clingo's 32 bits is an error, never wrapped), words as `to_literal` spells them."""
    return [clingo.Function(f.name, arguments(f)) for f in query]


def arguments(fact: Fact) -> list[clingo.Symbol]:
    """A fact's arguments as `symbols` builds them."""
    signature = SIGNATURES.get(fact.name)
    return [_argument(a, signature.kind(i - 1) if signature else None)  # after the step
            for i, a in enumerate(fact.args)]


def _argument(value: int | str, kind: Kind | None) -> clingo.Symbol:
    if isinstance(value, str):
        return literal_symbol(value, kind)
    if value not in INT_RANGE:
        raise error(SolveError, "input", f"the question's integer {value} is beyond clingo's 32 bits")
    return clingo.Number(value)
