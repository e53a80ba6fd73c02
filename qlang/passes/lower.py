"""Lowering: the IR as ASP facts, one per distinct node, ending in ``end(root)``.

Steps are numbered in post-order, so equal subtrees become one step and every step comes after
the steps it reads.  Unfolded (`unfold=True`), every occurrence of a node is a step of its own,
as the seed thesis's nested-to-flat conversion wrote them: two equal ``unique`` steps then choose
apart.  Every word is spelled as `to_literal` spells it (`SPELLERS`), which only ever yields a
plain constant or a quoted string, so no program can inject ASP rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from qlang.asp_names import SPELLERS, to_term
from qlang.errors import UnsupportedOperation, error
from qlang.ir import Lit, Node, postorder
from qlang.signatures import END

#: The most steps an unfolded program may have (a DAG of shared steps doubles per level).
MAX_UNFOLDED = 10_000


class Fact(NamedTuple):
    """A step as a fact: its operation and arguments (step numbers and words)."""

    name: str
    args: tuple[int | str, ...]

    def __str__(self) -> str:
        return spelled(self.name, self.args)


def spelled(name: str, args: Sequence[int | str]) -> str:
    """A fact as ASP text: its step numbers as numbers, its words as `SPELLERS` spell them."""
    spell = SPELLERS.get(name)
    if spell is None:  # no free text: every word a term (all but a few operations)
        words = [str(a) if isinstance(a, int) else to_term(a) for a in args]
    else:  # a word's position after the step's own number
        words = [str(a) if isinstance(a, int) else spell[i - 1](a) if 0 < i <= len(spell) else to_term(a)
                 for i, a in enumerate(args)]
    return f"{name}({', '.join(words)})."


def text(root: Node) -> str:
    """The flat facts of a program as ASP text, a fact a line: what `str` makes of each of
    `facts`, without building them (every flat program printed goes through here)."""
    return "\n".join([spelled(name, args) for name, args in _steps(root)])


def facts(root: Node, *, unfold: bool = False) -> list[Fact]:
    """The flat facts of a program, without judging it (`qlang.api.lower` checks it first);
    `unfold`: a step per occurrence of a node (module docstring)."""
    if unfold:
        return _unfolded(root)
    return [_new(Fact, (name, tuple(args))) for name, args in _steps(root)]


def _steps(root: Node) -> list[tuple[str, list[int | str]]]:
    """Each distinct node in post-order as its operation and arguments (its own step number
    first, its operands' in their places), then ``end``."""
    order = postorder(root)
    step = {node: index for index, node in enumerate(order)}
    steps: list[tuple[str, list[int | str]]] = [
        (node.op, [index, *[a.value if isinstance(a, Lit) else step[a] for a in node.args]])
        for index, node in enumerate(order)]
    steps.append((END, [step[root]]))
    return steps


#: A fact built as the tuple it is, without the named tuple's Python-level constructor: every
#: compile and every question lowered builds one per step.
_new = tuple.__new__


def _unfolded(root: Node) -> list[Fact]:
    """A step per occurrence, in post-order (with a stack: programs nest up to `MAX_DEPTH`)."""
    if root.size > MAX_UNFOLDED:
        raise error(UnsupportedOperation, "unsupported", f"unfolded, the program would repeat "
                    f"shared results into {root.size:,} steps (at most {MAX_UNFOLDED:,})", root.span)
    result: list[Fact] = []
    finished: list[int] = []  # the steps of the operands read so far, innermost last
    todo: list[tuple[Node, bool]] = [(root, False)]
    while todo:
        node, ready = todo.pop()
        if not ready:
            todo += [(node, True), *((operand, False) for operand in reversed(node.operands))]
            continue
        count = len(node.operands)
        steps = iter(finished[len(finished) - count:])
        del finished[len(finished) - count:]
        args = tuple(a.value if isinstance(a, Lit) else next(steps) for a in node.args)
        result.append(Fact(node.op, (len(result), *args)))
        finished.append(len(result) - 1)
    result.append(Fact(END, (finished[-1],)))
    return result
