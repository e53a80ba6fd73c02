"""Where each box's label goes on a picture, so that no two labels overlap and none leaves the
image: the picture is read only if its labels are.

Greedy, the smallest boxes first (they have the least room near them; a box as large as the
image can be labelled anywhere): each label takes the best free place among candidates around
its box, first those touching the box's outline (just above it, inside its top, below, beside,
then sliding along each edge), then rings at growing distances, with a leader line back to the
box, and at worst any free place in the image, the nearest first.  Among places equally near,
one that hides fewer other small objects wins.  A label may say less where it lacks room (its
texts are alternatives, the fullest first).  A label wider than the image is cut to fit; one
that finds no free place at all is left out (None), never drawn over another.

>>> boxes = [SeenBox(10, 10, 40, 40), SeenBox(12, 12, 38, 38)]
>>> placed = place(boxes, [["cat"], ["dog"]], 100, 60, lambda text: (6.0 * len(text), 10.0))
>>> [(p.text, p.box.x0, p.box.y0, p.leader) for p in placed if p is not None]
[('cat', 10.0, 40.0, None), ('dog', 12.0, 2.0, None)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from qlang.vision.perception import SeenBox

#: text -> its label's width and height, in the picture's pixels
Measure = Callable[[str], tuple[float, float]]
#: how far (pixels) a label may lie from its box's outline and still need no leader line
TOUCHING = 2.0
#: a box at most this many times a label's area counts as an object the label would hide
HIDDEN = 6.0
#: the most rings of candidates around a box before any free place in the image will do
RINGS = 12


@dataclass(frozen=True)
class Placed:
    """A label's text (cut to fit, where it had to be), its rectangle, and its leader line
    (from the label to its box) where it does not touch its box."""

    text: str
    box: SeenBox
    leader: tuple[tuple[float, float], tuple[float, float]] | None


def place(boxes: Sequence[SeenBox], texts: Sequence[Sequence[str]], width: float, height: float,
          measure: Measure) -> list[Placed | None]:
    """A place for each box's label, in the boxes' order (None: no room left for it).  Each
    label's texts are alternatives, the fullest first: at each distance from the box, the
    fullest that finds room there is taken, so a label is shortened before it is moved away."""
    placed: list[Placed | None] = [None] * len(boxes)
    taken: list[SeenBox] = []
    inside = [box.clipped(math.ceil(width), math.ceil(height)) for box in boxes]
    for index in sorted(range(len(boxes)), key=lambda i: (inside[i].area, i)):
        sizes = [fitted for fitted in (_fitted(text, width, measure) for text in texts[index])
                 if 0 < fitted[1][1] <= height]
        found = _best(inside[index], sizes, width, height, taken,
                      [b for i, b in enumerate(inside) if i != index])
        if found is not None:
            text, at = found
            taken.append(at)
            placed[index] = Placed(text, at, _leader(at, inside[index]))
    return placed


def _fitted(text: str, width: float, measure: Measure) -> tuple[str, tuple[float, float]]:
    """The text, cut with an ellipsis until its label fits the image's width."""
    size = measure(text)
    while size[0] > width and len(text) > 1:
        text = text[:-2] + "…" if len(text) > 2 else text[:-1]
        size = measure(text)
    return text, size


def _best(box: SeenBox, sizes: list[tuple[str, tuple[float, float]]], width: float, height: float,
          taken: list[SeenBox], others: list[SeenBox]) -> tuple[str, SeenBox] | None:
    """The nearest level of candidates with a free place for one of the texts (the fullest
    first), and in it the place hiding fewest small objects (the earlier candidate on a tie)."""
    for level in range(RINGS + 2):
        for text, (w, h) in sizes:
            candidates = _level(box, w, h, width, height, level)
            free = [c for c in candidates if not any(_overlap(c, t) for t in taken)]
            if free:
                small = [o for o in others if o.area <= HIDDEN * w * h]
                return text, min(free, key=lambda c: sum(_overlap(c, o) for o in small))
    return None


def _level(box: SeenBox, w: float, h: float, width: float, height: float, level: int) -> list[SeenBox]:
    """Candidate places at a level of nearness, each moved into the image: 0, touching the box;
    up to `RINGS`, in that ring around it; then anywhere in the image by distance."""
    def clamp(x: float, y: float) -> SeenBox:
        x, y = float(min(max(x, 0.0), width - w)), float(min(max(y, 0.0), height - h))
        return SeenBox(x, y, x + w, y + h)

    if level == 0:
        return [clamp(x, y) for x, y in _touching(box, w, h)]
    if level <= RINGS:
        return [clamp(x, y) for x, y in _ring(box, w, h, level * h)]
    cx, cy = box.centre
    grid = [clamp(x, y) for x in _steps(0.0, width - w, h / 2) for y in _steps(0.0, height - h, h / 2)]
    return sorted(grid, key=lambda c: math.hypot(c.centre[0] - cx, c.centre[1] - cy))


def _touching(box: SeenBox, w: float, h: float) -> Iterator[tuple[float, float]]:
    """Places on the box's outline: the corners in order of preference, then sliding along the
    top and bottom (outside and inside) and down the sides."""
    x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1
    yield from ((x0, y0 - h), (x0, y0), (x0, y1), (x0, y1 - h), (x1 - w, y0 - h), (x1 - w, y0),
                (x1 - w, y1), (x1, y0), (x0 - w, y0), (x1, y1 - h), (x0 - w, y1 - h))
    for x in _steps(x0, x1 - w, h):
        yield from ((x, y0 - h), (x, y0), (x, y1), (x, y1 - h))
    for y in _steps(y0, y1 - h, h / 2):
        yield from ((x1, y), (x0 - w, y), (x0, y), (x1 - w, y))


def _ring(box: SeenBox, w: float, h: float, d: float) -> Iterator[tuple[float, float]]:
    """Places at distance d outside the box: along its top and bottom, then down its sides."""
    for x in _steps(box.x0 - d - w, box.x1 + d, max(w / 2, h)):
        yield from ((x, box.y0 - d - h), (x, box.y1 + d))
    for y in _steps(box.y0 - d, box.y1 + d - h, h):
        yield from ((box.x1 + d, y), (box.x0 - d - w, y))


def _steps(start: float, stop: float, step: float) -> list[float]:
    """start, start + step, ... up to stop, and stop itself (none when stop < start)."""
    if stop < start:
        return []
    count = int((stop - start) // step)
    return [start + i * step for i in range(count + 1)] + ([stop] if start + count * step < stop else [])


def _overlap(a: SeenBox, b: SeenBox) -> bool:
    """Whether two rectangles share area (touching edges do not)."""
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def _leader(label: SeenBox, box: SeenBox) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """A line from the label to the nearest point of its box's outline; None where the label
    touches or straddles the outline."""
    cx, cy = label.centre
    if box.x0 < cx < box.x1 and box.y0 < cy < box.y1:  # inside: to the nearest side
        margin, start, end = min((label.x0 - box.x0, (label.x0, cy), (box.x0, cy)),
                                 (box.x1 - label.x1, (label.x1, cy), (box.x1, cy)),
                                 (label.y0 - box.y0, (cx, label.y0), (cx, box.y0)),
                                 (box.y1 - label.y1, (cx, label.y1), (cx, box.y1)))
        return None if margin <= TOUCHING else (start, end)
    end = (min(max(cx, box.x0), box.x1), min(max(cy, box.y0), box.y1))
    start = (min(max(end[0], label.x0), label.x1), min(max(end[1], label.y0), label.y1))
    return None if math.dist(start, end) <= TOUCHING else (start, end)
