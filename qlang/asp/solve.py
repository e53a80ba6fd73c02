"""Answering a lowered question over a scene with clingo: ranked answers, or a reason why not.

A question is the lowered program's facts (`qlang.asp.question`), made clingo symbols once.

One `clingo.Control` per question (`solve`), with only the theory's rules for the question's
operations; or one per scene (`Scene`), grounded once, with each question grounded on top of
it and switched off after (clingo multi-shot), so nothing leaks from one question into the
next either way.  A `Background` (knowledge bases, a rules file) adds the rules' statements and
the knowledge facts the rules and the question read.  Before grounding, the guard estimates from
the sizes of the scene, the rules and the question what the theory would ground to, and refuses
blow-ups before they take the machine's memory (clingo cannot interrupt grounding).  Solving
runs asynchronously against a deadline that covers the whole question.  The top k answers come
from k optimisations, each assuming the answers found so far false, so they are distinct and in
cost order."""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

import clingo

from qlang.asp import program
from qlang.asp.background import LIMIT, NOTHING, Background, Lazy, Words
from qlang.asp.facts import INT_RANGE
from qlang.asp.guard import estimate, rules_estimate
from qlang.asp.messages import located
from qlang.asp.program import SEMANTICS, theory
from qlang.asp.question import Question
from qlang.asp_names import from_term, to_symbol, to_term
from qlang.errors import QlangError, error
from qlang.rules.statements import add
from qlang.signatures import SIGNATURES

__all__ = ["DEFAULT_LIMITS", "SEMANTICS", "Answer", "Limits", "Result", "Scene", "Session",
           "SolveError", "solve", "theory"]


class SolveError(QlangError):
    """No answer could be computed: a timeout, the grounding guard, or input clingo cannot take."""


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
    #: 1 + the number of models (distinct answers) found that cost less: tied ones share a rank
    rank: int = 1

    def to_json(self) -> dict[str, object]:
        return {"answer": self.value, "cost": list(self.cost), "rank": self.rank}


