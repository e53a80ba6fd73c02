"""Colour without CLIP: GQA's colour names scored from an object's own pixels (`segment`).

The pixels are clustered into a few colours; each cluster's mean is compared with a prototype
of every GQA colour in CIE Lab, where distance tracks perceived difference (lightness counting
`lightness` times: shading darkens a red motorcycle's flank, it does not make it another
colour), and a Gaussian of that distance (`spread` Lab units) makes the comparison a
likelihood.  A colour's score is the clusters' likelihoods weighted by their share of the
pixels and by how vivid they are (`salience`): people name a red motorcycle by its red, not by
its black tyres and grey engine.  The constants are calibrated on labelled crops
(`bench/colours.py`, tests/fixtures/colours).

>>> patch = np.full((20, 20, 3), (200, 30, 30), dtype=np.uint8)
>>> max(colours(patch).items(), key=lambda kv: kv[1])[0]
'red'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from qlang.vision.perception import Image

#: sRGB prototypes of GQA's colour values (`dark`, a tone more than a hue, is left out).
PROTOTYPES: dict[str, tuple[int, int, int]] = {
    "beige": (225, 205, 165), "black": (20, 20, 20), "blond": (220, 190, 120),
    "blue": (40, 80, 200), "brown": (120, 75, 40), "brunette": (80, 50, 30),
    "cream colored": (245, 235, 205), "dark blue": (20, 30, 90), "dark brown": (70, 45, 25),
    "gold": (210, 170, 50), "gray": (128, 128, 128), "green": (50, 150, 50),
    "khaki": (190, 175, 120), "light blue": (150, 190, 230), "light brown": (170, 125, 80),
    "maroon": (110, 20, 35), "orange": (240, 130, 30), "pink": (240, 150, 180),
    "purple": (120, 50, 150), "red": (200, 30, 30), "silver": (190, 190, 195),
    "tan": (200, 165, 120), "teal": (0, 128, 128), "white": (245, 245, 245),
    "yellow": (240, 220, 40),
}


@dataclass(frozen=True)
class Calibration:
    """How colours are named: the Gaussian's width in Lab units, the weight of lightness in the
    distance, how much a cluster's chroma (per 100 Lab units) raises its weight, and how much
    its chroma is raised before it is compared (a photo's colours are duller than their names'
    prototypes: a navy jacket in shade is nearly black)."""

    spread: float = 14.0
    lightness: float = 0.25
    salience: float = 3.0
    gain: float = 1.0


#: the constants `bench/colours.py` chose on the labelled crops
CALIBRATED = Calibration()
CLUSTERS = 3
_SAMPLE = 4000


def lab(rgb: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """sRGB colours (rows of 0..255) in CIE Lab (D65)."""
    import cv2

    pixels = (np.asarray(rgb, dtype=np.float32) / 255.0).reshape(-1, 1, 3)
    return np.asarray(cv2.cvtColor(pixels, cv2.COLOR_RGB2Lab), dtype=np.float32).reshape(-1, 3)


NAMES = list(PROTOTYPES)
_PROTOTYPES = lab(np.array([PROTOTYPES[n] for n in NAMES], dtype=np.float32))


def colours(pixels: Image, calibration: Calibration = CALIBRATED) -> dict[str, float]:
    """The likelihood of each GQA colour for an object of these pixels (RGB, any shape ending
    in 3: a crop, or the rows of a mask's pixels); empty where there are none."""
    if np.asarray(pixels).size == 0:
        return {}
    return dict(zip(NAMES, map(float, score(*clusters(pixels), calibration)), strict=True))


def score(centres: npt.NDArray[np.float32], shares: npt.NDArray[np.float32],
          calibration: Calibration) -> npt.NDArray[np.float64]:
    """Each colour's likelihood from clusters (Lab centres, their shares of the pixels)."""
    weight = np.array([calibration.lightness, 1.0, 1.0])
    vivid = centres * np.array([1.0, calibration.gain, calibration.gain])
    distances = np.linalg.norm((vivid[:, None, :] - _PROTOTYPES[None, :, :]) * weight, axis=2)
    likelihood = np.exp(-0.5 * (distances / calibration.spread) ** 2)
    likelihood /= np.maximum(likelihood.sum(axis=1, keepdims=True), 1e-12)
    chroma = np.hypot(centres[:, 1], centres[:, 2]) / 100.0
    salient = shares * np.exp(calibration.salience * chroma)
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
