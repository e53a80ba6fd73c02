"""GQA's own operation list run directly, as the seed thesis's oracle did (§4.1).

No conversion to the IR: the steps run in order, each over its dependencies' values by index,
with the thesis semantics of `interpreter`, whose per-operation methods do the work.  Where an
operation needs one object (``verify``, ``choose``, ``query``, ``common``), its dependency's
object is chosen once, at its first such consumer, and shared by the later ones, as the IR's
shared `unique` node is; so both ways give the same answers where GQA's program converts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from qlang.errors import ParseError, error
from qlang.interpret.failures import InterpretError
from qlang.interpret.interpreter import OPERATIONS, Outcome, Run, sanitize
from qlang.interpret.membership import Membership
from qlang.interpret.scene import Scene
from qlang.ir import op
from qlang.syntax.gqa import SCENE, GqaStep, StepCall, read_step

#: A value's key: ("step", i) for step i's value, ("one", i) for the object chosen from it.
Key = tuple[str, int]
Values = dict[Key, Any]
_Action = tuple[Key, Callable[[Values], Sequence[Any]]]
#: The node argument the interpreter's methods take and ignore.
_NODE = op("scene")


def evaluate_steps(steps: Sequence[GqaStep], scene: Scene, knowledge: Membership | None = None) -> Outcome:
    """Every answer GQA's steps can give over the scene, under the thesis semantics."""
    run = Run(scene, knowledge or Membership(), thesis=True)
    plan = _plan(run, steps)
    answers = frozenset(sanitize(a) for a in _branches(run, plan, 0, {}))
    return Outcome(answers, tuple(run.failures))


def _branches(run: Run, plan: list[_Action], index: int, values: Values) -> Iterator[Any]:
    """The last step's value for each choice made from `plan[index]` on (`Run.branches`)."""
    if index == len(plan):
        yield values[plan[-1][0]]
        return
    key, action = plan[index]
    try:
        options = action(values)
    except InterpretError as failure:
        run.failures.append(failure)
        return
    for option in options:
        values[key] = option
        yield from _branches(run, plan, index + 1, values)


def _plan(run: Run, steps: Sequence[GqaStep]) -> list[_Action]:
    """Each step's action after the choices of one object it is the first to need."""
    plan: list[_Action] = []
    chosen: set[int] = set()
    for index, step in enumerate(steps):
        if any(d < 0 or d >= index for d in step.dependencies):
            raise error(ParseError, "reference", f"step {index} ({step.operation}) depends on a "
                        f"step that does not come before it: {list(step.dependencies)}", step.span)
        call = read_step(step, index)
        for d in dict.fromkeys(step.dependencies[o.dependency] for o in call.operands if o.one):
            if d not in chosen:
                chosen.add(d)
                plan.append((("one", d), _one(run, d, steps[d].operation)))
        plan.append((("step", index), _action(run, step, call)))
    return plan


def _one(run: Run, dependency: int, source: str) -> Callable[[Values], Sequence[Any]]:
    """Each object of the dependency's value in turn; none fails as its operation explains."""
    return lambda v: run.one(v[("step", dependency)], source)


def _action(run: Run, step: GqaStep, call: StepCall) -> Callable[[Values], Sequence[Any]]:
    """What one step computes from the values before it: the interpreter's method of the IR
    operation the step stands for (`qlang.syntax.gqa.read_step`), run on the values of its
    dependencies; where the IR has no such operation (``verify rel`` of any class), GQA's step
    runs all the same."""
    method, literals, negated = OPERATIONS[call.operation], call.literals, call.negated
    everything = tuple(run.scene.objects)
    keys = [None if o == SCENE else ("one" if o.one else "step", step.dependencies[o.dependency])
            for o in call.operands]

    def act(values: Values) -> Sequence[Any]:
        args = [everything if key is None else values[key] for key in keys]
        found = method(run, _NODE, *args, *literals)
        return run.negate(_NODE, found[0], args[0]) if negated else found
    return act
