"""Many queries over one scene, the scene grounded once: clingo multi-shot.

A `GroundedScene` answers each query as `qlang.asp.solve.solve` answers it alone, from one
Control that holds the scene and the theory's shared base (`qlang.asp.theory.Shared`); each
query is grounded on top of it and switched off after, so nothing leaks from one query into
the next.  Several queries at once (`GroundedScene.solve_all`) are grounded in one step and
solved in one search where nothing one chooses is another's, each read off the one model."""

from __future__ import annotations

import time
from collections.abc import Sequence

import clingo

from qlang.asp import guard, theory
from qlang.asp.background import NOTHING, Background, Lazy, Words
from qlang.asp.messages import Log
from qlang.asp.options import DEFAULT_OPTIONS, Limits, SolveOptions
from qlang.asp.outcome import Answer, Solution, SolveError
from qlang.asp.query import Query
from qlang.asp.session import Session, arguments, timeout
from qlang.asp.solve import ranked, solve
from qlang.asp.watchdog import WATCHDOG
from qlang.asp_names import from_term
from qlang.rules.statements import add

#: A question as it is grounded: its facts (name, arguments), and the knowledge facts it reads.
Given = tuple[list[tuple[str, list[clingo.Symbol]]], list[clingo.Symbol]]


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
    #: Seconds a question of a search of several may take (the search's deadline is theirs
    #: together, at most one question's timeout): the emma questions take about 0.03 ms each.
    TOGETHER = 0.05

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
        #: whether the scene has one model (`_Shared.settled`), once found
        self._settled: bool | None = None

    def solve(self, query: Query) -> Solution:
        """The answers `solve(query, scene, options)` gives, from the shared grounding."""
        options = self.options
        background = self.background
        background.ready(query, options.semantics)
        deadline = time.monotonic() + options.limits.timeout
        guard.check(self._sizes, query, options.limits, self._rules_size)
        ctl = self._control()
        asked = None
        if ctl is not None:
            known = background.query_facts(query, self.words, options.semantics, options.question)
            try:
                asked = ctl.ask(query, known, deadline, options.limits)
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

    def solve_all(self, queries: Sequence[Query]) -> list[Solution | Exception]:
        """What `solve` gives each query (its solution, or what it raises), most of them from
        one grounding and one search: clingo's calls, not its work, are most of a small
        question's time.  Where they can be solved together (the best answer alone, over a
        scene of one model: nothing one question chooses is another's), the questions are grounded
        in one step and solved in one search, each read off the model by its number; the rest,
        and all of them where the search fails or is cut short, one by one."""
        results: list[Solution | Exception | None] = [None] * len(queries)
        ctl = self._control() if self.options.top_k == 1 and len(queries) > 1 else None
        if ctl is not None and self._settled is None:  # the same for every Control of the scene
            self._settled = ctl.settled()
        if ctl is not None and self._settled and not ctl.spent:
            given = {i: facts for i, query in enumerate(queries) if (facts := self._given(ctl, query))}
            if len(given) > 1:
                try:
                    for i, solution in zip(given, self._together(ctl, list(given.values())), strict=True):
                        results[i] = solution
                except Exception:  # whatever it was (clingo's refusal, the search's deadline),
                    self._ctl = None  # each is solved alone below, with its own deadline
        return [self._attempt(query) if result is None else result
                for query, result in zip(queries, results, strict=True)]

    def _attempt(self, query: Query) -> Solution | Exception:
        try:
            return self.solve(query)
        except Exception as exc:  # one question's failure is its own
            return exc

    def _given(self, ctl: _Shared, query: Query) -> Given | None:
        """The query's facts, and the knowledge facts it reads, ready to be grounded with the
        others; None where it is to be solved alone (so that `solve` says what is wrong)."""
        options = self.options
        try:
            self.background.ready(query, options.semantics)
            guard.check(self._sizes, query, options.limits, self._rules_size)
            if any((f.name, len(f.args)) not in ctl.shared.facts for f in query):
                return None
            known = self.background.query_facts(query, self.words, options.semantics, options.question)
            return [(f.name, arguments(f)) for f in query], known
        except Exception:  # told by `solve`, question by question
            return None

    def _together(self, ctl: _Shared, given: list[Given]) -> list[Solution]:
        """The questions' solutions from one grounding and one search on `ctl`, within
        `TOGETHER` seconds a question: a question that cannot be answered in time costs the
        others little before each is solved alone."""
        limits = self.options.limits
        deadline = time.monotonic() + min(limits.timeout, self.TOGETHER * len(given))
        ks = ctl.ground(given, tally=True)
        together = _Together(ctl, ks, deadline, limits)
        try:
            return together.solutions(self.options.atoms)
        finally:
            together.close()

    def _control(self) -> _Shared | None:
        """The scene's shared Control, renewed every `RENEW` questions; None if clingo rejects
        the scene."""
        if not self._broken and (self._ctl is None or self._ctl.asked >= self.RENEW or self._ctl.spent):
            try:
                assert self.shared is not None
                self._ctl = _Shared(self.scene, self.shared, self.background, self.words)
            except RuntimeError:  # let `solve` say what is wrong with the scene, every time
                self._broken, self._ctl = True, None
        return self._ctl

    def words(self) -> Words:
        """The scene's words (`Background.words`), read once, when first needed."""
        if self._words is None:
            self._words = self.background.words(self.scene)
        return self._words


