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

from qlang.errors import ParseError, UnsupportedOperation, error
from qlang.interpret.errors import InterpretError
from qlang.interpret.interpreter import Outcome, _Run, sanitize
from qlang.interpret.membership import Membership
from qlang.interpret.scene import Scene
from qlang.ir import op
from qlang.ontology import ANY_CATEGORY
from qlang.syntax.gqa import _NEGATED, _OBJECT_IDS, GqaStep, _Malformed, _options, _relation_parts

#: A value's key: ("step", i) for step i's value, ("one", i) for the object chosen from it.
Key = tuple[str, int]
Values = dict[Key, Any]
_Action = tuple[Key, Callable[[Values], Sequence[Any]]]
#: The node argument the interpreter's methods take and ignore.
_NODE = op("scene")
#: Operations that need one object of each dependency.
_ONE = ("verify", "choose", "query", "common")


def evaluate_steps(steps: Sequence[GqaStep], scene: Scene, knowledge: Membership | None = None) -> Outcome:
    """Every answer GQA's steps can give over the scene, under the thesis semantics."""
    run = _Run(scene, knowledge or Membership(), thesis=True)
    plan = _plan(run, steps)
    answers = frozenset(sanitize(a) for a in _branches(run, plan, 0, {}))
    return Outcome(answers, tuple(run.failures))


def _branches(run: _Run, plan: list[_Action], index: int, values: Values) -> Iterator[Any]:
    """The last step's value for each choice made from `plan[index]` on (`_Run.branches`)."""
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


def _plan(run: _Run, steps: Sequence[GqaStep]) -> list[_Action]:
    """Each step's action after the choices of one object it is the first to need."""
    plan: list[_Action] = []
    chosen: set[int] = set()
    for index, step in enumerate(steps):
        if any(d < 0 or d >= index for d in step.dependencies):
            raise error(ParseError, "reference", f"step {index} ({step.operation}) depends on a "
                        f"step that does not come before it: {list(step.dependencies)}", step.span)
        if step.operation.partition(" ")[0] in _ONE:
            for d in dict.fromkeys(step.dependencies):
                if d not in chosen:
                    chosen.add(d)
                    plan.append((("one", d), _one(run, d, steps[d].operation)))
        try:
            plan.append((("step", index), _action(run, step)))
        except _Malformed as exc:
            raise error(ParseError, "syntax", f"step {index} ({step.operation}): {exc}",
                        step.span) from None
    return plan


def _one(run: _Run, dependency: int, source: str) -> Callable[[Values], Sequence[Any]]:
    """Each object of the dependency's value in turn; none fails as its operation explains."""
    return lambda v: run.one(v[("step", dependency)], source)


def _action(run: _Run, step: GqaStep) -> Callable[[Values], Sequence[Any]]:
    """What one step computes from the values before it: GQA's operation, argument forms and
    all, mapped to the interpreter's methods."""
    head, _, category = step.operation.partition(" ")
    category, argument, deps = category.strip(), step.argument, step.dependencies
    objects = [("step", d) for d in deps]
    one = [("one", d) for d in deps]

    def need(count: int) -> None:
        if len(deps) != count:
            raise _Malformed(f"expects {count} dependencies, got {len(deps)}")

    if head == "select":
        need(0)
        name = _OBJECT_IDS.sub("", argument).strip()
        everything = tuple(run.scene.objects)
        if name == "scene":
            return lambda _: [everything]
        return lambda _: run.select(_NODE, everything, name)
    if head == "relate":
        need(1)
        cls, (rel,), direction = _relation_parts(argument, 1)
        if rel.startswith("same "):
            attribute = rel.removeprefix("same ").strip()
            return lambda v: run.relate_attr(_NODE, v[objects[0]], cls, attribute)
        return lambda v: run.relate(_NODE, v[objects[0]], cls, rel, direction)
    if head == "filter":
        need(1)
        negated = _NEGATED.match(argument)
        value = (negated.group(1) if negated else argument).strip()

        def kept(v: Values) -> list[tuple[str, ...]]:
            xs = v[objects[0]]
            found = (run.filter(_NODE, xs, category, value) if category
                     else run.filter_any(_NODE, xs, value))
            return run.negate(_NODE, found[0], xs) if negated else found
        return kept
    if head in ("verify", "choose") and category == "rel":
        need(1)
        cls, rels, direction = _relation_parts(argument, 1 if head == "verify" else 2)
        if head == "verify":
            return lambda v: run.verify_rel(_NODE, v[one[0]], cls, rels[0], direction)
        return lambda v: run.choose_rel(_NODE, v[one[0]], cls, rels[0], rels[1], direction)
    if head == "verify":
        need(1)
        return lambda v: run.verify_attr(_NODE, v[one[0]], category or ANY_CATEGORY, argument)
    if head == "choose" and len(deps) == 1:
        options = _options(argument)
        return lambda v: run.choose_attr(_NODE, v[one[0]], category or ANY_CATEGORY, *options)
    if head == "query":
        need(1)
        if not argument:
            raise _Malformed("query needs an attribute category")
        return lambda v: run.query(_NODE, v[one[0]], argument)
    if head == "exist":
        need(1)
        return lambda v: run.exist(_NODE, v[objects[0]])
    if head in ("and", "or"):
        need(2)
        method = run.and_ if head == "and" else run.or_
        return lambda v: method(_NODE, v[objects[0]], v[objects[1]])
    if head in ("same", "different"):
        attribute = category or argument
        attribute = "name" if attribute in ("", "type") else attribute
        if len(deps) == 1:
            alone = run.all_same if head == "same" else run.all_different
            return lambda v: alone(_NODE, v[objects[0]], attribute)
        need(2)
        pair = run.two_same if head == "same" else run.two_different
        return lambda v: pair(_NODE, v[objects[0]], v[objects[1]], attribute)
    if head == "common":
        need(2)
        return lambda v: run.common(_NODE, v[one[0]], v[one[1]])
    raise error(UnsupportedOperation, "unsupported", f"GQA operation {step.operation!r} has no "
                "interpretation", step.span)
