"""How often a perceiver finds an object that is there: its recall, measured per class on
labelled photos, and what a "no" from it is worth.

Not seeing a thing is evidence of its absence only in proportion to how surely it would have
been seen.  `doubt` says why a "no" about a class is no evidence: no perceiver knows the class;
its label covers only a kind of it (the SSD's "potted plant" is no tree); it finds it only now
and then (the ImageNet classifier on regions, the colour cues for sky and trees); it sees only some
kinds of it (ten COCO animals are not every animal); or, measured on the labelled photos, it
finds too few of those there are (`FLOOR`).  Otherwise a "no" is at most as sure as the
perceiver's recall of the class, or, for a class the labelled photos do not show, its recall
over every class they do (`Recall.of`).  A class found only now and then may be denied too,
where its recall is measured high enough on at least `LABELLED` photos (`Recall.enough`).

Recall falls as the detection threshold rises (coffee's spoon is seen at 0.19, not at 0.4), so
a "no" is judged by the recall measured at its own threshold, or at the least measured one
above it.  The table (`TABLE`) is written by `bench/recall.py`, which runs the perceiver at
seek's closer threshold and at `ask`'s on the labelled photos (the calibration half of
`qlang/data/seek/photo_set.json`): for each existence question answered "yes", whether it
found the class.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache

from qlang.ir import Node
from qlang.paths import package_data
from qlang.signatures import Kind, Type
from qlang.vision.sight import Sight, words

TABLE = package_data("vision", "recall.json")
#: Below this recall of a class, a perceiver's "no" about it is no evidence.
FLOOR = 0.5
#: A class a perceiver finds only now and then (`Sight.glimpsed`, `cued`, `read`) may be denied
#: where its recall, measured on at least this many labelled photos, reaches `FLOOR`.
LABELLED = 3
#: How a perceiver finds a class it sees now and then only (`Sight.glimpsed`, `Sight.cued`,
#: `Sight.read`).
_GLIMPSED, _CUED, _READ = ("through the ImageNet classifier on regions", "by colour, texture and place",
                           "by reading the photo's text")


@dataclass(frozen=True)
class Recall:
    """Objects found of those labelled, per class, at `threshold`."""

    threshold: float
    #: of the classes the perceiver covers
    counts: dict[str, tuple[int, int]]
    #: of the classes it finds only now and then (`Sight.glimpsed`, `cued`, `read`)
    partly: dict[str, tuple[int, int]] = field(default_factory=dict)

    def measured(self, cls: str) -> bool:
        return self.counts.get(cls, (0, 0))[1] > 0

    def enough(self, cls: str) -> bool:
        """Whether a class found only now and then is found often enough, on enough photos."""
        found, there = self.partly.get(cls, (0, 0))
        return there >= LABELLED and found / there >= FLOOR

    def of(self, cls: str) -> float:
        """The recall of the class where it was measured, else over every covered class that was."""
        found, there = self.partly[cls] if self.enough(cls) else self.counts.get(cls, (0, 0))
        if there == 0:
            found, there = (sum(column) for column in zip(*self.counts.values(), strict=True))
        return found / there if there else 1.0


@cache
def recall(perceiver: str, threshold: float | None = None) -> Recall | None:
    """The perceiver's recall measured at the least threshold at or above `threshold` (None: the
    least measured), a bound on its recall at `threshold`; None where there is none (an
    open-vocabulary perceiver, or a threshold above all those measured)."""
    tables = json.loads(TABLE.read_text(encoding="utf-8"))["perceivers"].get(perceiver, [])
    above = sorted((t for t in tables if threshold is None or float(t["threshold"]) >= threshold),
                   key=lambda t: float(t["threshold"]))
    if not above:
        return None
    chosen = above[0]
    return Recall(float(chosen["threshold"]), _counts(chosen["classes"]), _counts(chosen.get("partly", {})))


def _counts(table: dict[str, list[int]]) -> dict[str, tuple[int, int]]:
    return {cls: (int(found), int(there)) for cls, (found, there) in table.items()}


def doubt(sight: Sight, cls: str, threshold: float | None = None) -> str | None:
    """Why not seeing an object of `cls` at `threshold` (None: the least measured) is no
    evidence that there is none (None: it is)."""
    if sight.classes is None:
        return None
    if not sight.sees(Kind.CLASS, cls):
        return f"no perceiver knows '{cls}'"
    ways = [way for way, finds in ((_GLIMPSED, sight.glimpses(cls)), (_CUED, cls in sight.cued),
                                   (_READ, cls in sight.read)) if finds]
    if ways and cls not in sight.classes:
        measured = recall(sight.name, threshold)
        if measured is not None and measured.enough(cls):
            return None
        found, there = (0, 0) if measured is None else measured.partly.get(cls, (0, 0))
        seen = f" (found {found} of {there} in the labelled photos)" if there else ""
        return f"the {sight.name} detector finds {cls} only {' or '.join(ways)}{seen}"
    label = sight.label(cls)
    if label is not None:
        return f"the {sight.name} detector's '{cls}' is a {label} only"
    if not sight.covers(cls):
        return f"the {sight.name} detector sees only some kinds of {cls}"
    measured = recall(sight.name, threshold)
    if measured is None:
        at = "" if threshold is None else f" at >= {threshold:g}"
        return f"the {sight.name} detector's recall is not measured{at}"
    if measured.measured(cls) and measured.of(cls) < FLOOR:
        found, there = measured.counts[cls]
        return (f"the {sight.name} detector found {found} of {there} {cls} in the labelled photos "
                f"at >= {measured.threshold:g}")
    return None


def sureness(sight: Sight, cls: str, threshold: float | None = None) -> float:
    """How sure a "no" about a covered class can be: the perceiver's recall of it."""
    measured = recall(sight.name, threshold)
    return 1.0 if measured is None else measured.of(cls)


def why(sight: Sight, word: str, threshold: float | None = None) -> str:
    """Why a "no" about a word of a program is no evidence (`blind_no` found it so)."""
    return doubt(sight, word, threshold) or f"no perceiver knows '{word}'"


def blind_no(sight: Sight, root: Node, answer: str, threshold: float | None = None) -> tuple[str, ...]:
    """The words a "no" to a yes/no program rests on that the perceiver cannot deny (none: the
    "no" stands): those it cannot see, and the classes it does not cover or finds too seldom
    at `threshold`.  A "yes" stands either way: it was seen through the words it does see."""
    if answer != "no" or root.signature is None or root.signature.result is not Type.BOOL:
        return ()
    return tuple(word for kind, word in words(root) if not sight.sees(kind, word)
                 or (kind is Kind.CLASS and doubt(sight, word, threshold) is not None))
