"""Why an answer: each step of the question, the objects it kept, and the scene facts behind it.

Read from the optimal model that gives the answer, so the trace is what the solver actually
chose (which object `unique` picked, which uncertain facts it took to hold).  A step's
supporting facts are the model's `has_attr`/`has_rel` atoms that mention one of the step's
objects and one of its literal words: enough to see why `filter(color, brown)` kept an object.
A fact a rules file derived, and the scene does not state, names the rules that derived it (the
``derived_attr``/``derived_rel`` atoms carry their numbers).  The objects each step kept are the
answer's bindings (`Explanation.bindings`, ``solve --bindings``).  A knowledge operation's
answer shows the knowledge paths behind it, edge by edge (``cup -used_for-> drinking``), which
the theory leaves as ``knowledge_path`` atoms; a text operation's, the documents it was quoted
from with the span marked (``... used for [[drinking]] ...``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import clingo

from qlang.asp import knowledge_facts, text_facts
from qlang.asp.background import NOTHING
from qlang.asp.options import DEFAULT_OPTIONS, SolveOptions
from qlang.asp.outcome import Answer
from qlang.asp.query import Query
from qlang.asp.session import ground
from qlang.asp_names import from_term, to_literal, to_symbol, to_term
from qlang.passes.lower import Fact
from qlang.rules.check import Rules
from qlang.rules.language import Different, Rule, Term, Var, show
from qlang.rules.statements import DERIVES
from qlang.signatures import END, SIGNATURES, Kind, Type
from qlang.text.documents import Documents

_VALUES = ("bool", "attr_value", "attr", "rel")


@dataclass(frozen=True, slots=True)
class Derivation:
    """A rule that derived a fact: its number (1 for the file's first), where it is, as written."""

    fact: str
    rule: int
    where: str
    text: str

    def to_json(self) -> dict[str, object]:
        return {"fact": self.fact, "rule": self.rule, "where": self.where, "text": self.text}

    def render(self) -> str:
        return f"derived by rule {self.rule} ({self.where}): {self.text}"


@dataclass(frozen=True, slots=True)
class ExplainedStep:
    step: int
    op: str
    operands: tuple[int, ...]
    literals: tuple[str, ...]
    #: the objects the step kept (state(T, O)); empty for a step that yields a value
    objects: tuple[str, ...]
    #: the value a Bool or Value step yields
    value: str | None
    facts: tuple[str, ...]
    #: the rules behind those of the facts a rules file derived
    derivations: tuple[Derivation, ...] = ()
    #: the knowledge paths behind a knowledge operation's answer (`qlang.asp.knowledge_facts.paths`)
    paths: tuple[str, ...] = ()
    #: the documents a text operation's answer was quoted from, the span marked
    #: (`qlang.asp.text_facts.quotes`)
    quotes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"step": self.step, "op": self.op, "operands": list(self.operands),
                "literals": list(self.literals), "objects": list(self.objects), "value": self.value,
                "facts": list(self.facts), "derivations": [d.to_json() for d in self.derivations],
                "paths": list(self.paths), "quotes": list(self.quotes)}

    def call(self) -> str:
        """The step as the explanation shows it: ``select(#0, shorts)``."""
        signature = SIGNATURES[self.op]
        words = [to_literal(w, Kind.TEXT) if signature.kind(len(self.operands) + i) is Kind.TEXT else w
                 for i, w in enumerate(self.literals)]  # free text quoted, as it was written
        return f"{self.op}({', '.join([*(f'#{o}' for o in self.operands), *words])})"


@dataclass(frozen=True, slots=True)
class Explanation:
    answer: Answer
    steps: tuple[ExplainedStep, ...]
    #: object -> its name, to show objects readably
    names: dict[str, str]

    def to_json(self) -> dict[str, object]:
        return {**self.answer.to_json(), "steps": [s.to_json() for s in self.steps],
                "names": self.names}

    def render(self) -> str:
        lines = [f"answer: {self.answer.value}" + (f"  (cost {list(self.answer.cost)})"
                                                     if any(self.answer.cost) else "")]
        return "\n".join(lines + _lines(self.steps, self.names))

    def bound(self) -> list[ExplainedStep]:
        """The steps that yield objects: the objects each kept are the answer's bindings."""
        return [s for s in self.steps if SIGNATURES[s.op].result in (Type.OBJECTS, Type.OBJECT)]

    def bindings(self) -> list[dict[str, object]]:
        """Every object each step bound, by id and name (NeuroQL's "all bindings"), as JSON."""
        return [{"step": s.step, "op": s.op, "operands": list(s.operands), "literals": list(s.literals),
                 "objects": [{"id": o, "name": self.names.get(o)} for o in s.objects]}
                for s in self.bound()]

    def render_bindings(self) -> str:
        """The bindings as text, a step a line: ``#1 select(#0, shorts) -> 2353891 (shorts)``."""
        return "\n".join(f"#{s.step} {s.call()} -> {self._objects(s) or '(none)'}" for s in self.bound())

    def _objects(self, step: ExplainedStep) -> str:
        return _objects(step, self.names)


