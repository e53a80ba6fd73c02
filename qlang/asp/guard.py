"""The grounding guard: how large a question's grounding will be, known before grounding it.

clingo cannot interrupt the grounder, so a question that would ground to hundreds of millions
of rules must be refused beforehand.  The estimate bounds each step's rule instances by the
joins its theory rules make: one pass over the scene's facts for most operations, a pass over
pairs of objects for those that compare objects with each other.  A rules file's rules ground
once per question, each at most once per value of its variables (`rules_estimate`).
"""

from __future__ import annotations

import math

from qlang.rules.check import Rules
from qlang.rules.model import PREDICATES, Literal, Sort, Var

#: Operations whose rules join two objects of the scene (see theory/qlang.lp).
PAIRWISE = frozenset({"relate_attr", "compare", "all_same", "all_different", "two_same",
                      "two_different", "common"})


def estimate(scene: dict[str, int], steps: dict[str, int]) -> int:
    """Rule instances for `steps` (op -> how many) over a scene of `object`/`has_attr`/`has_rel` counts.

    >>> estimate({"object": 3000, "has_attr": 3000, "has_rel": 0}, {"scene": 1, "all_different": 1})
    18012000
    """
    objects = scene["object"]
    linear = objects + scene["has_attr"] + scene["has_rel"]
    pairwise = objects * (objects + scene["has_attr"])
    return linear + sum(count * (pairwise if op in PAIRWISE else linear) for op, count in steps.items())


def rules_estimate(scene: dict[str, int], rules: Rules, edges: int = 0) -> int:
    """An upper bound of the rules' ground instances over a scene with `edges` knowledge edges:
    a rule grounds at most once per head and assignment of its variables, an object variable
    taking any object, another any word the facts hold; ``_`` in a literal projects it, once
    per fact at most.

    >>> from qlang.errors import Source
    >>> from qlang.rules import read
    >>> rules = read(Source("class(X, athlete) :- class(X, man), rel(X, wearing, Y)."))
    >>> rules_estimate({"object": 10, "has_attr": 40, "has_rel": 20}, rules)
    200
    """
    objects = scene["object"]
    facts = scene["has_attr"] + scene["has_rel"] + edges
    total = 0
    for rule in rules.rules:
        sorts: dict[str, Sort] = {}
        projections = 0
        for atom in (c.atom for c in rule.body if isinstance(c, Literal)):
            for term, sort in zip(atom.args, PREDICATES[atom.predicate], strict=True):
                if isinstance(term, Var) and not term.anonymous:
                    sorts.setdefault(term.name, sort)
            projections += any(isinstance(t, Var) and t.anonymous for t in atom.args)
        assignments = math.prod(objects if sort is Sort.OBJECT else facts + 1 for sort in sorts.values())
        total += len(rule.heads) * assignments + projections * facts
    return total
