"""The grounding guard: how large a question's grounding will be, known before grounding it.

clingo cannot interrupt the grounder, so a question that would ground to hundreds of millions
of rules must be refused beforehand.  The estimate bounds each step's rule instances by the
joins its theory rules make: one pass over the scene's facts for most operations, a pass over
pairs of objects for those that compare objects with each other.
"""

from __future__ import annotations

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
