"""Shape without CLIP: GQA's shape values scored from an object's outline (`segment`'s mask).

The outline is the mask's largest part with its holes filled (a clock's face, a coin's relief);
four numbers say what it is like, each the same at any size and turn: how much of the ellipse
of its own second moments it fills (intersection over union: 1 for any ellipse), of its least
rotated rectangle (1 for a rectangle, 0.79 for a circle), of its least enclosing triangle (1 for
a triangle), and that rectangle's short side over its long one (a square's 1).  Each GQA value
has prototype outlines drawn at the mask's size (`PROTOTYPES`: round is a circle or an ellipse
seen at a slant, square and rectangular sharing the rectangles between, `SQUARE`), and a
value's likelihood is a Gaussian of the distance (`SPREAD`) to its nearest prototype, against
`OTHER`: an outline far from every prototype (a person, a cat, a motorcycle) is none of them,
and scores low on all.  Those four numbers hold a regular polygon of many sides near a circle,
so an outline whose turning gathers at corners (`CORNERED`) is not round: a stop sign's
octagon, a box seen from above a corner.  `octagonal` itself is not named: it is rare (of the
shared GQA questions' 11 about an object's shape, one, about a plate), and a small or blurred
round outline turns nearly as unevenly.

An outline is no evidence where the object may go on beyond the photo's edge (more than
`CUT_OFF` of it lies along an edge the box touches: a table whose far end is out of frame),
where it does not span its box (`SPAN`: the cut kept something else in it, the saucer on a
table), or where GrabCut drew none (`Segment.cut`).  The constants are measured on the photo set's
calibration half and on real crops (`tests/test_vision_shape.py`).

>>> disc = np.zeros((40, 40), dtype=bool)
>>> disc[np.hypot(*np.ogrid[-20:20, -20:20]) < 19] = True
>>> max(likelihoods(disc).items(), key=lambda kv: kv[1])[0]
'round'
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
import numpy.typing as npt

from qlang.vision.perception import Image, SeenBox
from qlang.vision.segment import Segment, segment

Mask = npt.NDArray[np.bool_]
Features = npt.NDArray[np.float64]

#: The Gaussian's width, in the features' units (shares of 0..1).
SPREAD = 0.04
#: The distance at which an outline is as likely none of GQA's shapes as the nearest one.
OTHER = 0.08
#: The most of an outline that may lie along the photo's edge.
CUT_OFF = 0.1
#: The most of an outline's turning that may gather in a quarter of its length for it to be
#: round: drawn circles and ellipses 0.33-0.51, the package photos' coins, colour wheel, logo,
#: cup and retina 0.42-0.63, the blurred clock 0.72; a drawn octagon 0.77-0.84, a hexagon 0.95,
#: a gift box seen from above a corner 0.78-0.84 (the four numbers hold them all near a circle).
CORNERED = 0.75
#: The points an outline's convex hull is followed at, and the step its direction is taken over.
_STEPS, _STRIDE = 64, 2
#: The least share of the box's width and of its height an outline spans.
SPAN = 0.8
#: The least pixels of an outline worth naming.
LEAST = 64
#: The side prototypes are drawn at (`segment.SIDE`).
_SIDE = 64


def _ellipse(aspect: float) -> Mask:
    import cv2

    canvas = np.zeros((_SIDE + 8, _SIDE + 8), dtype=np.uint8)
    centre, half = (_SIDE // 2 + 4, _SIDE // 2 + 4), _SIDE // 2
    cv2.ellipse(canvas, centre, (half, round(half * aspect)), 0, 0, 360, 1, cv2.FILLED)
    return canvas.astype(bool)


def _polygon(*corners: tuple[float, float], turn: float = 0.0) -> Mask:
    """A polygon of corners in -1..1, turned by `turn` degrees, drawn at the prototypes' side."""
    import cv2

    angle = np.radians(turn)
    rotation = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    points = np.asarray(corners) @ rotation.T
    points = points / np.abs(points).max() * (_SIDE / 2) + _SIDE / 2 + 4
    canvas = np.zeros((_SIDE + 8, _SIDE + 8), dtype=np.uint8)
    cv2.fillPoly(canvas, [np.round(points).astype(np.int32)], 1)
    return canvas.astype(bool)