#: Seconds the search for a scene's second model may take (`_Shared.settled`).
SETTLE = 1.0


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
        #: whether an interrupt may wait on it for its next search: it answers no more questions
        self.spent = False

    def settled(self) -> bool:
        """Whether the scene, with the rules beside it, has exactly one model and no costs: then
        every scene atom is the same in every question's model, and questions cannot share a
        choice.  Rules with negation leave atoms open that one model settles; an uncertain
        scene's choices leave more than one.  Found once, by a search for two models within
        `SETTLE` seconds."""
        return not self.base_levels and (not self.base_open or self._one_model())

    def _one_model(self) -> bool:
        solving = self.ctl.configuration.solve
        assert isinstance(solving, clingo.Configuration)
        solving.models = 2
        found = [0]

        def count(_: clingo.Model) -> None:
            found[0] += 1

        deadline = time.monotonic() + SETTLE
        with WATCHDOG.watching(self.ctl, deadline):
            result = self.ctl.solve(on_model=count)
        solving.models = self.models
        # an interrupt at the deadline may wait for the next search (`Session.search`)
        self.spent = result.interrupted or time.monotonic() >= deadline
        return not self.spent and found[0] == 1

    def ask(self, query: Query, known: list[clingo.Symbol], deadline: float, limits: Limits
            ) -> _Asked | None:
        """The query grounded on top of the scene, with the knowledge facts it reads; None if
        a fact is of no operation the theory defines."""
        if any((f.name, len(f.args)) not in self.shared.facts for f in query):
            return None
        # a number beyond clingo's raises here
        k, = self.ground([([(f.name, arguments(f)) for f in query], known)])
        return _Asked(self, k, deadline, limits)

    def ground(self, questions: list[Given], *, tally: bool = False) -> list[int]:
        """Questions (their facts and knowledge facts) grounded on top of the scene in one step,
        each under a number of its own; with `tally`, their weak constraints' atoms too
        (`theory.Shared.tally`).  Their numbers, in order."""
        self.levels = {}
        indexed = self.shared.indexed
        parts = self.shared.parts + self.shared.tally if tally else self.shared.parts
        atoms: list[clingo.Symbol] = []
        grounded: list[tuple[str, list[clingo.Symbol]]] = []
        ks = []
        for given, known in questions:
            k = self.asked = self.asked + 1
            ks.append(k)
            number = clingo.Number(k)
            # built with the question's number straight away: reading a symbol's name and
            # arguments back from clingo costs a call each
            atoms += [clingo.Function(name, [number, *args] if name in indexed else args)
                      for name, args in given]
            atoms += [clingo.Function(f.name, [number, *f.arguments]) if f.name in indexed else f
                      for f in known]
            operations = {name for name, _ in given}
            for name, needs, text in parts:  # added when first needed: clingo prepares
                if needs <= operations:  # every part at each grounding
                    if name not in self.added:
                        self.ctl.add(name, ["k"], text)
                        self.added.add(name)
                    grounded.append((name, [number]))
        with self.ctl.backend() as backend:  # the facts go straight in: grounding them as
            for atom in atoms:  # parameters of program parts costs a part each (~0.1 ms)
                backend.add_rule([backend.add_atom(atom)])
        self.ctl.ground(grounded)
        return ks

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


