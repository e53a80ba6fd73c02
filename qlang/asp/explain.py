"""Why an answer: each step of the question, the objects it kept, and the scene facts behind it.

Read from the optimal model that gives the answer, so the trace is what the solver actually
chose (which object `unique` picked, which uncertain facts it took to hold).  A step's
supporting facts are the model's `has_attr`/`has_rel` atoms that mention one of the step's
objects and one of its literal words: enough to see why `filter(color, brown)` kept an object.
"""

from __future__ import annotations

from dataclasses import dataclass

import clingo

from qlang.asp.question import Question
from qlang.asp.solve import DEFAULT_LIMITS, Answer, Limits, Session
from qlang.asp_names import from_term, to_symbol
from qlang.signatures import SIGNATURES

_VALUES = ("bool", "attr_value", "attr", "rel")


@dataclass(frozen=True, slots=True)
class Step:
    step: int
    op: str
    operands: tuple[int, ...]
    literals: tuple[str, ...]
    #: the objects the step kept (state(T, O)); empty for a step that yields a value
    objects: tuple[str, ...]
    #: the value a Bool or Value step yields
    value: str | None
    facts: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"step": self.step, "op": self.op, "operands": list(self.operands),
                "literals": list(self.literals), "objects": list(self.objects), "value": self.value,
                "facts": list(self.facts)}


@dataclass(frozen=True, slots=True)
class Explanation:
    answer: Answer
    steps: tuple[Step, ...]
    #: object -> its name, to show objects readably
    names: dict[str, str]

    def to_json(self) -> dict[str, object]:
        return {**self.answer.to_json(), "steps": [s.to_json() for s in self.steps],
                "names": self.names}

    def render(self) -> str:
        lines = [f"answer: {self.answer.value}" + (f"  (cost {list(self.answer.cost)})"
                                                     if any(self.answer.cost) else "")]
        for s in self.steps:
            args = ", ".join([*(f"#{o}" for o in s.operands), *s.literals])
            kept = ", ".join(f"{o} ({self.names[o]})" if o in self.names else o for o in s.objects)
            result = s.value if s.value is not None else f"{{{kept}}}"
            lines.append(f"  #{s.step} {s.op}({args}) -> {result}")
            lines += [f"      {fact}" for fact in s.facts]
        return "\n".join(lines)


def explain(question: Question, scene: str, *, answer: str | None = None,
            limits: Limits = DEFAULT_LIMITS, semantics: str = "qlang") -> Explanation | None:
    """The trace of `answer` (the best one if None) under the theory's `semantics`; None if the
    question has no such answer."""
    session = Session(question, scene, limits, semantics)
    assumptions = []
    if answer is not None:  # its symbol built as a question's words are, not parsed
        assumptions.append((clingo.Function("ans", [to_symbol(answer)]), True))
    found = session.optimum(assumptions, atoms=True)
    if found is None:
        return None
    return trace(Answer(found.answer, found.cost), found.atoms)


def trace(answer: Answer, atoms: tuple[clingo.Symbol, ...]) -> Explanation:
    """The explanation a model's atoms give."""
    kept: dict[int, list[str]] = {}
    values: dict[int, str] = {}
    scene: list[clingo.Symbol] = []
    names: dict[str, str] = {}
    for atom in atoms:
        args = atom.arguments
        if atom.name == "state" and len(args) == 2:
            kept.setdefault(args[0].number, []).append(str(args[1]))
        elif atom.name in _VALUES and len(args) == 2:
            values[args[0].number] = from_term(str(args[1]))
        elif atom.name in ("has_attr", "has_rel") and len(args) == 3:
            scene.append(atom)
            if atom.name == "has_attr" and args[1].name == "name":
                names[str(args[0])] = from_term(str(args[2]))
    steps = []
    for atom in sorted((a for a in atoms if _is_step(a)), key=lambda a: a.arguments[0].number):
        step, *args = atom.arguments
        width = len(SIGNATURES[atom.name].operands)
        operands = tuple(a.number for a in args[:width])
        focus = set(kept.get(step.number) or [o for t in operands for o in kept.get(t, [])])
        words = {str(a) for a in args[width:]}
        facts = tuple(str(f) for f in scene if _supports(f, focus, words))
        steps.append(Step(step.number, atom.name, operands,
                          tuple(from_term(str(a)) for a in args[width:]),
                          tuple(sorted(kept.get(step.number, []))), values.get(step.number), facts))
    return Explanation(answer, tuple(steps), names)


def _supports(fact: clingo.Symbol, objects: set[str], words: set[str]) -> bool:
    """Whether a scene fact is about one of the objects and names one of the words."""
    args = [str(a) for a in fact.arguments]
    about = args[0] in objects or (fact.name == "has_rel" and args[2] in objects)
    return about and bool(words.intersection(args[1:]))


def _is_step(atom: clingo.Symbol) -> bool:
    sig = SIGNATURES.get(atom.name)
    return sig is not None and len(atom.arguments) == sig.arity + 1 \
        and atom.arguments[0].type is clingo.SymbolType.Number
