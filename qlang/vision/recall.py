"""How often a perceiver finds an object that is there: its recall, measured per class on
labelled photos, and what a "no" from it is worth.

Not seeing a thing is evidence of its absence only in proportion to how surely it would have
been seen.  `doubt` says why a "no" about a class is no evidence: no perceiver knows the class;
its label covers only a kind of it (the SSD's "potted plant" is no tree); it finds it only now
and then (the ImageNet classifier on regions, the colour cues for sky and trees); it sees only some
kinds of it (ten COCO animals are not every animal); or, measured on the labelled photos, it
finds too few of those there are (`FLOOR`).  Otherwise a "no" is at most as sure as the
perceiver's recall of the class, or, for a class the labelled photos do not show, its recall
over every class they do (`Recall.of`).

The table (`TABLE`) is written by `bench/recall.py`, which runs the perceiver at seek's closer
threshold on the labelled photos (`qlang/data/seek/photos.json`, its calibration half where it
has one): for each existence question answered "yes", whether it found the class.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from qlang.ir import Node
from qlang.paths import package_data
from qlang.signatures import Kind, Type
from qlang.vision.sight import Sight, words

TABLE = package_data("vision", "recall.json")
#: Below this recall of a class, a perceiver's "no" about it is no evidence.
FLOOR = 0.5
#: How a perceiver finds a class it sees now and then only (`Sight.glimpsed`, `Sight.cued`).
_GLIMPSED, _CUED = "through the ImageNet classifier on regions", "by colour, texture and place"


@dataclass(frozen=True)
class Recall:
    """Objects found of those labelled, per class, at `threshold`."""

    threshold: float
    counts: dict[str, tuple[int, int]]

    def measured(self, cls: str) -> bool:
        return self.counts.get(cls, (0, 0))[1] > 0

    def of(self, cls: str) -> float:
        """The recall of the class where it was measured, else over every class that was."""
        found, there = self.counts.get(cls, (0, 0))
        if there == 0:
            found, there = (sum(column) for column in zip(*self.counts.values(), strict=True))
        return found / there if there else 1.0


@cache
def recall(perceiver: str) -> Recall | None:
    """The perceiver's measured recall (None: not measured, an open-vocabulary perceiver)."""
    table = json.loads(TABLE.read_text(encoding="utf-8"))["perceivers"].get(perceiver)
    if table is None:
        return None
    return Recall(float(table["threshold"]),
                  {cls: (int(found), int(there)) for cls, (found, there) in table["classes"].items()})


def doubt(sight: Sight, cls: str) -> str | None:
    """Why not seeing an object of `cls` is no evidence that there is none (None: it is)."""
    if sight.classes is None:
        return None
    if not sight.sees(Kind.CLASS, cls):
        return f"no perceiver knows '{cls}'"
    ways = [way for way, classes in ((_GLIMPSED, sight.glimpsed), (_CUED, sight.cued)) if cls in classes]
    if ways and cls not in sight.classes:
        return f"the {sight.name} detector finds {cls} only {' or '.join(ways)}"
    label = sight.label(cls)
    if label is not None:
        return f"the {sight.name} detector's '{cls}' is a {label} only"
    if not sight.covers(cls):
        return f"the {sight.name} detector sees only some kinds of {cls}"
    measured = recall(sight.name)
    if measured is not None and measured.measured(cls) and measured.of(cls) < FLOOR:
        found, there = measured.counts[cls]
        return f"the {sight.name} detector found {found} of {there} {cls} in the labelled photos"
    return None


def sureness(sight: Sight, cls: str) -> float:
    """How sure a "no" about a covered class can be: the perceiver's recall of it."""
    measured = recall(sight.name)
    return 1.0 if measured is None else measured.of(cls)


def why(sight: Sight, word: str) -> str:
    """Why a "no" about a word of a program is no evidence (`blind_no` found it so)."""
    return doubt(sight, word) or f"no perceiver knows '{word}'"


def blind_no(sight: Sight, root: Node, answer: str) -> tuple[str, ...]:
    """The words a "no" to a yes/no program rests on that the perceiver cannot deny (none: the
    "no" stands): those it cannot see, and the classes it does not cover or finds too seldom.
    A "yes" stands either way: it was seen through the words it does see."""
    if answer != "no" or root.signature is None or root.signature.result is not Type.BOOL:
        return ()
    return tuple(word for kind, word in words(root) if not sight.sees(kind, word)
                 or (kind is Kind.CLASS and doubt(sight, word) is not None))
