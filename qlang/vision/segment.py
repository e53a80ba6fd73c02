"""An object's own pixels inside its box: GrabCut (Rother et al., 2004) seeded by the box.

A detector's box holds the object and whatever is behind it: the table around a cup, the
floor through a motorcycle's wheels.  GrabCut models the colours outside the box as background
and those inside as a mix, and cuts the box's pixels into object and background with a graph
cut; what the object is made of (its colour) is then read off the object alone.

The box is cut on a copy scaled so that its longer side is `SIDE` pixels, with a `CONTEXT`
border of the image around it for the background's colours: the cut's cost grows with the
pixels, and colour needs no more.  A box that leaves too little of the image around it
(`LEAST_CONTEXT`) and holds another object's box is a surface under the others (a table under
a cup: cut, it would be named by the cup's red), and is taken whole; one that holds none is a
figure filling its photo (a drawn black horse on white, whose box takes 90 % of the photo,
was named white when taken whole) and is cut against the photo's edge like any other.  A cut
that keeps too little of the box (a uniform object the background's colours explain) falls
back to the box's central ellipse.  Neither fallback is the object's outline (`cut`): an
outline is wanted (`rim`) even of a box that fills the photo (a colour wheel on black), and is
then cut against the photo's own rim.

Text is cut otherwise (`ink`): a word's strokes are too thin for GrabCut's colour models, and
its letters are the pixels of its box unlike the box's edge, the ground they are printed on.

>>> image = np.full((60, 60, 3), (230, 230, 230), dtype=np.uint8)
>>> image[20:40, 20:40] = (200, 30, 30)
>>> cut = segment(image, SeenBox(15, 15, 45, 45))
>>> round(cut.share, 1), np.median(cut.pixels, axis=0).astype(int).tolist()
(0.4, [200, 30, 30])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from qlang.vision.perception import Image, SeenBox, bounds

#: The longer side of the box, in pixels, as it is cut.
SIDE = 64
#: The share of the box's size added around it as the background's sample.
CONTEXT = 0.25
#: GrabCut's rounds of re-estimating its colour models.
ROUNDS = 3
#: Below this share of the box, the cut is taken for a failure.
LEAST = 0.08
#: Below this much context for each pixel of the box, the box is taken whole.
LEAST_CONTEXT = 0.15
#: Text's pixels farther than this (Lab units) from its box's edge colour are its ink.
INK = 18.0


@dataclass(frozen=True)
class Segment:
    """An object's pixels: the box as cut (scaled to `SIDE`), and which of its pixels are the object's."""

    crop: Image
    mask: npt.NDArray[np.bool_]
    #: whether GrabCut drew the mask (not the whole box, nor its central ellipse)
    cut: bool = True

    @property
    def pixels(self) -> Image:
        """The object's pixels, one a row (RGB)."""
        return self.crop[self.mask]

    @property
    def share(self) -> float:
        """The share of the box the object fills."""
        return float(self.mask.mean()) if self.mask.size else 0.0


