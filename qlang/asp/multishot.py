"""Many queries over one scene, the scene grounded once: clingo multi-shot.

A `GroundedScene` answers each query as `qlang.asp.solve.solve` answers it alone, from one
Control that holds the scene and the theory's shared base (`qlang.asp.theory.Shared`); each
query is grounded on top of it and switched off after, so nothing leaks from one query into
the next."""

from __future__ import annotations

import time

import clingo

from qlang.asp import guard, theory
from qlang.asp.background import NOTHING, Background, Lazy, Words
from qlang.asp.messages import Log
from qlang.asp.options import DEFAULT_OPTIONS, Limits, SolveOptions
from qlang.asp.outcome import Solution, SolveError
from qlang.asp.query import Query
from qlang.asp.session import Session, arguments, timeout
from qlang.asp.solve import ranked, solve
from qlang.rules.statements import add


class GroundedScene:
    """A scene grounded once, answering many queries.  A query number k grounds the theory's
    parts for its operations with k, solves with ``active(k)`` true, then releases it, so
    nothing of it reaches the next query.  A fact of no operation the theory defines, a scene
    clingo rejects, and the thesis's semantics (whose queries write scene atoms) are solved
    alone, by `solve`, with the same results and errors.

    >>> from qlang.asp.query import read
    >>> scene = GroundedScene("object(1). has_attr(1, class, dog).")
    >>> [scene.solve(read(f"scene(0). select(1, 0, {c}). exist(2, 1). end(2).")).answers[0].value
    ...  for c in ("cat", "dog")]
    ['no', 'yes']
    """

    #: Queries one Control takes before a fresh one: clingo's symbol table only grows, and
    #: every query grounds and solves a little slower than the last (on the emma questions,
    #: batches of 25-50 a Control answer 20 % more questions/s than batches of 200).
    RENEW = 50

    def __init__(self, scene: str, options: SolveOptions = DEFAULT_OPTIONS) -> None:
        self.scene = scene
        self.options = options
        self.background = options.background or NOTHING
        self.shared = theory.shared(options.semantics)
        self._sizes = guard.sizes(scene)
        self._rules_size = guard.rules_size(scene, self._sizes, options.background)
        self._ctl: _Shared | None = None
        self._broken = self.shared is None
        self._words: Words | None = None

    def solve(self, query: Query) -> Solution:
        """The answers `solve(query, scene, options)` gives, from the shared grounding."""
        options = self.options
        background = self.background
        background.ready(query, options.semantics)
        deadline = time.monotonic() + options.limits.timeout
        guard.check(self._sizes, query, options.limits, self._rules_size)
        if not self._broken and (self._ctl is None or self._ctl.asked >= self.RENEW):
            try:
                assert self.shared is not None
                self._ctl = _Shared(self.scene, self.shared, background, self.words)
            except RuntimeError:  # let `solve` say what is wrong with the scene, every time
                self._broken, self._ctl = True, None
        asked = None
        if self._ctl is not None:
            known = background.query_facts(query, self.words, options.semantics, options.question)
            try:
                asked = self._ctl.ask(query, known, deadline, options.limits)
            except RuntimeError:
                self._ctl = None  # clingo refused the query: start afresh next time
        if asked is None:
            return solve(query, self.scene, options)
        try:
            result = ranked(asked, options)
        except SolveError:
            self._ctl = None  # a search cut short leaves what it learnt: start afresh
            raise
        finally:
            asked.close()
        if not result.complete:  # the same, where the deadline cut a later answer short
            self._ctl = None
        return result

    def words(self) -> Words:
        """The scene's words (`Background.words`), read once, when first needed."""
        if self._words is None:
            self._words = self.background.words(self.scene)
        return self._words


