"""Stuff the detector has no boxes for: sky, trees, grass and leaves, as regions of the photo's
own pixels picked out by colour, texture and place.

COCO's detector knows things, not stuff: on a pagoda above a lake with trees it finds nothing,
and no segmentation weights ship here.  What stuff looks like is simple enough to say in a few
rules over a small copy of the photo (`SIDE` pixels wide): each pixel's hue, saturation and
value, and its texture (the spread of its neighbourhood's grey levels).  Sky is blue or a
pale, even grey-white, smooth, and reaches down from the photo's top edge; trees are green
and textured, in a photo that shows sky; grass is green and textured along the bottom edge;
leaves are any large green area (a close-up's blurred foliage too).  Each kind is a table row
(`KINDS`); its regions together are one object (stuff is not counted), whose box bounds its
pixels.

Its colour is named by the hue families its pixels fall in (`Detection.colours`), not by the
colour namer's prototypes: haze pales a blue sky to a near-white, shade darkens trees to olive,
and people still call them blue and green.

The rules miss much (all of a grey photo's stuff, autumn trees, night skies), so
a region is evidence that the stuff is there, never that it is not: the perceiver's sight
lists these classes as cued, whose "no" is "cannot tell" (`qlang.vision.recall.doubt`).  The
thresholds were set by looking at the calibration half of the photo set, whose photos show
no coloured sky, trees or grass: they keep its indoor, close-up and drawn photos free of
stuff, and the test half alone says how well the cues find it.

>>> import numpy as np
>>> image = np.zeros((60, 90, 3), dtype=np.uint8)
>>> image[:30] = (90, 140, 220)
>>> image[30:] = np.random.default_rng(0).integers(0, 120, (30, 90, 3)) * [0.3, 1.0, 0.3]
>>> sorted(d.name for d in find(image, frozenset({"sky", "grass", "tree"})))
['grass', 'sky', 'tree']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from qlang.vision.perception import Detection, Image, SeenBox, shrunk

if TYPE_CHECKING:  # numpy only when looking: the perceiver's sight lists the classes below
    import numpy as np
    import numpy.typing as npt

Mask: TypeAlias = "npt.NDArray[np.bool_]"
Plane: TypeAlias = "npt.NDArray[np.floating[Any]]"

#: The width the photo is read at: stuff is large, and the rules need no detail.
SIDE = 96
#: A pixel is smooth below this texture (the standard deviation of its 5×5 grey levels, 0..1)
#: and textured above `TEXTURED`.
SMOOTH, TEXTURED = 0.035, 0.05
#: A photo this little saturated on average is grey: its sky is not told from paper or a wall.
GREY = 0.05
#: The confidence of a region: `BASE`, and up to `GAIN` more by its share of the photo.
BASE, GAIN = 0.5, 0.4


@dataclass(frozen=True)
class Features:
    """A photo's small copy, and per pixel its hue (degrees), saturation and value (0..1) and
    texture."""

    small: Image
    hue: Plane
    saturation: Plane
    value: Plane
    texture: Plane

    def green(self, widest: float) -> Mask:
        """Foliage's colours: yellow-green to cyan (up to hue `widest`), not grey, not black."""
        return (self.hue >= 50) & (self.hue <= widest) & (self.saturation >= 0.25) & (self.value >= 0.1)

    def blue(self) -> Mask:
        """Blue, or tinted blue (a hazy sky's near-white)."""
        return (self.hue >= 195) & (self.hue <= 250) & (self.saturation >= 0.08) & (self.value >= 0.15)

    def pale(self) -> Mask:
        """White to light grey, untinted."""
        return (self.saturation < 0.15) & (self.value >= 0.75) & ~self.blue()


def features(image: Image) -> Features:
    import cv2
    import numpy as np

    small = shrunk(image, SIDE)
    hsv = cv2.cvtColor(small, cv2.COLOR_RGB2HSV_FULL).astype(np.float32)
    grey = cv2.cvtColor(small, cv2.COLOR_RGB2GRAY).astype(np.float32) / 255
    mean = cv2.blur(grey, (5, 5))
    texture = np.sqrt(np.maximum(cv2.blur(grey * grey, (5, 5)) - mean * mean, 0))
    return Features(small, hsv[..., 0] * 360 / 256, hsv[..., 1] / 255, hsv[..., 2] / 255, texture)