def _rectangle(aspect: float, turn: float = 0.0) -> Mask:
    return _polygon((-1, -aspect), (1, -aspect), (1, aspect), (-1, aspect), turn=turn)


#: The aspects of a rectangle both square and rectangular prototypes have: GQA's annotators call
#: pictures, pillows and tables square that are not quite (of the shared GQA questions' 11 about
#: an object's shape, 9 answer square, one rectangular), and a photo's slant changes
#: an outline's aspect, so an outline between them is left to neither.
SQUARE = (0.85, 0.75)

#: GQA shape value -> its prototype outlines
PROTOTYPES: dict[str, Callable[[], list[Mask]]] = {
    "round": lambda: [_ellipse(aspect) for aspect in (1.0, 0.85, 0.7, 0.55, 0.4)],
    "square": lambda: [_rectangle(1.0), _rectangle(1.0, turn=30), *map(_rectangle, SQUARE)],
    "rectangular": lambda: [*map(_rectangle, SQUARE), _rectangle(0.62), _rectangle(0.5, turn=20),
                            *map(_rectangle, (0.4, 0.3, 0.2))],
    "triangular": lambda: [_polygon((-1, 0.87), (1, 0.87), (0, -0.87)), _polygon((-1, 1), (1, 1), (-1, -1))],
}


@cache
def _prototypes() -> dict[str, Features]:
    """Each value's prototypes' features, one row each."""
    return {value: np.array([f for f in map(features, draw()) if f is not None])
            for value, draw in PROTOTYPES.items()}


def shapes(image: Image, box: SeenBox, cut: Segment | None = None) -> dict[str, float]:
    """The likelihood of each GQA shape for the object in `box` (`cut`: its segment, where it
    was cut already for its colour); empty where its outline is no evidence."""
    if cut is None or not cut.cut:
        cut = segment(image, box, rim=True)
    if not cut.cut:
        return {}
    height, width = image.shape[:2]
    edges = (box.y0 <= 0, box.y1 >= height, box.x0 <= 0, box.x1 >= width)
    return likelihoods(cut.mask, edges)


def likelihoods(mask: Mask, edges: tuple[bool, bool, bool, bool] = (False,) * 4) -> dict[str, float]:
    """Each shape's likelihood for an outline, whose sides (top, bottom, left, right) are the
    photo's edge where `edges` says so; empty where it is no evidence."""
    outline = _outline(mask)
    if outline is None or _along(outline, edges) > CUT_OFF or _span(outline) < SPAN:
        return {}
    found = features(outline)
    if found is None:
        return {}
    nearest = {value: float(np.linalg.norm(rows - found, axis=1).min())
               for value, rows in _prototypes().items()}
    scores = {value: np.exp(-0.5 * (d / SPREAD) ** 2) for value, d in nearest.items()}
    if _cornered(outline) > CORNERED:
        scores["round"] = 0.0
    total = sum(scores.values()) + np.exp(-0.5 * (OTHER / SPREAD) ** 2)
    return {value: float(score / total) for value, score in scores.items()}