@dataclass(frozen=True, slots=True)
class EmptyStep:
    """Why a question has no answer: the first step that keeps nothing (no object, or no value)
    whatever the scene's uncertain facts are taken to be, after the steps that feed it, with
    the objects each of those keeps."""

    step: ExplainedStep
    #: the steps it reads, directly or not, in order
    before: tuple[ExplainedStep, ...]
    names: dict[str, str]

    @property
    def what(self) -> str:
        """What the step failed to keep, in words."""
        return "kept no object" if SIGNATURES[self.step.op].result in _OBJECTS else "found no value"

    def message(self) -> str:
        return f"step #{self.step.step} {self.step.call()} {self.what}"

    def to_json(self) -> dict[str, object]:
        return {"step": self.step.step, "call": self.step.call(), "what": self.what,
                "steps": [s.to_json() for s in (*self.before, self.step)], "names": self.names}

    def render(self) -> str:
        return "\n".join([f"no answer: {self.message()}", *_lines((*self.before, self.step), self.names)])


_OBJECTS = (Type.OBJECTS, Type.OBJECT)


def _lines(steps: Sequence[ExplainedStep], names: dict[str, str]) -> list[str]:
    """The steps a line each, with the facts (and the rules and knowledge paths) behind them."""
    lines = []
    for s in steps:
        result = s.value if s.value is not None else f"{{{_objects(s, names)}}}" \
            if SIGNATURES[s.op].result in _OBJECTS else "(no value)"
        lines.append(f"  #{s.step} {s.call()} -> {result}")
        for fact in s.facts:
            lines.append(f"      {fact}")
            lines += [f"        {d.render()}" for d in s.derivations if d.fact == fact]
        lines += [f"      {path}" for path in s.paths]
        lines += [f"      quoted: {quote}" for quote in s.quotes]
    return lines


def _objects(step: ExplainedStep, names: dict[str, str]) -> str:
    return ", ".join(f"{o} ({names[o]})" if o in names else o for o in step.objects)


def explain(query: Query, scene: str, *, answer: str | None = None,
            options: SolveOptions = DEFAULT_OPTIONS) -> Explanation | None:
    """The trace of `answer` (the best one if None) under the `options`' semantics, limits,
    and background knowledge and rules; None if the question has no such answer."""
    session = ground(query, scene, options)
    assumptions = []
    if answer is not None:  # its symbol built as a question's words are, not parsed
        assumptions.append((clingo.Function("ans", [to_symbol(answer)]), True))
    found = session.optimum(assumptions, atoms=True)
    if found is None:
        return None
    background = options.background or NOTHING
    rules = background.rules
    reads = not text_facts.READING.isdisjoint(f.name for f in query)
    return trace(Answer(found.answer, found.cost), found.atoms, rules, _stated(scene) if rules else (),
                 background.texts.read(background.words(scene).shown) if reads else None)


def first_empty(query: Query, scene: str, options: SolveOptions = DEFAULT_OPTIONS) -> EmptyStep | None:
    """The first step, in the program's order, that keeps no object (or yields no value) in any
    model of the steps it reads: where a question with no answer comes to nothing.  Each step is
    tried alone with what feeds it: an objects step as `exist` of it answering "yes", a value
    step as the answer.  None when every step keeps something (the steps together keep
    nothing: an object no later step can agree on)."""
    steps = {int(f.args[0]): f for f in query if f.name != END}
    probe = max(steps, default=0) + 1
    traced: dict[int, Explanation] = {}
    for number, fact in steps.items():
        feeding = [steps[n] for n in sorted(_feeding(number, steps))]
        objects = SIGNATURES[fact.name].result in _OBJECTS
        asked = [*feeding, Fact("exist", (probe, number)), Fact(END, (probe,))] if objects \
            else [*feeding, Fact(END, (number,))]
        found = explain(asked, scene, answer="yes" if objects else None, options=options)
        if found is None:
            width = len(SIGNATURES[fact.name].operands)
            step = ExplainedStep(number, fact.name, tuple(int(a) for a in fact.args[1:1 + width]),
                        tuple(str(a) for a in fact.args[1 + width:]), (), None, ())
            before = {s.step: s for o in step.operands for s in traced[o].steps if s.step != probe}
            names = {k: v for o in step.operands for k, v in traced[o].names.items()}
            return EmptyStep(step, tuple(before[n] for n in sorted(before)), names)
        traced[number] = found
    return None


def _feeding(number: int, steps: dict[int, Fact]) -> set[int]:
    """The step and every step it reads, directly or not."""
    found, todo = set(), [number]
    while todo:
        step = todo.pop()
        if step not in found:
            found.add(step)
            fact = steps[step]
            todo += [int(a) for a in fact.args[1:1 + len(SIGNATURES[fact.name].operands)]]
    return found