def segment(image: Image, box: SeenBox, others: Iterable[SeenBox] = (), rim: bool = False) -> Segment:
    """The object in `box` cut from its background; `others`: the boxes of the other objects
    seen, which tell a surface under them; with `rim`, even where the box leaves too little of
    the photo around it for the background's colours (its outline, not its colour)."""
    import cv2

    height, width = image.shape[:2]
    x0, y0, x1, y1 = bounds(box, width, height)
    dx, dy = int((x1 - x0) * CONTEXT), int((y1 - y0) * CONTEXT)
    cx0, cy0, cx1, cy1 = max(0, x0 - dx), max(0, y0 - dy), min(width, x1 + dx), min(height, y1 + dy)
    scale = min(1.0, SIDE / max(x1 - x0, y1 - y0))
    around = image[cy0:cy1, cx0:cx1]
    size = (max(1, round(around.shape[1] * scale)), max(1, round(around.shape[0] * scale)))
    scaled = cv2.resize(around, size, interpolation=cv2.INTER_AREA)
    small: Image = np.ascontiguousarray(scaled, dtype=np.uint8)
    # the box within the scaled context, one pixel in from every edge: GrabCut needs background
    left, top = round((x0 - cx0) * scale), round((y0 - cy0) * scale)
    right, bottom = round((x1 - cx0) * scale), round((y1 - cy0) * scale)
    inner = (max(left, 1), max(top, 1), min(right, size[0] - 1), min(bottom, size[1] - 1))
    crop = small[top:bottom, left:right]
    if not rim and around.shape[0] * around.shape[1] < (1 + LEAST_CONTEXT) * (x1 - x0) * (y1 - y0) \
            and any(_within(other, box) for other in others):
        return Segment(crop, np.ones(crop.shape[:2], dtype=bool), cut=False)
    mask = _grabcut(small, inner)[top:bottom, left:right]
    if not mask.size or mask.mean() < LEAST:
        return Segment(crop, _ellipse(crop.shape[0], crop.shape[1]), cut=False)
    return Segment(crop, mask)


def ink(image: Image, box: SeenBox, others: Iterable[SeenBox] = ()) -> Segment:
    """A text region's letters: the pixels of its box (scaled to at most twice `SIDE`) unlike
    the median colour of its edge, the ground they are printed on; the box whole where none
    are (`others` unused: text lies on its ground, under nothing)."""
    import cv2

    from qlang.vision.colour import lab

    height, width = image.shape[:2]
    x0, y0, x1, y1 = bounds(box, width, height)
    scale = min(1.0, 2 * SIDE / max(x1 - x0, y1 - y0))
    size = (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale)))
    crop: Image = np.ascontiguousarray(cv2.resize(image[y0:y1, x0:x1], size, interpolation=cv2.INTER_AREA),
                                       dtype=np.uint8)
    colours = lab(crop.reshape(-1, 3)).reshape(*crop.shape[:2], 3)
    edge = np.zeros(crop.shape[:2], dtype=bool)
    edge[[0, -1]], edge[:, [0, -1]] = True, True
    mask = np.linalg.norm(colours - np.median(colours[edge], axis=0), axis=2) > INK
    return Segment(crop, mask if mask.mean() >= LEAST else np.ones(crop.shape[:2], dtype=bool), cut=False)


def _within(inner: SeenBox, outer: SeenBox) -> bool:
    """Whether a smaller box's centre lies in `outer`."""
    x, y = inner.centre
    return inner.area < outer.area and outer.x0 <= x <= outer.x1 and outer.y0 <= y <= outer.y1


def _grabcut(image: Image, inner: tuple[int, int, int, int]) -> npt.NDArray[np.bool_]:
    """GrabCut's object pixels of `image`, seeded with the rectangle (x0, y0, x1, y1)."""
    import cv2

    x0, y0, x1, y1 = inner
    if x1 - x0 < 3 or y1 - y0 < 3:
        return np.zeros(image.shape[:2], dtype=bool)
    labels = np.zeros(image.shape[:2], dtype=np.uint8)
    background, foreground = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)
    try:
        cv2.grabCut(image, labels, (x0, y0, x1 - x0, y1 - y0), background, foreground, ROUNDS,
                    cv2.GC_INIT_WITH_RECT)
    except cv2.error:  # a region of one colour: no mixture to fit
        return np.zeros(image.shape[:2], dtype=bool)
    return np.isin(labels, (cv2.GC_FGD, cv2.GC_PR_FGD))


def _ellipse(height: int, width: int) -> npt.NDArray[np.bool_]:
    """The ellipse within a box, at half its width and height: mostly the object's, where the
    box is tight."""
    y, x = np.ogrid[:height, :width]
    cy, cx = (height - 1) / 2, (width - 1) / 2
    return np.asarray(((y - cy) / max(height / 4, 0.5)) ** 2 + ((x - cx) / max(width / 4, 0.5)) ** 2 <= 1)