class _Shared:
    """One Control with the scene grounded, and the theory's query parts added, once."""

    def __init__(self, scene: str, shared: theory.Shared, background: Background | None = None,
                 words: Lazy | None = None) -> None:
        """With the background's rules, and the knowledge they read, beside the scene."""
        self.log = Log()
        self.ctl = self.log.control()
        self.models = self.ctl.configuration.solve.models  # type: ignore[union-attr]
        self.shared = shared
        self.levels: dict[int, list[tuple[int, int]]] = {}
        self.base_levels: dict[int, list[tuple[int, int]]] = {}
        self.ctl.register_observer(self)  # type: ignore[arg-type]  # only minimize() is needed
        self.ctl.add("base", [], shared.base)
        self.ctl.add("base", [], scene)
        if background is not None and words is not None:
            if statements := background.statements():
                add(self.ctl, statements)
            if known := background.rule_facts(words):
                with self.ctl.backend() as backend:
                    for atom in known:
                        backend.add_rule([backend.add_atom(atom)])
        self.added: set[str] = set()
        self.ctl.ground([("base", [])])
        self.base_levels, self.levels = self.levels, {}
        self.base_open = {a.literal for a in self.ctl.symbolic_atoms if not a.is_fact}
        self.asked = 0

    def ask(self, query: Query, known: list[clingo.Symbol], deadline: float, limits: Limits
            ) -> _Asked | None:
        """The query grounded on top of the scene, with the knowledge facts it reads; None if
        a fact is of no operation the theory defines."""
        if any((f.name, len(f.args)) not in self.shared.facts for f in query):
            return None
        given = [(f.name, arguments(f)) for f in query]  # a number beyond clingo's raises here
        k = self.asked = self.asked + 1
        self.levels = {}
        number = clingo.Number(k)
        indexed = self.shared.indexed
        # built with the question's number straight away: reading a symbol's name and arguments
        # back from clingo costs a call each
        facts = [clingo.Function(name, [number, *args] if name in indexed else args) for name, args in given]
        facts += [clingo.Function(f.name, [number, *f.arguments]) if f.name in indexed else f for f in known]
        operations = {f.name for f in query}
        for name, needs, text in self.shared.parts:  # added when first needed: clingo prepares
            if needs <= operations and name not in self.added:  # every part at each grounding
                self.ctl.add(name, ["k"], text)
                self.added.add(name)
        with self.ctl.backend() as backend:  # the facts go straight in: grounding them as
            for fact in facts:  # parameters of program parts costs a part each (~0.1 ms)
                backend.add_rule([backend.add_atom(fact)])
        self.ctl.ground([(name, [number]) for name, needs, _ in self.shared.parts if needs <= operations])
        return _Asked(self, k, deadline, limits)

    def minimize(self, priority: int, literals: list[tuple[int, int]]) -> None:
        """clingo's observer: the weak constraints grounded in this step."""
        self.levels.setdefault(priority, []).extend(literals)


class _Asked(Session):
    """Query number k of a `GroundedScene`, on the shared Control: its rules hold while
    ``active(k)`` does, and its atoms carry k."""

    def __init__(self, shared: _Shared, k: int, deadline: float, limits: Limits) -> None:
        external = clingo.Function("active", [clingo.Number(k)])
        active = shared.ctl.symbolic_atoms[external].literal  # type: ignore[union-attr]
        super().__init__(shared.ctl, shared.log, deadline, limits, active)
        self.shared = shared
        self.k = k
        self.external = external
        self.ctl.assign_external(external, True)
        self.solving.opt_mode = "opt"
        self.solving.models = shared.models
        # Weak constraints of this query and of the scene: a level another query left
        # behind (all its atoms false now) must not show in this query's cost.
        levels: dict[int, list[tuple[int, int]]] = {}
        for source in (shared.base_levels, shared.levels):
            for priority, literals in source.items():
                levels.setdefault(priority, []).extend(literals)
        self.levels = sorted(levels.items(), reverse=True)
        if time.monotonic() > deadline:
            self.close()
            raise timeout(limits)

    def close(self) -> None:
        self.ctl.release_external(self.external)

    def answer_atom(self, shown: clingo.Symbol) -> clingo.Symbol:
        return clingo.Function(shown.name, [clingo.Number(self.k), *shown.arguments])

    def open_atoms(self) -> list[int]:
        """The scene's open atoms and this query's (the earlier queries' are all false)."""
        base, names, k = self.shared.base_open, self.shared.shared.indexed, clingo.Number(self.k)
        return [a.literal for a in self.ctl.symbolic_atoms if not a.is_fact and (
            a.literal in base or (a.symbol.name in names and a.symbol.arguments[0] == k))]

    def cost(self, model: clingo.Model) -> tuple[int, ...]:
        return tuple(sum(weight for literal, weight in literals if model.is_true(literal))
                     for _, literals in self.levels)

    def model_atoms(self, model: clingo.Model) -> tuple[clingo.Symbol, ...]:
        """The model's atoms, this query's without its number (the others' are all false)."""
        names, k = self.shared.shared.indexed, clingo.Number(self.k)
        return tuple(clingo.Function(a.name, a.arguments[1:])
                     if a.name in names and a.arguments and a.arguments[0] == k else a
                     for a in model.symbols(atoms=True))