def trace(answer: Answer, atoms: tuple[clingo.Symbol, ...], rules: Rules | None = None,
          stated: Collection[clingo.Symbol] = (), documents: Documents | None = None) -> Explanation:
    """The explanation a model's atoms give; the facts `rules` derived that are not `stated`
    by the scene name the rules behind them; a text operation's answer quotes `documents`."""
    kept: dict[int, list[str]] = {}
    values: dict[int, str] = {}
    scene = _SceneFacts()
    names: dict[str, str] = {}
    for atom in atoms:
        args = atom.arguments
        if atom.name == "state" and len(args) == 2:
            kept.setdefault(args[0].number, []).append(str(args[1]))
        elif atom.name in _VALUES and len(args) == 2:
            values[args[0].number] = from_term(str(args[1]))
        elif atom.name in ("has_attr", "has_rel") and len(args) == 3:
            scene.add(atom)
            if atom.name == "has_attr" and args[1].name == "name":
                names[str(args[0])] = from_term(str(args[2]))
    derived = _derivations(atoms, rules, stated) if rules is not None else {}
    behind = knowledge_facts.paths(atoms)
    quoted = text_facts.quotes(atoms, documents) if documents is not None else {}
    steps = []
    for atom in sorted((a for a in atoms if _is_step(a)), key=lambda a: a.arguments[0].number):
        step, *args = atom.arguments
        width = len(SIGNATURES[atom.name].operands)
        operands = tuple(a.number for a in args[:width])
        focus = set(kept.get(step.number) or [o for t in operands for o in kept.get(t, [])])
        words = {str(a) for a in args[width:]}
        supporting = scene.supporting(focus, words)
        steps.append(ExplainedStep(step.number, atom.name, operands,
                                   tuple(from_term(str(a)) for a in args[width:]),
                                   tuple(sorted(kept.get(step.number, []))), values.get(step.number),
                                   tuple(map(str, supporting)),
                                   tuple(d for f in supporting for d in derived.get(f, ())),
                                   tuple(behind.get(step.number, ())), tuple(quoted.get(step.number, ()))))
    return Explanation(answer, tuple(steps), names)


def _derivations(atoms: tuple[clingo.Symbol, ...], rules: Rules, stated: Collection[clingo.Symbol]
                 ) -> dict[clingo.Symbol, list[Derivation]]:
    """The rules behind each scene fact of the model that the rules derived and the scene does
    not state: ``derived_attr(N, O, A, V)`` is rule N's ``has_attr(O, A, V)``."""
    scene = {name: predicate for predicate, name in DERIVES.items()}
    found: dict[clingo.Symbol, list[Derivation]] = {}
    for atom in atoms:
        if atom.name in scene and len(atom.arguments) == 4:
            number, *args = atom.arguments
            fact = clingo.Function(f"has_{scene[atom.name]}", args)
            if fact not in stated:
                rule = rules.rules[number.number - 1]
                found.setdefault(fact, []).append(Derivation(
                    str(fact), number.number, f"{rules.source.name}:{rule.line}", _rule_text(rule)))
    return {fact: sorted(ds, key=lambda d: d.rule) for fact, ds in found.items()}


def _rule_text(rule: Rule) -> str:
    """A rule as a rules file writes it (``class(X, athlete) :- class(X, person), ....``)."""
    def term(t: Term) -> str:
        return t.name if isinstance(t, Var) else to_term(t.value)

    body = [f"{term(c.left)} != {term(c.right)}" if isinstance(c, Different)
            else ("not " if c.negated else "") + show(c.atom) for c in rule.body]
    return f"{show(rule.head)} :- {', '.join(body)}."


def _stated(scene: str) -> frozenset[clingo.Symbol]:
    """The scene facts the scene itself states (or may, where it is uncertain)."""
    ctl = clingo.Control(logger=lambda code, message: None)
    ctl.add("base", [], scene)
    ctl.ground([("base", [])])
    return frozenset(a.symbol for name in ("has_attr", "has_rel")
                     for a in ctl.symbolic_atoms.by_signature(name, 3))


class _SceneFacts:
    """A model's scene facts, each under the objects it is about, its other arguments as text:
    a step's supporting facts are looked up by its objects, not searched for among all (a
    program of 2,000 steps over a scene of hundreds of facts took seconds that way)."""

    def __init__(self) -> None:
        self.about: dict[str, list[tuple[int, clingo.Symbol, tuple[str, ...]]]] = {}
        self.count = 0

    def add(self, fact: clingo.Symbol) -> None:
        args = tuple(str(a) for a in fact.arguments)
        for about in {args[0], args[2]} if fact.name == "has_rel" else {args[0]}:
            self.about.setdefault(about, []).append((self.count, fact, args[1:]))
        self.count += 1

    def supporting(self, objects: set[str], words: set[str]) -> list[clingo.Symbol]:
        """The facts about one of the objects that name one of the words, in the model's order."""
        found = {index: fact for o in objects for index, fact, named in self.about.get(o, ())
                 if not words.isdisjoint(named)}
        return [found[index] for index in sorted(found)]


def _is_step(atom: clingo.Symbol) -> bool:
    sig = SIGNATURES.get(atom.name)
    return sig is not None and len(atom.arguments) == sig.arity + 1 \
        and atom.arguments[0].type is clingo.SymbolType.Number