@dataclass(frozen=True, slots=True)
class Result:
    """The answers, best first; none means the question has no answer in the scene."""

    answers: tuple[Answer, ...]
    #: False when the deadline cut the search for answers after the first short
    complete: bool = True
    #: every atom of the best model, where they were asked for (the steps' bindings are there)
    atoms: tuple[clingo.Symbol, ...] = field(default=(), repr=False)


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
    """One question grounded over one scene, ready to be solved under a deadline.

    Only the theory's rules for the question's operations go in (`qlang.asp.program.program`):
    the others would ground to nothing, and preparing them costs more than the rest."""

    #: the external that holds the question's rules, where several questions share a Control
    active: int | None = None

    def __init__(self, question: Question, scene: str, limits: Limits = DEFAULT_LIMITS,
                 semantics: str = "qlang", background: Background | None = None) -> None:
        self.deadline = time.monotonic() + limits.timeout
        self.limits = limits
        self.messages: list[str] = []
        self.ctl = clingo.Control(["--opt-mode=opt"], logger=self._log, message_limit=5)
        background = background or NOTHING
        sizes = _sizes(scene)
        _guard(sizes, question, limits, _rules_size(scene, sizes, background))
        atoms = _symbols(question)
        self._add("scene", scene)
        self._add("theory", program.program({f.name for f in question}, scene, semantics))
        if statements := background.statements():
            add(self.ctl, statements)
        words = cache(lambda: background.words(scene))
        atoms += [*background.rule_facts(words), *background.question_facts(question, words, semantics)]
        with self.ctl.backend() as backend:  # the question's facts go straight in
            for atom in atoms:
                backend.add_rule([backend.add_atom(atom)])
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
            everything = self._atoms(model) if atoms else ()
            best[:] = [Found(tuple(model.symbols(shown=True)), self._cost(model), everything)]

        result = self._search(keep, assumptions)
        if result.unsatisfiable or not best:
            return None
        return best[0]

    def best_models(self, k: int, *, atoms: bool = False) -> tuple[list[Found], bool]:
        """Up to k models, cheapest first: all optimal models (a tier), then, once they are
        excluded, the next tier, and so on; False when the deadline cut a later tier short.
        With `atoms`, the first (an optimal model) has all its atoms."""
        self.ctl.configuration.solve.opt_mode = "optN"  # type: ignore[union-attr]
        self.ctl.configuration.solve.models = 0  # type: ignore[union-attr]
        # what tells one model from another, needed only to exclude a tier before the next
        open_atoms = self._open_atoms() if k > 1 else []
        guard = [] if self.active is None else [self.active]
        found: list[Found] = []
        tier: list[tuple[Found, list[int]]] = []

        def keep(model: clingo.Model) -> bool:
            if model.cost and not model.optimality_proven:
                return True  # still converging on this tier's cost
            assignment = [a if model.is_true(a) else -a for a in open_atoms]
            everything = self._atoms(model) if atoms and not found and not tier else ()
            tier.append((Found(tuple(model.symbols(shown=True)), self._cost(model), everything),
                         assignment))
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
            if len(found) >= k:
                break
            with self.ctl.backend() as backend:  # exclude this tier's models from the next one
                for _, assignment in tier:
                    backend.add_rule([], guard + assignment)
        return found, True

    def answer_atom(self, shown: clingo.Symbol) -> clingo.Symbol:
        """The atom behind a shown answer, to assume it false."""
        return shown

    def _open_atoms(self) -> list[int]:
        return [a.literal for a in self.ctl.symbolic_atoms if not a.is_fact]

    def _atoms(self, model: clingo.Model) -> tuple[clingo.Symbol, ...]:
        """Every atom of a model, as the theory writes them."""
        return tuple(model.symbols(atoms=True))

    def _cost(self, model: clingo.Model) -> tuple[int, ...]:
        return tuple(model.cost)

    def _search(self, on_model: Callable[[clingo.Model], bool | None],
                assumptions: list[tuple[clingo.Symbol, bool]]) -> clingo.SolveResult:
        with _WATCHDOG.watching(self.ctl, self.deadline):
            result = self.ctl.solve(assumptions=assumptions, on_model=on_model)
        # a search that ended at its deadline is cut short too: the watcher may have interrupted
        # just after it, and that interrupt waits on the Control for its next search (which a
        # cut-short question's Control never has)
        if result.interrupted or time.monotonic() >= self.deadline:
            raise self._timeout()
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
        """What clingo says is wrong with the scene (or the theory), its line and column in the
        message: the span would point into the program's source, which neither is."""
        message, span = located(self.messages[0] if self.messages else "clingo rejected it")
        if span is not None:
            message = f"line {span.line}, column {span.column}: {message}"
        return error(SolveError, "asp", f"invalid ASP in the {part}: {message}")  # type: ignore[return-value]


