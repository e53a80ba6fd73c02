"""The man and the woman: a question that says "the man" presupposes there is one.

"What is the man holding?" is not asking whether there is a man (GQA's `select` under
`unique`, not under `exist`), and a man is a person, which the detector sees while no perceiver
tells a man from a woman.  So where a program's `select` of a class the perceiver cannot see
flows into a `unique` (`presupposed`), and the nearest class above it that the perceiver names
(`qlang.vision.kinds.coarse`: man -> person) was seen, the object meant is taken to be one of
those seen (`Presumption`): each way of taking it is a reading (`readings`), the scene's facts
and one more, ``has_attr(O, class, man)``.  The answer stands only where every reading gives
the same best answer (`whichever`): with one person seen, "the man" is that person; with two, the
answer must not depend on which one the question meant.  "Is there a man?" presupposes
nothing and stays "cannot tell" (a person seen may be a woman).

Plain `ask` (`qlang.pipeline`), the seek experiment's fixed pipeline and seek's `solve` tool
take the readings alike, and their refusal step (`qlang.vision.withhold`) no longer counts a
presumed class among the words a "no" cannot rest on.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from qlang.asp.outcome import Answer
from qlang.asp.scene import object_symbol
from qlang.asp_names import to_term
from qlang.ir import Node
from qlang.ontology import load
from qlang.signatures import Kind, Type
from qlang.vision.margins import likelihood
from qlang.vision.sight import Sight

R = TypeVar("R")
#: The most readings solved: more objects than this that the question may mean is no answer.
READINGS = 6


@dataclass(frozen=True)
class Presumption:
    """A presupposed class the perceiver cannot see (`man`), the seen class above it (`person`)
    and the ids of the objects seen of that class, one of which the question means."""

    cls: str
    above: str
    ids: tuple[str, ...]

    def __str__(self) -> str:
        if len(self.ids) == 1:
            return f"the {self.cls} is taken to be the {self.above} seen"
        return f"the {self.cls} is taken to be any of the {len(self.ids)} {self.above}s seen"


def presupposed(root: Node) -> frozenset[str]:
    """The classes of the program's `select` steps whose objects flow into a `unique` through
    steps from objects to objects only (`relate`, `filter`): "the man" in "What is the man
    holding?".  A select that also reaches `exist` or another step asking about the objects
    themselves ("Is there a man?") is left out.

    >>> from qlang import parse
    >>> sorted(presupposed(parse("query(unique(relate_any(select(scene(), man), holding, object)), name)")))
    ['man']
    >>> sorted(presupposed(parse("exist(select(scene(), man))")))
    []
    """
    verdicts: dict[str, bool] = {}
    todo, seen = [(root, False)], set()
    while todo:  # each step once each way it is reached: a program's steps may be shared
        node, into_unique = todo.pop()
        if (id(node), into_unique) in seen:
            continue
        seen.add((id(node), into_unique))
        if node.op == "select":
            cls = node.literals[0]
            verdicts[cls] = verdicts.get(cls, True) and into_unique
        flows = node.signature is not None and node.signature.result is Type.OBJECTS
        todo.extend((operand, node.op == "unique" or (into_unique and flows)) for operand in node.operands)
    return frozenset(cls for cls, presumed in verdicts.items() if presumed)


def presume(sight: Sight, root: Node, graph: Mapping[str, Any] | None,
            above: Callable[[str], str | None]) -> list[Presumption]:
    """The program's presupposed classes the perceiver cannot see, each with the nearest class
    `above` it that the perceiver names, and the objects of the scene `graph` of that class
    (none seen: no presumption)."""
    if graph is None:
        return []
    ontology = load()
    found = []
    for cls in sorted(presupposed(root)):
        coarse = None if sight.sees(Kind.CLASS, cls) else above(cls)
        if coarse is None:
            continue
        ids = tuple(oid for oid, obj in graph.get("objects", {}).items()
                    if coarse in (obj["name"], *obj.get("classes", ()), *ontology.ancestors(obj["name"])))
        if ids:
            found.append(Presumption(cls, coarse, ids))
    return found


def readings(presumptions: Sequence[Presumption]) -> list[str]:
    """The facts of each way of taking the objects meant: one object for each presumption
    (no presumption: one reading, adding nothing)."""
    return ["\n".join(f"has_attr({object_symbol(oid)}, class, {to_term(p.cls)})."
                      for p, oid in zip(presumptions, chosen, strict=True))
            for chosen in itertools.product(*(p.ids for p in presumptions))]


def whichever(presumptions: Sequence[Presumption], solve: Callable[[str], R],
              answers: Callable[[R], Sequence[Answer]], base: int) -> R | str:
    """What `solve` gives under the reading whose best answer is least likely (`base`: the
    likeliest scene's cost), where every reading gives the same best answer; else why there is
    no answer (too many readings, or readings that disagree)."""
    meant = " or ".join(f"the {p.cls}" for p in presumptions)
    count = math.prod(len(p.ids) for p in presumptions)
    if count > READINGS:  # counted, not listed: they multiply
        return f"{count} ways to take {meant} among the objects seen"
    taken = readings(presumptions)
    if len(taken) == 1:
        return solve(taken[0])
    solved = [solve(facts) for facts in taken]
    if any(not answers(s) for s in solved) or len({answers(s)[0].value for s in solved}) > 1:
        return f"the answer depends on which object seen is {meant}"
    return min(solved, key=lambda s: likelihood(answers(s), base))
