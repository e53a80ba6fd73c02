"""The background: the plain region around what a photo shows.

"What color is the background?" reaches the perceivers as GQA's `ground` (GQA has no
`background`), and no detector has a box for it: a coin on black velvet, a cell under a
microscope, the moon's grey surface.  Where a photo's background is plain it is easy to find:
the photo's frame (its outer `FRAME` of each side) is mostly one colour, and the background is
the pixels of about that colour connected to the frame, outside the boxes of the objects seen
(a close-up's cat fills its frame, and is no background).  It must reach the photo's foot
(ground is below, a sky above), and the frame must be plain (`PLAIN` of it that colour), or
the photo's edge nearly all of it (`SURROUNDED` of its outermost pixels): a street's frame is
sky, walls and road, and there is no one background to name, while a round subject on black
(a retina, a colour wheel) reaches into the frame's band but leaves the edge black.

Its colour is named by the colour namer (`qlang.vision.colour`) from its own pixels.  Like the
other cues, a region is evidence that the background is there, never that it is not.

>>> import numpy as np
>>> image = np.zeros((60, 90, 3), dtype=np.uint8)
>>> image[20:40, 30:60] = (200, 180, 40)
>>> [(d.name, max(d.colours, key=d.colours.get)) for d in find(image, frozenset({"ground"}))]
[('ground', 'black')]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeAlias

from qlang.vision.perception import Detection, Image, SeenBox, shrunk

if TYPE_CHECKING:  # numpy only when looking: the perceiver's sight lists the classes below
    import numpy as np
    import numpy.typing as npt

Mask: TypeAlias = "npt.NDArray[np.bool_]"
Lab: TypeAlias = "npt.NDArray[np.floating[Any]]"

#: The classes the background answers to.
CLASSES = frozenset({"ground"})
#: The width the photo is read at.
SIDE = 96
#: The frame's width, a share of each side.
FRAME = 0.1
#: Pixels within this Lab distance of the frame's middle colour are the background's colour.
NEAR = 18.0
#: The least share of the frame and of the photo the background covers, and the most of the
#: photo: a background is behind something, and a photo of one colour throughout (a blank page,
#: a picture wholly transparent) shows nothing to be behind.
PLAIN, LEAST, MOST = 0.7, 0.2, 0.97
#: The least share of the photo's outermost pixels a background all round its subject covers
#: (the calibration half's retina 0.96, its street 0.73).
SURROUNDED = 0.9
#: The confidence of the background: `BASE`, and up to `GAIN` more by its share of the photo.
BASE, GAIN = 0.5, 0.4


def find(image: Image, classes: frozenset[str], objects: Iterable[SeenBox] = ()) -> list[Detection]:
    """The photo's plain background outside the `objects`' boxes, named by each class of
    `classes` it answers to."""
    import numpy as np

    from qlang.vision.colour import colours, lab

    names = sorted(CLASSES & classes)
    if not names:
        return []
    height, width = image.shape[:2]
    small = shrunk(image, SIDE)
    pixels = lab(small.reshape(-1, 3)).reshape(*small.shape[:2], 3)
    frame = _frame(small.shape[0], small.shape[1])
    middle = np.median(pixels[frame], axis=0)
    near = np.linalg.norm(pixels - middle, axis=2) <= NEAR
    scale = width / small.shape[1], height / small.shape[0]
    for box in objects:
        near[int(box.y0 / scale[1]):int(np.ceil(box.y1 / scale[1])),
             int(box.x0 / scale[0]):int(np.ceil(box.x1 / scale[0]))] = False
    region = _reaching(near, frame)
    plain = region[frame].mean() >= PLAIN or region[_edge(region)].mean() >= SURROUNDED
    if not region[-1].any() or not plain or not LEAST <= region.mean() <= MOST:
        return []
    ys, xs = np.nonzero(region)
    box = SeenBox(xs.min() * scale[0], ys.min() * scale[1],
                  (xs.max() + 1) * scale[0], (ys.max() + 1) * scale[1])
    confidence = BASE + GAIN * min(1.0, float(region.mean()) / 0.5)
    named = colours(small[region])
    label = "background: the frame's colour"
    return [Detection(name, confidence, box, label, colours=named) for name in names]


def _frame(height: int, width: int) -> Mask:
    import numpy as np

    band = max(1, round(FRAME * min(height, width)))
    frame = np.zeros((height, width), dtype=bool)
    frame[:band], frame[-band:], frame[:, :band], frame[:, -band:] = True, True, True, True
    return frame


def _edge(mask: Mask) -> Mask:
    """The photo's outermost pixels."""
    import numpy as np

    edge = np.zeros(mask.shape, dtype=bool)
    edge[[0, -1]], edge[:, [0, -1]] = True, True
    return edge


def _reaching(mask: Mask, frame: Mask) -> Mask:
    """The connected parts of `mask` that reach the frame."""
    import cv2
    import numpy as np

    _, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    kept = np.unique(labels[frame & mask])
    return np.isin(labels, kept[kept > 0])