class Scene:
    """Many questions over one scene, each answered as `solve` answers it alone, but with the
    scene grounded once: clingo multi-shot (`qlang.asp.program.Shared`).  A question number k
    grounds the theory's parts for its operations with k, solves with ``active(k)`` true, then
    releases it, so nothing of it reaches the next question.  A fact of no operation the theory
    defines, a scene clingo rejects, and the thesis's semantics (whose questions write scene
    atoms) are solved alone, by `solve`, with the same results and errors.

    >>> from qlang.asp.question import read
    >>> scene = Scene("object(1). has_attr(1, class, dog).")
    >>> [scene.solve(read(f"scene(0). select(1, 0, {c}). exist(2, 1). end(2).")).answers[0].value
    ...  for c in ("cat", "dog")]
    ['no', 'yes']
    """

    #: Questions one Control takes before a fresh one: clingo's symbol table only grows, and
    #: every question grounds and solves a little slower than the last (on the emma questions,
    #: batches of 25-50 a Control answer 20 % more questions/s than batches of 200).
    RENEW = 50

    def __init__(self, scene: str, limits: Limits = DEFAULT_LIMITS, semantics: str = "qlang",
                 background: Background | None = None) -> None:
        self.scene = scene
        self.limits = limits
        self.semantics = semantics
        self.background = background or NOTHING
        self.shared = program.shared(semantics)
        self._sizes = _sizes(scene)
        self._rules_size = _rules_size(scene, self._sizes, background)
        self._ctl: _Shared | None = None
        self._broken = self.shared is None
        self._words: Words | None = None

    def solve(self, question: Question, *, top_k: int = 1, distinct: bool = False,
              atoms: bool = False) -> Result:
        """The answers `solve(question, scene, ...)` gives, from the shared grounding."""
        deadline = time.monotonic() + self.limits.timeout
        background = self.background
        _guard(self._sizes, question, self.limits, self._rules_size)
        if not self._broken and (self._ctl is None or self._ctl.asked >= self.RENEW):
            try:
                assert self.shared is not None
                self._ctl = _Shared(self.scene, self.shared, background, self.words)
            except RuntimeError:  # let `solve` say what is wrong with the scene, every time
                self._broken, self._ctl = True, None
        asked = None
        if self._ctl is not None:
            known = background.question_facts(question, self.words, self.semantics)
            try:
                asked = self._ctl.ask(question, known, deadline, self.limits)
            except RuntimeError:
                self._ctl = None  # clingo refused the question: start afresh next time
        if asked is None:
            return solve(question, self.scene, top_k=top_k, distinct=distinct, limits=self.limits,
                         semantics=self.semantics, background=background, atoms=atoms)
        try:
            result = _answers(asked, top_k, distinct, atoms)
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
    """One Control with the scene grounded, and the theory's question parts added, once."""

    def __init__(self, scene: str, shared: program.Shared, background: Background | None = None,
                 words: Lazy | None = None) -> None:
        """With the background's rules, and the knowledge they read, beside the scene."""
        self.messages: list[str] = []
        self.ctl = clingo.Control(["--opt-mode=opt"], logger=self._log, message_limit=5)
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

    def ask(self, question: Question, known: list[clingo.Symbol], deadline: float, limits: Limits
            ) -> _Asked | None:
        """The question grounded on top of the scene, with the knowledge facts it reads; None if
        a fact is of no operation the theory defines."""
        if any((f.name, len(f.args)) not in self.shared.facts for f in question):
            return None
        facts = [*_symbols(question), *known]
        k = self.asked = self.asked + 1
        self.levels = {}
        number = clingo.Number(k)
        operations = {f.name for f in question}
        for name, needs, text in self.shared.parts:  # added when first needed: clingo prepares
            if needs <= operations and name not in self.added:  # every part at each grounding
                self.ctl.add(name, ["k"], text)
                self.added.add(name)
        with self.ctl.backend() as backend:  # the facts go straight in: grounding them as
            for f in facts:  # parameters of program parts costs a part each (~0.1 ms)
                arguments = [number, *f.arguments] if f.name in self.shared.indexed else f.arguments
                backend.add_rule([backend.add_atom(clingo.Function(f.name, arguments))])
        self.ctl.ground([(name, [number]) for name, needs, _ in self.shared.parts if needs <= operations])
        return _Asked(self, k, deadline, limits)

    def minimize(self, priority: int, literals: list[tuple[int, int]]) -> None:
        """clingo's observer: the weak constraints grounded in this step."""
        self.levels.setdefault(priority, []).extend(literals)

    def _log(self, code: clingo.MessageCode, message: str) -> None:
        if code not in (clingo.MessageCode.AtomUndefined, clingo.MessageCode.GlobalVariable):
            self.messages.append(message.strip())


