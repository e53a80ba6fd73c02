"""Attributes and relations without CLIP: colour from the object's pixels (cut from its box's
background, `segment`), shape from the same cut's outline (`shape`), size and relations from
boxes.

What is scored follows the concepts: colour when the question needs a colour, the relations
it names (every relation the boxes can tell when there is no question).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from qlang.ontology import load
from qlang.vision import colour, geometry, shape
from qlang.vision.concepts import Concepts
from qlang.vision.perception import Detection, Image, Perception, SeenBox, Thresholds
from qlang.vision.segment import Segment, ink, segment

#: How an object's pixels are cut from its box, by its label where not by `segment`: the
#: reader's text by its ink (the matplotlib logo's letters: blue at 0.37 cut by GrabCut, with
#: the white between them, and 0.60 by their ink).
CUTS: dict[str, Callable[[Image, SeenBox, Sequence[SeenBox]], Segment]] = {"text": ink}
#: The least likelihood of a colour kept: a colour's whole distribution is kept, not its
#: likeliest three of at least `Thresholds.attribute`, so that every rival weighs against the
#: best in an answer's likelihood (`qlang.vision.margins`): the cup's coffee, orange at 0.42,
#: was 0.68 likely against brown alone, and is 0.57 against them all.
WHOLE = 0.02
#: A colour distribution kept whole is the colour namer's, over every colour it names (an
#: object's, the background's); the stuff cues' shares of two or three hue families keep
#: their likeliest, as their cut was fitted.
NAMED = frozenset(colour.NAMES)


def wanted(category: str, concepts: Concepts | None) -> bool:
    """Whether an attribute category is to be scored."""
    if concepts is None:
        return True
    values = load().categories.get(category, frozenset())
    return category in concepts.attributes or bool(values & concepts.values)


def describe(image: Image, perception: Perception, concepts: Concepts | None,
             thresholds: Thresholds, new: int = 0, seen: Sequence[SeenBox] = ()) -> None:
    """Score the detections' colour, shape and size and the relations between them, in place:
    those from number `new` on (those added since the others were described); `seen`: the
    boxes of every object seen, those the concepts do not ask for too (a table's colour is not
    the cup's on it: `segment`).  Stuff and the background, which name their own colours, have
    no outline to name."""
    height, width = image.shape[:2]
    for detection in perception.objects[new:]:
        scores: dict[str, dict[str, float]] = {}
        cut: Segment | None = None
        if wanted("color", concepts) and detection.colours is not None:
            scores["color"] = detection.colours
        elif wanted("color", concepts):
            with perception.stages.time("segment"):
                others = [*seen, *(d.box for d in perception.objects if d is not detection)]
                cut = CUTS.get(detection.label, segment)(image, detection.box, others)
            scores["color"] = colour.colours(cut.pixels)
        if wanted("shape", concepts) and detection.colours is None:
            with perception.stages.time("segment"):
                scores["shape"] = shape.shapes(image, detection.box, cut)
        if wanted("size", concepts):
            scores["size"] = geometry.size(detection.box, width, height)
        for category, values in scores.items():
            keep(detection, values, thresholds, whole=category == "color" and values.keys() >= NAMED)
    relate(perception, concepts, thresholds, new)


def relate(perception: Perception, concepts: Concepts | None, thresholds: Thresholds, new: int = 0) -> None:
    """Score the relations between the detections, in place: every pair with one of the
    detections from number `new` on (those added since the others were related)."""
    names = None if concepts is None else concepts.relations & {*geometry.RELATIONS, *geometry.KINDED}
    if names is not None and not names:
        return
    for i, a in enumerate(perception.objects):
        for j, b in enumerate(perception.objects):
            if i != j and max(i, j) >= new:
                for name, p in geometry.relations(a.box, b.box, names, (a.name, b.name)).items():
                    if p >= thresholds.relation:
                        perception.relate(i, name, j, p)


def keep(detection: Detection, values: dict[str, float], thresholds: Thresholds, whole: bool = False) -> None:
    """Add an attribute category's likeliest values (at most `thresholds.values` of at least
    `thresholds.attribute`); `whole`: every value of at least `WHOLE` (a colour)."""
    ranked = sorted(values.items(), key=lambda kv: -kv[1])
    least = WHOLE if whole else thresholds.attribute
    kept = ranked if whole else ranked[:thresholds.values]
    detection.attributes.update({value: p for value, p in kept if p >= least})
