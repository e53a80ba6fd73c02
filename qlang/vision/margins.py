"""How likely a best answer about a photo must be, against the others, to be given: a cut per
kind of answer, fitted on labelled photos rather than set by hand, and one step (`unsure`) that
`ask` and seek both take, so that plain `ask` is never wrong more often than seek for want of it.

One cut for every answer is too strict for some and too loose for others: "What is in the
cup?" is right at 0.53 (coffee), while "What is to the right of the cup?" is wrong at 0.67
(a region the classifier called espresso).  An answer's kind (`keys`) is what the program
asks of the scene (a relation, which one, an existence, an attribute's value), and for a
colour also whose pixels name it (the stuff regions' hue families, or the colour namer on an
object's mask); a kind the table has no cut for takes the cut of the next coarser kind, and
at last the table's default.

`bench/margins.py` runs seek on the calibration half of the photo set with every cut at 0,
takes each final answer's likelihood, and writes per kind the least cut that passes wrong
answers at most `WRONG` of the time (`fit`), never below `FLOOR` (an answer no likelier than
all the others together is no answer) and below the default only as far as right answers were
seen: the calibration half's colours were wrong at 0.41 and right at 0.99, which says nothing
of a colour at 0.55.  Kinds it shows no answer of keep the default
(`qlang/data/seek/margins.json`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from qlang.asp.outcome import Answer
from qlang.asp.scene import SCALE
from qlang.ir import Node, postorder
from qlang.paths import package_data
from qlang.signatures import Kind
from qlang.vision.stuff import CLASSES as STUFF

TABLE = package_data("seek", "margins.json")
#: The least cut: below it another answer, or none, is likelier.
FLOOR = 0.5
#: The most wrong answers, of those a cut passes, a fitted cut allows.
WRONG = 0.05
_PRICE = re.compile(r"^:~ .*\[(\d+), (?:holds|fails), (.*)\]$", re.MULTILINE)


@dataclass(frozen=True)
class Margins:
    """The least likelihood of a final answer: per kind of answer, else `default`."""

    default: float
    cuts: dict[str, float] = field(default_factory=dict)

    def of(self, root: Node) -> float:
        """The cut for the program's answer: its most specific kind that has one."""
        return next((self.cuts[key] for key in keys(root) if key in self.cuts), self.default)


def keys(root: Node) -> list[str]:
    """The kinds of the program's answer, most specific first: `relation` where it relates
    objects (`relation, on` where by one relation), else `exist`, else the attribute queried
    (`color`), with the perceiver that named it for a colour of stuff (`color, stuff`)."""
    literals = [(kind, word) for node in postorder(root) if node.signature
                for kind, word in zip(node.signature.literals, node.literals, strict=False)]
    relations = sorted({word for kind, word in literals if kind is Kind.REL})
    if relations:
        return [f"relation, {relations[0]}"] * (len(relations) == 1) + ["relation"]
    if root.op == "exist":
        return ["exist"]
    attributes = [word for kind, word in literals if kind is Kind.ATTR]
    if not attributes:
        return [root.op]
    stuff = any(kind is Kind.CLASS and word in STUFF for kind, word in literals)
    return [f"{attributes[-1]}, stuff"] * stuff + [attributes[-1]]


@cache
def table() -> Margins:
    """The fitted cuts (`TABLE`)."""
    data = json.loads(TABLE.read_text(encoding="utf-8"))
    return Margins(float(data["default"]), {key: float(cut) for key, cut in data["cuts"].items()})


def fit(observed: Iterable[tuple[float, bool]], default: float) -> float | None:
    """The least cut at or above `FLOOR` under which at most `WRONG` of the answers it passes
    are wrong, from (likelihood, right) pairs, but below `default` only down to the least
    likely right answer it passes: nothing observed says an answer less likely than that is
    right.  None where no answer was observed."""
    answers = sorted(observed)
    if not answers:
        return None
    for cut in sorted({FLOOR, *(math.floor(p * 1000) / 1000 for p, _ in answers if p > FLOOR)}):
        passed = [right for p, right in answers if p >= cut]
        if passed.count(False) <= WRONG * len(passed):
            shown = min((math.floor(p * 1000) / 1000 for p, right in answers if right and p >= cut),
                        default=default)
            return max(cut, min(default, shown))
    return math.floor(answers[-1][0] * 1000 + 1) / 1000  # none passes few enough wrong: pass none


def likeliest(scene: str) -> int:
    """The cost of the likeliest scene: each uncertain fact (priced both ways by the scene
    encoder, `qlang.asp.scene`) taken the cheaper way.

    >>> likeliest(":~ a. [105, holds, a]\\n:~ not a. [2303, fails, a]")
    105
    """
    cheapest: dict[str, int] = {}
    for cost, atom in _PRICE.findall(scene):
        cheapest[atom] = min(int(cost), cheapest.get(atom, int(cost)))
    return sum(cheapest.values())


def likelihood(answers: Sequence[Answer], base: int) -> float:
    """How likely the best of `answers` is: the likelihood of the likeliest scene that gives
    it, against the likeliest scene of all (`base`: the costs are -1000 ln p), shared with the
    other answers found.  An answer the likeliest scene gives, and no other nearly as likely, is
    near 1; one that needs a fact of probability 0.3 true is 0.43 (its odds)."""
    odds = [math.exp(-(sum(a.cost) - base) / SCALE) for a in answers]
    return odds[0] / max(1.0, sum(odds))


def unsure(root: Node, answers: Sequence[Answer], base: int, margins: Margins | None = None) -> str | None:
    """Why the best of a program's `answers` is no answer: it is less likely against the others
    than the cut for its kind (of `margins`, else the fitted `table`); None where it passes."""
    p, cut = likelihood(answers, base), (margins or table()).of(root)
    return f"'{answers[0].value}' is only {p:.2f} likely against the others" if p < cut else None