class _Asked(Session):
    """One question of a `Scene`, grounded on the shared Control, solved like a `Session`."""

    def __init__(self, shared: _Shared, k: int, deadline: float, limits: Limits) -> None:
        self.shared = shared
        self.ctl = shared.ctl
        self.k = k
        self.deadline = deadline
        self.limits = limits
        self.messages = shared.messages
        external = clingo.Function("active", [clingo.Number(k)])
        self.external = external
        self.active = self.ctl.symbolic_atoms[external].literal  # type: ignore[union-attr]
        self.ctl.assign_external(external, True)
        self.ctl.configuration.solve.opt_mode = "opt"  # type: ignore[union-attr]
        self.ctl.configuration.solve.models = shared.models  # type: ignore[union-attr]
        # Weak constraints of this question and of the scene: a level another question left
        # behind (all its atoms false now) must not show in this question's cost.
        levels: dict[int, list[tuple[int, int]]] = {}
        for source in (shared.base_levels, shared.levels):
            for priority, literals in source.items():
                levels.setdefault(priority, []).extend(literals)
        self.levels = sorted(levels.items(), reverse=True)
        if time.monotonic() > deadline:
            self.close()
            raise self._timeout()

    def close(self) -> None:
        self.ctl.release_external(self.external)

    def answer_atom(self, shown: clingo.Symbol) -> clingo.Symbol:
        return clingo.Function(shown.name, [clingo.Number(self.k), *shown.arguments])

    def _open_atoms(self) -> list[int]:
        """The scene's open atoms and this question's (the earlier questions' are all false)."""
        base, names, k = self.shared.base_open, self.shared.shared.indexed, clingo.Number(self.k)
        return [a.literal for a in self.ctl.symbolic_atoms if not a.is_fact and (
            a.literal in base or (a.symbol.name in names and a.symbol.arguments[0] == k))]

    def _cost(self, model: clingo.Model) -> tuple[int, ...]:
        return tuple(sum(weight for literal, weight in literals if model.is_true(literal))
                     for _, literals in self.levels)

    def _atoms(self, model: clingo.Model) -> tuple[clingo.Symbol, ...]:
        """The model's atoms, this question's without its number (the others' are all false)."""
        names, k = self.shared.shared.indexed, clingo.Number(self.k)
        return tuple(clingo.Function(a.name, a.arguments[1:])
                     if a.name in names and a.arguments and a.arguments[0] == k else a
                     for a in model.symbols(atoms=True))


class _Watchdog:
    """One thread per process that interrupts clingo's search at its deadline.  Searching in
    the calling thread, watched from this one, costs less than clingo's asynchronous solving,
    which starts a thread per call.  The thread wakes at the deadline armed, or once a second:
    arming wakes it only for a deadline before that, so that back-to-back questions do not
    pay a thread switch each."""

    #: seconds the thread sleeps when nothing closer is armed
    IDLE = 1.0

    def __init__(self) -> None:
        self._start()
        # a forked worker starts afresh: its copy of the lock may have been held by the thread
        os.register_at_fork(after_in_child=self._start)

    def _start(self) -> None:
        self._changed = threading.Condition()
        self._armed: tuple[clingo.Control, float] | None = None
        self._wake = 0.0
        self._thread: threading.Thread | None = None

    @contextmanager
    def watching(self, ctl: clingo.Control, deadline: float) -> Iterator[None]:
        """Interrupt `ctl` if the block is still running at `deadline` (monotonic seconds)."""
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="qlang-deadline", daemon=True)
                self._thread.start()
            self._armed = (ctl, deadline)
            if deadline < self._wake:
                self._changed.notify()
        try:
            yield
        finally:
            with self._changed:
                self._armed = None

    def _watch(self) -> None:
        with self._changed:
            while True:
                now = time.monotonic()
                if self._armed is not None and self._armed[1] <= now:
                    self._armed[0].interrupt()  # if the search has just ended: see Session._search
                    self._armed = None
                self._wake = min(self._armed[1], now + self.IDLE) if self._armed else now + self.IDLE
                self._changed.wait(self._wake - now)


_WATCHDOG = _Watchdog()