def _sky(f: Features) -> Mask:
    return (f.blue() | f.pale()) & (f.texture < SMOOTH)


def _sky_colours(f: Features, region: Mask) -> dict[str, float]:
    blue, pale = f.blue()[region], f.pale()[region]
    white = pale & (f.value[region] >= 0.85)
    return {"blue": float(blue.mean()), "white": float(white.mean()), "gray": float((pale & ~white).mean())}


def _green_colours(f: Features, region: Mask) -> dict[str, float]:
    yellow = (f.hue[region] < 55) & (f.value[region] >= 0.6)
    return {"green": float((~yellow).mean()), "yellow": float(yellow.mean())}


def _leafy(f: Features) -> Mask:
    return f.green(150) & (f.texture >= TEXTURED)


def _leaves(f: Features) -> Mask:
    return f.green(185)


@dataclass(frozen=True)
class Stuff:
    """A kind of stuff: the GQA classes it answers to, its pixels and their colours, the
    photo's edges its regions reach and do not reach ("top", "bottom"; None: any place),
    whether it needs sky in the photo, and the least share of the photo a region of it covers."""

    classes: frozenset[str]
    pixels: Callable[[Features], Mask]
    colours: Callable[[Features, Mask], dict[str, float]]
    edge: str | None
    outdoors: bool
    least: float
    #: the edge none of its parts reaches (sky is above something; a drawing's white is not sky)
    never: str | None = None


KINDS = (
    Stuff(frozenset({"sky"}), _sky, _sky_colours, "top", False, 0.05, never="bottom"),
    Stuff(frozenset({"tree", "trees", "bush", "bushes"}), _leafy, _green_colours, None, True, 0.03),
    Stuff(frozenset({"grass", "lawn"}), _leafy, _green_colours, "bottom", False, 0.05),
    Stuff(frozenset({"leaves", "leaf", "foliage"}), _leaves, _green_colours, None, False, 0.1),
)
CLASSES = frozenset().union(*(kind.classes for kind in KINDS))


def find(image: Image, classes: frozenset[str]) -> list[Detection]:
    """The regions of stuff of `classes` the photo shows, each named by the class asked."""
    import numpy as np

    asked = [(kind, sorted(kind.classes & classes)) for kind in KINDS if kind.classes & classes]
    if not asked:
        return []
    f = features(image)
    if float(f.saturation.mean()) < GREY:
        return []
    outdoors = _region(_sky(f), KINDS[0]).any()
    height, width = image.shape[:2]
    scale = width / f.small.shape[1], height / f.small.shape[0]
    found = []
    for kind, names in asked:
        region = _region(kind.pixels(f), kind)
        if not region.any() or (kind.outdoors and not outdoors):
            continue
        ys, xs = np.nonzero(region)
        box = SeenBox(xs.min() * scale[0], ys.min() * scale[1],
                      (xs.max() + 1) * scale[0], (ys.max() + 1) * scale[1])
        confidence = BASE + GAIN * min(1.0, float(region.mean()) / 0.5)
        colours = kind.colours(f, region)
        found += [Detection(name, confidence, box, "stuff: colour and texture", colours=colours)
                  for name in names]
    return found


#: a region's edge -> whether a part of it reaches that edge of the photo; `never` asks whether
#: it runs along half of it (a dark sky may touch the foot of a photo at its corners)
_REACHES: dict[str | None, Callable[[Mask], bool]] = {
    "top": lambda part: bool(part[0].any()), "bottom": lambda part: bool(part[-1].any()),
    None: lambda part: True,
}
_ALONG: dict[str, Callable[[Mask], bool]] = {
    "top": lambda part: bool(part[0].mean() >= 0.5), "bottom": lambda part: bool(part[-1].mean() >= 0.5),
}


def _region(mask: Mask, kind: Stuff) -> Mask:
    """The connected parts of `mask` that reach the kind's edge (and not the edge it never
    reaches), together, where they cover enough of the photo (else nothing)."""
    import cv2
    import numpy as np

    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    kept = [i for i in range(1, count) if _REACHES[kind.edge](labels == i)
            and not (kind.never and _ALONG[kind.never](labels == i))]
    region = np.isin(labels, kept)
    return region if region.mean() >= kind.least else np.zeros_like(region)
