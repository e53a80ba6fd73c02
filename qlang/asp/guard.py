"""The grounding guard: how large a question's grounding will be, known before grounding it.

clingo cannot interrupt the grounder, so a question that would ground to hundreds of millions
of rules must be refused beforehand.  The estimate bounds each step's rule instances by the
joins its theory rules make: one pass over the scene's facts for most operations, a pass over
pairs of objects for those that compare objects with each other.  A rules file's rules ground
once per question, each about once per value of its variables (`rules_estimate`).  The
scene's sizes are read off its text (`sizes`) and the guard applied by `check`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

from qlang.asp.background import LIMIT, Background
from qlang.asp.options import Limits
from qlang.asp.outcome import SolveError
from qlang.asp.query import Query
from qlang.asp_names import to_term
from qlang.errors import error
from qlang.rules.check import Rules
from qlang.rules.language import PREDICATES, Literal, Sort, Var, Word
from qlang.signatures import SIGNATURES

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


def rules_estimate(scene: dict[str, int], rules: Rules, occurrences: Callable[[str], int],
                   edges: int = 0) -> int:
    """The rules' ground instances over a scene with `edges` knowledge edges, estimated as the
    operations' are, literal by literal of each rule's body: a literal matches about one fact
    per value of the variables it binds first (an object variable any object, a word bound
    with an object that object's words, the scene's facts per object, any other word either
    end of an edge), at most as many as its predicate has facts, and at most as many as hold
    its rarest word: `occurrences` says how many scene facts may hold a word (a word the rules
    derive, as many more as they could derive); a literal with ``_`` is projected, once per fact.

    >>> from qlang.errors import Source
    >>> from qlang.rules import read
    >>> rules = read(Source("class(X, athlete) :- class(X, man), rel(X, wearing, Y), class(Y, C)."))
    >>> # 2 heads (athlete, person) x 2 men x 3 wearing x 7 classes of the worn (60 facts / 10
    >>> # objects), and as many instances of the rule that makes a derived fact a scene fact
    >>> rules_estimate({"object": 10, "has_attr": 40, "has_rel": 20}, rules,
    ...                lambda word: {"man": 2, "wearing": 3}.get(word, 40))
    168
    """
    objects = max(scene["object"], 1)
    sizes = {"attr": scene["has_attr"], "rel": scene["has_rel"], "know": edges}
    per_object = math.ceil((sizes["attr"] + sizes["rel"]) / objects) + 1
    derived = {t.value: objects * objects if head.predicate == "rel" else objects
               for rule in rules.rules for head in rule.heads for t in head.args if isinstance(t, Word)}
    total = projected = 0
    for rule in rules.rules:
        bound: set[str] = set()
        instances = 1
        for literal in (c for c in rule.body if isinstance(c, Literal)):
            atom = literal.atom
            terms = list(zip(atom.args, PREDICATES[atom.predicate], strict=True))
            rarest = [edges if atom.predicate == "know" else occurrences(t.value) + derived.get(t.value, 0)
                      for t, _ in terms if isinstance(t, Word)]
            if any(isinstance(t, Var) and t.anonymous for t, _ in terms):  # clingo projects it
                projected += min([sizes[atom.predicate], *rarest])
            if literal.negated:
                continue
            of_object = any(s is Sort.OBJECT and isinstance(t, Var) for t, s in terms)
            values = [objects if s is Sort.OBJECT else per_object if of_object else 2 * edges + 1
                      for t, s in terms if isinstance(t, Var) and t.name not in bound]
            instances *= min(math.prod(values), sizes[atom.predicate], *rarest)
            bound |= {t.name for t, _ in terms if isinstance(t, Var) and not t.anonymous}
        total += len(rule.heads) * instances
    return 2 * total + projected  # a derived fact also grounds the rule making it a scene fact


def check(scene: dict[str, int], query: Query, limits: Limits, rules: int = 0) -> None:
    """The grounding guard: refuse a query whose grounding would be too large (with the
    `rules`' own grounding, whose facts the theory reads too)."""
    steps = Counter(f.name for f in query if f.name in SIGNATURES)
    size = rules + estimate({**scene, "has_attr": scene["has_attr"] + rules} if rules else scene, steps)
    if size > limits.max_ground:
        raise error(SolveError, "grounding",
                    f"the question would ground to about {size:,} rules, above the guard of "
                    f"{limits.max_ground:,}", hint="a smaller scene, or a larger --max-ground")


def rules_size(scene: str, sizes: dict[str, int], background: Background | None) -> int:
    """The rules' estimated grounding over a scene (`rules_estimate`): a word's facts counted,
    generously, as its spelling's occurrences in the scene's text."""
    if background is None or background.rules is None:
        return 0
    return rules_estimate(sizes, background.rules, lambda word: scene.count(to_term(word)),
                          LIMIT if background.known else 0)


def sizes(scene: str) -> dict[str, int]:
    """How often each predicate the guard weighs is written in a scene's text: a fast, generous
    stand-in for its atoms (``xobject(`` counts as ``object(``: a few too many only make the guard
    stricter)."""
    return {name: scene.count(name + "(") for name in ("object", "has_attr", "has_rel")}