def _guard(scene: dict[str, int], question: Question, limits: Limits, rules: int = 0) -> None:
    """The grounding guard: refuse a question whose grounding would be too large (with the
    `rules`' own grounding, whose facts the theory reads too)."""
    steps = Counter(f.name for f in question if f.name in SIGNATURES)
    size = rules + estimate({**scene, "has_attr": scene["has_attr"] + rules} if rules else scene, steps)
    if size > limits.max_ground:
        raise error(SolveError, "grounding",
                    f"the question would ground to about {size:,} rules, above the guard of "
                    f"{limits.max_ground:,}", hint="a smaller scene, or a larger --max-ground")


def _rules_size(scene: str, sizes: dict[str, int], background: Background | None) -> int:
    """The rules' estimated grounding over a scene (`qlang.asp.guard.rules_estimate`): a word's
    facts counted, generously, as its spelling's occurrences in the scene's text."""
    if background is None or background.rules is None:
        return 0
    return rules_estimate(sizes, background.rules, lambda word: scene.count(to_term(word)),
                          LIMIT if background.known else 0)


def _sizes(scene: str) -> dict[str, int]:
    """How often each predicate the guard weighs is written in a scene's text: a fast, generous
    stand-in for its atoms (``xobject(`` counts as ``object(``: a few too many only make the guard
    stricter)."""
    return {name: scene.count(name + "(") for name in ("object", "has_attr", "has_rel")}


def _symbols(question: Question) -> list[clingo.Symbol]:
    """The question's facts as clingo symbols, built directly: step numbers as numbers (one
    beyond clingo's 32 bits is an error, never wrapped), words as `to_term` spells them."""
    return [clingo.Function(f.name, [_argument(a) for a in f.args]) for f in question]


def _argument(value: int | str) -> clingo.Symbol:
    if isinstance(value, str):
        return to_symbol(value)
    if value not in INT_RANGE:
        raise error(SolveError, "input", f"the question's integer {value} is beyond clingo's 32 bits")
    return clingo.Number(value)


def solve(question: Question, scene: str, *, top_k: int = 1, distinct: bool = False,
          limits: Limits = DEFAULT_LIMITS, semantics: str = "qlang",
          background: Background | None = None, atoms: bool = False) -> Result:
    """The k best models of a lowered question over scene facts, cheapest first, as answers
    with their rank; with `distinct`, the k best distinct answers instead; `semantics` picks
    the theory's choice rules (`SEMANTICS`); `background`, the knowledge and rules besides the
    scene; with `atoms`, the best model's atoms too.

    >>> from qlang.asp.question import read
    >>> cat = read("scene(0). select(1, 0, cat). exist(2, 1). end(2).")
    >>> solve(cat, "object(1). has_attr(1, class, dog).")
    Result(answers=(Answer(value='no', cost=(), rank=1),), complete=True)
    """
    return _answers(Session(question, scene, limits, semantics, background), top_k, distinct, atoms)


def _answers(session: Session, top_k: int, distinct: bool, atoms: bool = False) -> Result:
    if not distinct:
        models, complete = session.best_models(top_k, atoms=atoms)
        rank: dict[tuple[int, ...], int] = {}
        for index, model in enumerate(models):
            rank.setdefault(model.cost, index + 1)
        return Result(tuple(Answer(m.answer, m.cost, rank[m.cost]) for m in models), complete,
                      models[0].atoms if models else ())
    answers: list[Answer] = []
    found: list[tuple[clingo.Symbol, bool]] = []
    best_atoms: tuple[clingo.Symbol, ...] = ()
    for _ in range(top_k):
        try:
            best = session.optimum(found, atoms=atoms and not answers)
        except SolveError:
            if not answers:
                raise
            return Result(tuple(answers), False, best_atoms)
        if best is None:
            break
        best_atoms = best_atoms or best.atoms
        tied = answers and answers[-1].cost == best.cost  # tied answers share a rank, as models do
        answers.append(Answer(best.answer, best.cost, answers[-1].rank if tied else len(answers) + 1))
        found += [(session.answer_atom(s), False) for s in best.shown if s.name == "ans"]
    return Result(tuple(answers), True, best_atoms)
