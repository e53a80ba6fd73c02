"""Size and relations from boxes alone: what can be said of objects without looking inside them.

Each relation is a smooth score in [0, 1] of the two boxes (the subject's first), so that a
clear case is near certain and a borderline one near even, and the solver weighs it as such.
Image coordinates: y grows downwards.

>>> cup, table = SeenBox(40, 10, 60, 32), SeenBox(0, 30, 100, 80)
>>> round(relations(cup, table)["on"], 2), round(relations(table, cup)["on"], 2)
(0.94, 0.0)

A helmet held out within a woman's box is to the right of her; a cup within a table's is not:

>>> woman, helmet = SeenBox(0, 0, 300, 500), SeenBox(230, 200, 300, 270)
>>> right = lambda a, b, classes: round(relations(a, b, {"to the right of"}, classes)["to the right of"], 2)
>>> right(helmet, woman, ("helmet", "person")), right(SeenBox(60, 40, 90, 60), table, ("cup", "table"))
(0.9, 0.08)

A person stands on grass with their feet anywhere in it, on a table only on its top:

>>> grass, man = SeenBox(0, 250, 640, 480), SeenBox(100, 50, 200, 400)
>>> stands = lambda a, b, classes: round(relations(a, b, {"standing on"}, classes)["standing on"], 2)
>>> stands(man, grass, ("person", "grass")), stands(man, SeenBox(150, 250, 400, 400), ("person", "table"))
(0.99, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Callable

from qlang.ontology import load
from qlang.vision.perception import SeenBox

Score = Callable[[SeenBox, SeenBox], float]
#: Area fraction of the image at which an object is as likely large as small.
HALF_SIZE = 0.1


def _sigmoid(x: float) -> float:
    """The logistic function, for any x: its ratios of areas are unbounded (a distant person's
    box beside a motorcycle's 60 times as large), and `math.exp` overflows past 709."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    return math.exp(x) / (1.0 + math.exp(x))


def size(box: SeenBox, width: int, height: int) -> dict[str, float]:
    """`large` / `small` by the share of the image the box covers (on a log scale)."""
    share = max(box.area / (width * height), 1e-6)
    large = _sigmoid(2.0 * math.log(share / HALF_SIZE))
    return {"large": large, "small": 1.0 - large}


def _horizontal(a: SeenBox, b: SeenBox) -> float:
    """How far a's centre lies left of b's, in their mean half-widths (positive: left)."""
    return (b.centre[0] - a.centre[0]) / max((a.width + b.width) / 4, 1.0)


def _vertical(a: SeenBox, b: SeenBox) -> float:
    """How far a's centre lies above b's, in their mean half-heights (positive: above)."""
    return (b.centre[1] - a.centre[1]) / max((a.height + b.height) / 4, 1.0)


def _overlap_x(a: SeenBox, b: SeenBox) -> float:
    """The share of a's width over b."""
    return max(0.0, min(a.x1, b.x1) - max(a.x0, b.x0)) / max(a.width, 1.0)


def _gap(a: SeenBox, b: SeenBox) -> float:
    """The distance between the boxes (0 when they touch), in their mean diagonals."""
    dx = max(0.0, max(a.x0, b.x0) - min(a.x1, b.x1))
    dy = max(0.0, max(a.y0, b.y0) - min(a.y1, b.y1))
    diagonal = (math.hypot(a.width, a.height) + math.hypot(b.width, b.height)) / 2
    return math.hypot(dx, dy) / max(diagonal, 1.0)


def _on(a: SeenBox, b: SeenBox) -> float:
    """a rests on b: a is over b, its bottom within b's upper part, and a is the smaller."""
    if a.area >= b.area:
        return 0.0
    depth = (a.y1 - b.y0) / max(b.height, 1.0)  # how far a's bottom reaches into b
    rests = max(0.0, 1.0 - max(-0.1 - depth, depth - 0.6, 0.0) / 0.3)
    above = _sigmoid(4.0 * (b.centre[1] - a.centre[1]) / max(b.height, 1.0))
    return _overlap_x(a, b) * rests * above


def _inside(a: SeenBox, b: SeenBox) -> float:
    """Whether a lies (almost) wholly within b, and is the smaller."""
    share = a.intersection(b) / max(a.area, 1.0)
    return _sigmoid(10.0 * (share - 0.8)) if a.area < b.area else 0.0


def _in_front(a: SeenBox, b: SeenBox) -> float:
    """a hides part of b: they overlap, a reaches lower in the picture (nearer the camera), and
    a is no background that b lies within."""
    covered = a.intersection(b) / max(min(a.area, b.area), 1.0)
    lower = _sigmoid(8.0 * (a.y1 - b.y1) / max(b.height, 1.0))
    return min(1.0, covered * 2) * lower * (1.0 - _inside(b, a))


def _contained(a: SeenBox, b: SeenBox) -> float:
    """The share of b's box within a's."""
    return a.intersection(b) / max(b.area, 1.0)


def _wearing(a: SeenBox, b: SeenBox) -> float:
    """a wears b: b lies within a (a hat may rise above the head it is on) and is a part of
    a's size."""
    return _sigmoid(10.0 * (_contained(a, b) - 0.6)) * _sigmoid(10.0 * (0.6 - b.area / max(a.area, 1.0)))


def _wearing_on_head(a: SeenBox, b: SeenBox) -> float:
    """a wears b on the head: as `_wearing`, with b's centre in the upper half of a's box,
    where a head is however the person is framed (a helmet held at the side is not worn)."""
    level = (b.centre[1] - a.y0) / max(a.height, 1.0)
    return _wearing(a, b) * _sigmoid(12.0 * (0.5 - level))


def _holding(a: SeenBox, b: SeenBox) -> float:
    """a holds b: b is small beside a, reaches into a's box, and lies between a's shoulders and
    knees (where hands are)."""
    reach = min(1.0, _contained(a, b) / 0.3)
    small = _sigmoid(10.0 * (0.3 - b.area / max(a.area, 1.0)))
    level = (b.centre[1] - a.y0) / max(a.height, 1.0)
    hands = _sigmoid(12.0 * (level - 0.2)) * _sigmoid(12.0 * (0.9 - level))
    return reach * small * hands


def _stands(deepest: float) -> Score:
    """a stands on b: a's foot (its box's bottom centre) is over b, at most `deepest` of b's
    height down into b's box, and a rises above b's top (out of the surface, not lying on it
    or in front of it)."""

    def score(a: SeenBox, b: SeenBox) -> float:
        depth = (a.y1 - b.y0) / max(b.height, 1.0)
        rests = max(0.0, 1.0 - max(-0.1 - depth, depth - deepest, 0.0) / 0.3)
        beyond = max(b.x0 - a.centre[0], a.centre[0] - b.x1, 0.0) / max(a.width, 1.0)
        over = max(0.0, 1.0 - beyond / 0.25)
        rises = _sigmoid(8.0 * (b.y0 - a.y0) / max(a.height, 1.0))
        return rests * over * rises

    return score


def _apart(a: SeenBox, b: SeenBox) -> float:
    """Whether neither box lies within the other: a thing inside another (coffee in its cup) is
    on no side of it."""
    return (1.0 - _inside(a, b)) * (1.0 - _inside(b, a))


def _outside(a: SeenBox, b: SeenBox) -> float:
    """Whether a's box does not lie within b's (b's may lie within a's)."""
    return 1.0 - _inside(a, b)


def _around(a: SeenBox, b: SeenBox) -> float:
    """Whether b's box does not lie within a's (a's may lie within b's)."""
    return 1.0 - _inside(b, a)


def _side(away: Callable[[SeenBox, SeenBox], float], apart: Score = _apart) -> Score:
    """A side relation from how far a lies from b that way, in their half-sizes, where the
    boxes are `apart`."""
    return lambda a, b: _sigmoid(3.0 * (away(a, b) - 0.5)) * apart(a, b)


def _right(a: SeenBox, b: SeenBox) -> float:
    return _horizontal(b, a)


def _next_to(a: SeenBox, b: SeenBox) -> float:
    return math.exp(-1.5 * _gap(a, b)) * (1 - _sigmoid(3.0 * (abs(_vertical(a, b)) - 1)))


#: Each relation GQA has that boxes can tell, scored for (subject, object).
RELATIONS: dict[str, Callable[[SeenBox, SeenBox], float]] = {
    "to the left of": _side(_horizontal),
    "to the right of": _side(_right),
    "above": _side(_vertical),
    "below": _side(lambda a, b: _vertical(b, a)),
    "on": _on,
    "on top of": _on,
    "under": lambda a, b: _on(b, a),
    "in": _inside,
    "inside": _inside,
    "near": lambda a, b: math.exp(-1.5 * _gap(a, b)),
    "next to": _next_to,
    "beside": _next_to,
    "in front of": _in_front,
    "behind": lambda a, b: _in_front(b, a),
}


#: Classes people wear that GQA's ontology files under no clothing or accessory.
WORN = frozenset({"helmet", "glasses", "sunglasses", "goggles", "mask", "watch", "uniform", "suit",
                  "necklace", "bracelet", "backpack"})
#: Classes worn on the head only.
HEADWEAR = frozenset({"hat", "cap", "helmet", "glasses", "sunglasses", "goggles", "mask", "headband",
                      "bandana", "earring", "earrings", "crown", "headphones", "wig"})


def _person(cls: str) -> bool:
    return load().is_a(cls, "person")


def _worn(cls: str) -> bool:
    return cls in WORN or bool({"clothing", "accessory"}.intersection(load().ancestors(cls)))


def _headwear(cls: str) -> bool:
    return cls in HEADWEAR


def _held(cls: str) -> bool:
    return not _worn(cls) and not _person(cls)


def _standing(cls: str) -> bool:
    return _person(cls) or "animal" in load().ancestors(cls)


def _ground(cls: str) -> bool:
    """Ground one stands on anywhere in its box (grass, a road, a floor: GQA's places), which
    reaches down the picture as it nears the camera."""
    return "place" in load().ancestors(cls)


def _anything(cls: str) -> bool:
    return True


Fits = Callable[[str], bool]
#: Relations boxes tell only between kinds of things (the subject's, the object's), each by the
#: first way whose kinds fit: a person wears clothes, helmets and glasses (headwear in the
#: upper half of the person's box), and holds what is neither worn nor a person (what is in a
#: person's box at the height of the hands is as likely worn as held, and a hat within a
#: table's box is on it); a person or an animal stands on
#: ground with its feet anywhere in the ground's box, on a thing with its feet in the thing's
#: upper part (a person before a table has feet as low as the table's); and a thing within a
#: person's box (held out, worn) is on the side of the person its centre lies, as a person sees
#: it, where a thing within a table's box (a cup) or coffee within its cup is on no side.
KINDED: dict[str, tuple[tuple[Score, Fits, Fits], ...]] = {
    "wearing": ((_wearing_on_head, _person, _headwear), (_wearing, _person, _worn)),
    "holding": ((_holding, _person, _held),),
    "standing on": ((_stands(1.05), _standing, _ground), (_stands(0.6), _standing, _anything)),
    "to the left of": ((_side(_horizontal, _around), _anything, _person),
                       (_side(_horizontal, _outside), _person, _anything)),
    "to the right of": ((_side(_right, _around), _anything, _person),
                        (_side(_right, _outside), _person, _anything)),
}


def relations(a: SeenBox, b: SeenBox, names: frozenset[str] | None = None,
              classes: tuple[str, str] | None = None) -> dict[str, float]:
    """The likelihood of each geometric relation (of `names`, if given) from a to b; with the
    classes of a and b, also those that hold only between kinds of things."""
    found = {name: score(a, b) for name, score in RELATIONS.items() if names is None or name in names}
    if classes is not None:
        for name, ways in KINDED.items():
            fitting = (score for score, subject, object_ in ways
                       if subject(classes[0]) and object_(classes[1]))
            score = next(fitting, None) if names is None or name in names else None
            if score is not None:
                found[name] = score(a, b)
    return found
