"""The cascade's threshold: where the small parser's confidence is worth trusting.

Given dev pairs (never trained on), the small parser's program and probability for each, and
the fallback translator's program for each (a `qlangc translate --jsonl` output), every
candidate threshold t gives a cascade: small where its probability reaches t, the fallback
elsewhere.  The chosen t is the lowest (the most questions answered in milliseconds) whose
cascade is exact within `slack` of the best cascade's: speed is bought only with accuracy
that is not measurably there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from qlang.api import parse
from qlang.errors import QlangError
from qlang.ir import Node
from qlang.passes.canonical import equivalent
from qlang.small.parser import Decoded
from qlang.syntax import detect

#: How far below the lowest confidence it admits a threshold lies: ten times the 1e-7 or so by
#: which a question's probability moves with the decoder (numpy or torch) and its batch, which
#: must not send a question the other way.
MARGIN = 1e-6


@dataclass(frozen=True, slots=True)
class Point:
    threshold: float
    #: the share of questions the small parser answers
    coverage: float
    #: exact among those it answers
    small_exact: float
    cascade_exact: float


def exact(program: str | None, gold: Node) -> bool:
    if not program:
        return False
    try:
        return equivalent(parse(program, detect(program)), gold)
    except QlangError:
        return False


def curve(parsed: Sequence[Decoded], golds: Sequence[Node], fallback: Sequence[bool]) -> list[Point]:
    """The cascade at every threshold the dev confidences suggest, highest first.  A threshold
    lies `MARGIN` below the lowest confidence it admits (or halfway to the next lower one, if
    that is nearer), never on a confidence."""
    small = small_exact(parsed, golds)
    order = sorted(range(len(parsed)), key=lambda i: -parsed[i].probability)
    n, points = len(parsed), []
    accepted_right, rejected_right = 0, sum(fallback)
    for k, i in enumerate(order, start=1):
        accepted_right += small[i]
        rejected_right -= fallback[i]
        lower = parsed[order[k]].probability if k < n else 0.0
        if lower == parsed[i].probability:
            continue  # a threshold takes every question of equal confidence
        threshold = max(parsed[i].probability - MARGIN, (parsed[i].probability + lower) / 2)
        points.append(Point(threshold, k / n, accepted_right / k, (accepted_right + rejected_right) / n))
    return points


def small_exact(parsed: Sequence[Decoded], golds: Sequence[Node]) -> list[bool]:
    """Whether the small parser's program for each question is exact."""
    return [p.root is not None and equivalent(p.root, g) for p, g in zip(parsed, golds, strict=True)]


def choose(points: Sequence[Point], slack: float = 0.005) -> Point:
    best = max(p.cascade_exact for p in points)
    return min((p for p in points if p.cascade_exact >= best - slack), key=lambda p: p.threshold)


def fallback_exact(results: Mapping[str, str | None], ids: Sequence[str],
                   golds: Sequence[Node]) -> list[bool]:
    """Whether the fallback's program for each dev id is exact (a missing one is not)."""
    return [exact(results.get(i), g) for i, g in zip(ids, golds, strict=True)]