class _Together:
    """Questions ks grounded together on a shared Control (with `theory.Shared.tally`), solved
    in one search: with every one's ``active(k)`` true, an optimal model is optimal for each, as
    no question reads another's atoms nor shares a cost with it.  A question with no answer
    makes the whole unsatisfiable: the questions are then split in two, and each half solved
    again, down to the questions without one."""

    def __init__(self, shared: _Shared, ks: list[int], deadline: float, limits: Limits) -> None:
        self.shared, self.ks, self.deadline, self.limits = shared, ks, deadline, limits
        self.ctl = shared.ctl
        self.externals = [clingo.Function("active", [clingo.Number(k)]) for k in ks]
        asked = set(ks)
        #: (k, value, literal) of every answer atom, (k, priority, weight, literal) of every tally
        self.answers: list[tuple[int, clingo.Symbol, int]] = []
        self.tallies: list[tuple[int, int, int, int]] = []
        atoms = self.ctl.symbolic_atoms
        for atom in atoms.by_signature("ans", 2):
            k, value = atom.symbol.arguments
            if k.number in asked:
                self.answers.append((k.number, value, atom.literal))
        number = clingo.SymbolType.Number
        for atom in atoms.by_signature(theory.TALLY, 4):
            k, priority, weight, _ = atom.symbol.arguments
            # clingo drops a tuple whose weight or priority is no number (a #min of nothing)
            if k.number in asked and weight.type == number and priority.type == number:
                self.tallies.append((k.number, priority.number, weight.number, atom.literal))
        solving = self.ctl.configuration.solve
        assert isinstance(solving, clingo.Configuration)
        solving.opt_mode = "opt"  # the last model is optimal; without costs, the first
        solving.models = shared.models

    def solutions(self, atoms: bool) -> list[Solution]:
        """Each question's best answer, as `ranked` gives it with top_k 1."""
        truth: dict[int, bool] = {}
        everything: dict[int, tuple[clingo.Symbol, ...]] = {}
        found: dict[int, bool] = {}
        self._settle(self.ks, truth, everything if atoms else None, found)
        values: dict[int, list[str]] = {k: [] for k in self.ks}
        for k, value, literal in self.answers:
            if truth.get(literal):
                values[k].append(from_term(str(value)))
        levels: dict[int, dict[int, int]] = {k: {} for k in self.ks}
        for k, priority, weight, literal in self.tallies:
            level = levels[k]
            level[priority] = level.get(priority, 0) + (weight if truth.get(literal) else 0)
        return [Solution((Answer(", ".join(sorted(values[k])),
                                 tuple(cost for _, cost in sorted(levels[k].items(), reverse=True))),),
                         True, everything.get(k, ()))
                if found[k] else Solution(()) for k in self.ks]

    def _settle(self, ks: list[int], truth: dict[int, bool],
                everything: dict[int, tuple[clingo.Symbol, ...]] | None, found: dict[int, bool]) -> None:
        """Solve questions ks (the others of this step switched off); halve where unsatisfiable."""
        on = set(ks)
        for k, external in zip(self.ks, self.externals, strict=True):
            self.ctl.assign_external(external, k in on)
        literals = [literal for k, _, literal in self.answers if k in on]
        literals += [literal for k, _, _, literal in self.tallies if k in on]
        model: list[clingo.Symbol] = []

        def keep(last: clingo.Model) -> None:  # the last model is the optimal one
            truth.update((literal, last.is_true(literal)) for literal in literals)
            if everything is not None:
                model[:] = last.symbols(atoms=True)

        with WATCHDOG.watching(self.ctl, self.deadline):
            result = self.ctl.solve(on_model=keep)
        if result.interrupted or time.monotonic() >= self.deadline:
            raise timeout(self.limits)
        if result.satisfiable:
            found.update((k, True) for k in ks)
            if everything is not None:
                everything.update(self._atoms(model, ks))
        elif len(ks) == 1:
            found[ks[0]] = False
        else:
            half = len(ks) // 2
            self._settle(ks[:half], truth, everything, found)
            self._settle(ks[half:], truth, everything, found)

    def _atoms(self, model: list[clingo.Symbol], ks: list[int]) -> dict[int, tuple[clingo.Symbol, ...]]:
        """Each question's atoms of the model, as `solve` has them: the scene's, and its own
        without its number (the others' facts are in the model too, and every ``active``)."""
        indexed = self.shared.shared.indexed
        scene: list[clingo.Symbol] = []
        own: dict[int, list[clingo.Symbol]] = {k: [] for k in ks}
        for atom in model:
            if atom.name in indexed and atom.arguments:
                if (mine := own.get(atom.arguments[0].number)) is not None:
                    mine.append(clingo.Function(atom.name, atom.arguments[1:]))
            elif atom.name not in (theory.TALLY, "active"):
                scene.append(atom)
        return {k: tuple(scene + atoms) for k, atoms in own.items()}

    def close(self) -> None:
        for external in self.externals:
            self.ctl.release_external(external)
