"""Colour without CLIP: GQA's colour names scored from an object's own pixels (`segment`).

The pixels are clustered into a few colours; each cluster's mean is compared with a prototype
of every GQA colour in CIE Lab, where distance tracks perceived difference, and a Gaussian of
that distance (`spread` Lab units) makes the comparison a likelihood.  Lightness counts
`lightness` times for a vivid cluster (shading darkens a red motorcycle's flank, it does not
make it another colour) but fully for a grey one (below `grey` chroma): lightness is all that
tells black from grey from white.  A colour's score is the clusters' likelihoods weighted by
their share of the pixels and by how vivid they are (`salience`): people name a red motorcycle
by its red, not by its black tyres and grey engine.

The prototypes are GQA's shades, but an object is named by the basic colour term each is a
shade of (`FAMILIES`, Berlin and Kay's eleven), each cluster compared with the family's
nearest shade: scattered over GQA's shades, a cat's fur was brown, brunette, light brown, dark
brown and tan at 0.11 to 0.13 each, and no answer; by family it is brown at 0.5, as people
name it (every colour the labelled photos ask for is a basic term, but for the coins' silver,
which is grey as well).  The constants are calibrated on labelled crops (`bench/colours.py`,
tests/fixtures/colours).

>>> patch = np.full((20, 20, 3), (200, 30, 30), dtype=np.uint8)
>>> max(colours(patch).items(), key=lambda kv: kv[1])[0]
'red'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from qlang.vision.perception import Image

#: sRGB prototypes of GQA's colour values (`dark`, a tone more than a hue, is left out), and
#: of the shades between them that GQA has no word for: a dark grey midway in lightness
#: between black's and grey's (a cell's background, 68 in every channel, is no black).
PROTOTYPES: dict[str, tuple[int, int, int]] = {
    "beige": (225, 205, 165), "black": (20, 20, 20), "blond": (220, 190, 120),
    "blue": (40, 80, 200), "brown": (120, 75, 40), "brunette": (80, 50, 30),
    "cream colored": (245, 235, 205), "dark blue": (20, 30, 90), "dark brown": (70, 45, 25),
    "gold": (210, 170, 50), "gray": (128, 128, 128), "green": (50, 150, 50),
    "khaki": (190, 175, 120), "light blue": (150, 190, 230), "light brown": (170, 125, 80),
    "maroon": (110, 20, 35), "orange": (240, 130, 30), "pink": (240, 150, 180),
    "purple": (120, 50, 150), "red": (200, 30, 30), "silver": (190, 190, 195),
    "tan": (200, 165, 120), "teal": (0, 128, 128), "white": (245, 245, 245),
    "yellow": (240, 220, 40), "dark gray": (70, 70, 70),
}
#: the basic colour term each prototype is a shade of
FAMILIES: dict[str, str] = {
    "beige": "brown", "black": "black", "blond": "yellow", "blue": "blue", "brown": "brown",
    "brunette": "brown", "cream colored": "white", "dark blue": "blue", "dark brown": "brown",
    "gold": "yellow", "gray": "gray", "green": "green", "khaki": "brown", "light blue": "blue",
    "light brown": "brown", "maroon": "red", "orange": "orange", "pink": "pink",
    "purple": "purple", "red": "red", "silver": "gray", "tan": "brown", "teal": "blue",
    "white": "white", "yellow": "yellow", "dark gray": "gray",
}


@dataclass(frozen=True)
class Calibration:
    """How colours are named: the Gaussian's width in Lab units, the weight of lightness in the
    distance for a vivid cluster, how much a cluster's chroma (per 100 Lab units) raises its
    weight, how much its chroma is raised before it is compared (a photo's colours are duller
    than their names' prototypes: a navy jacket in shade is nearly black), and the chroma
    below which a cluster is grey, its lightness counting fully."""

    spread: float = 14.0
    lightness: float = 0.25
    salience: float = 3.0
    gain: float = 1.0
    grey: float = 15.0


#: the constants `bench/colours.py` chose on the labelled crops, where the crops cannot tell
#: them apart (a spread of 12 to 14 and a grey of 5 to 15 within 0.05 of the best mean
#: log-likelihood) those of the photo set's calibration half: at a spread of 12 the cup's
#: coffee passes for orange at 0.67, at 14 it is 0.57 against the others
CALIBRATED = Calibration()
CLUSTERS = 3
_SAMPLE = 4000


def lab(rgb: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """sRGB colours (rows of 0..255) in CIE Lab (D65)."""
    import cv2

    pixels = (np.asarray(rgb, dtype=np.float32) / 255.0).reshape(-1, 1, 3)
    return np.asarray(cv2.cvtColor(pixels, cv2.COLOR_RGB2Lab), dtype=np.float32).reshape(-1, 3)


SHADES = list(PROTOTYPES)
_PROTOTYPES = lab(np.array([PROTOTYPES[n] for n in SHADES], dtype=np.float32))
#: the colours an object is named by: the shades' basic terms
NAMES = sorted(set(FAMILIES.values()))
_FOLD = np.array([[FAMILIES[shade] == name for name in NAMES] for shade in SHADES])


def colours(pixels: Image, calibration: Calibration = CALIBRATED) -> dict[str, float]:
    """The likelihood of each GQA colour for an object of these pixels (RGB, any shape ending
    in 3: a crop, or the rows of a mask's pixels); empty where there are none."""
    if np.asarray(pixels).size == 0:
        return {}
    return dict(zip(NAMES, map(float, score(*clusters(pixels), calibration)), strict=True))


def score(centres: npt.NDArray[np.float32], shares: npt.NDArray[np.float32],
          calibration: Calibration) -> npt.NDArray[np.float64]:
    """Each colour's likelihood (of `NAMES`) from clusters (Lab centres, their shares of the
    pixels), each cluster compared with the colour's nearest shade: a colour of many shades
    is no likelier for having them."""
    chroma = np.hypot(centres[:, 1], centres[:, 2])
    vivid = np.clip(chroma / max(calibration.grey, 1e-9), 0.0, 1.0)
    weight = np.ones((len(centres), 1, 3))
    weight[:, 0, 0] = 1.0 - (1.0 - calibration.lightness) * vivid
    scaled = centres * np.array([1.0, calibration.gain, calibration.gain])
    distances = np.linalg.norm((scaled[:, None, :] - _PROTOTYPES[None, :, :]) * weight, axis=2)
    nearest = (distances[:, :, None] + np.where(_FOLD, 0.0, np.inf)[None]).min(axis=1)
    likelihood = np.exp(-0.5 * (nearest / calibration.spread) ** 2)
    likelihood /= np.maximum(likelihood.sum(axis=1, keepdims=True), 1e-12)
    salient = shares * np.exp(calibration.salience * chroma / 100.0)
    return np.asarray((salient / salient.sum()) @ likelihood, dtype=np.float64)


def clusters(pixels: Image) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """The Lab clusters of an object's pixels (for calibrating: clustering is the slow part)."""
    rows = np.asarray(pixels).reshape(-1, 3)
    return _clusters(lab(rows[:: max(1, len(rows) // _SAMPLE)]))


def _clusters(pixels: npt.NDArray[np.float32]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """k-means centres of the pixels and each centre's share (deterministic: seeded)."""
    import cv2

    k = min(CLUSTERS, len(np.unique(pixels.round(), axis=0)))
    if k <= 1:
        return pixels.mean(axis=0, keepdims=True), np.ones(1, dtype=np.float32)
    cv2.setRNGSeed(0)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, labels, centres = cv2.kmeans(pixels, k, None, criteria, 2, cv2.KMEANS_PP_CENTERS)  # type: ignore[call-overload]
    shares = (np.bincount(labels.ravel(), minlength=k) / len(labels)).astype(np.float32)
    return np.asarray(centres, dtype=np.float32), shares