def _cornered(outline: Mask) -> float:
    """The share of the outline's turning that gathers in the quarter of its length that turns
    most: a circle turns evenly, a polygon at its corners."""
    import cv2

    contours, _ = cv2.findContours(outline.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea)).reshape(-1, 2).astype(np.float64)
    closed = np.vstack([hull, hull[:1]])
    along = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(closed, axis=0).T))])
    at = np.linspace(0.0, along[-1], _STEPS, endpoint=False)
    points = np.stack([np.interp(at, along, closed[:, 0]), np.interp(at, along, closed[:, 1])], axis=1)
    step = np.roll(points, -_STRIDE, axis=0) - points
    heading = np.arctan2(step[:, 1], step[:, 0])
    turns = np.abs((np.roll(heading, -1) - heading + np.pi) % (2 * np.pi) - np.pi)
    most = np.sort(turns)[::-1][:_STEPS // 4]
    return float(most.sum() / max(turns.sum(), 1e-9))


def _outline(mask: Mask) -> Mask | None:
    """The mask's largest part, holes filled; None where it is too small to name."""
    import cv2

    contours, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    filled = np.zeros(mask.shape, dtype=np.uint8)
    cv2.drawContours(filled, [max(contours, key=cv2.contourArea)], -1, 1, cv2.FILLED)
    return filled.astype(bool) if filled.sum() >= LEAST else None


def _span(outline: Mask) -> float:
    """The least of the shares of the box's width and height the outline spans."""
    rows, columns = np.nonzero(outline.any(axis=1))[0], np.nonzero(outline.any(axis=0))[0]
    return float(min((rows[-1] - rows[0] + 1) / outline.shape[0],
                     (columns[-1] - columns[0] + 1) / outline.shape[1]))


def _along(outline: Mask, edges: tuple[bool, bool, bool, bool]) -> float:
    """The share of the outline's border pixels on the sides that are the photo's edge."""
    import cv2

    inside = cv2.erode(outline.astype(np.uint8), np.ones((3, 3), np.uint8), borderType=cv2.BORDER_CONSTANT,
                       borderValue=0)
    border = outline & ~inside.astype(bool)
    top, bottom, left, right = edges
    on_edge = np.zeros(outline.shape, dtype=bool)
    on_edge[0], on_edge[-1], on_edge[:, 0], on_edge[:, -1] = top, bottom, left, right
    return float((border & on_edge).sum() / max(1, border.sum()))


def features(outline: Mask) -> Features | None:
    """How much of its moments' ellipse, least rectangle and least triangle a filled outline
    fills, and the rectangle's aspect; None where there is nothing to measure."""
    import cv2

    contours, _ = cv2.findContours(outline.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    points = max(contours, key=cv2.contourArea)
    area = cv2.contourArea(points)
    (_, _), (w, h), _ = cv2.minAreaRect(points)
    triangle, _ = cv2.minEnclosingTriangle(points.astype(np.float32))
    if area <= 0 or w * h <= 0 or triangle <= 0:
        return None
    return np.array([_ellipse_overlap(outline), area / (w * h), area / triangle, min(w, h) / max(w, h)])


def _ellipse_overlap(outline: Mask) -> float:
    """Intersection over union of the outline and the ellipse of its second moments."""
    import cv2

    outline = np.pad(outline, max(outline.shape) // 2)  # room for the ellipse beyond the box
    moments = cv2.moments(outline.astype(np.uint8), binaryImage=True)
    if moments["m00"] <= 0:
        return 0.0
    centre = (moments["m10"] / moments["m00"], moments["m01"] / moments["m00"])
    covariance = np.array([[moments["mu20"], moments["mu11"]],
                           [moments["mu11"], moments["mu02"]]]) / moments["m00"]
    variances, axes = np.linalg.eigh(covariance)
    # a uniform ellipse of semi-axis a has variance a^2 / 4 along it
    half = 2 * np.sqrt(np.maximum(variances, 0))
    angle = float(np.degrees(np.arctan2(axes[1, 1], axes[0, 1])))
    ellipse = np.zeros(outline.shape, dtype=np.uint8)
    cv2.ellipse(ellipse, (round(centre[0]), round(centre[1])), (round(half[1]), round(half[0])),
                angle, 0, 360, 1, cv2.FILLED)
    both, either = (outline & ellipse.astype(bool)).sum(), (outline | ellipse.astype(bool)).sum()
    return float(both / max(1, either))
