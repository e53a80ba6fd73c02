"""Colour without CLIP: GQA's colour names scored from a box's pixels.

The box's central part (the edges are mostly background) is clustered into a few colours; each
cluster's mean is compared with a prototype of every GQA colour in CIE Lab, where distance
tracks perceived difference, and a Gaussian of that distance (`SPREAD` Lab units) makes the
comparison a likelihood.  A colour's score is the clusters' likelihoods weighted by their share
of the pixels, so a cup on a wooden table is mostly the cup's colour.

>>> patch = np.full((20, 20, 3), (200, 30, 30), dtype=np.uint8)
>>> max(colours(patch).items(), key=lambda kv: kv[1])[0]
'red'
"""

from __future__ import annotations

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
SPREAD = 12.0
CLUSTERS = 3
_SAMPLE = 4000
_MARGIN = 0.2


def lab(rgb: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """sRGB colours (rows of 0..255) in CIE Lab (D65)."""
    import cv2

    pixels = (np.asarray(rgb, dtype=np.float32) / 255.0).reshape(-1, 1, 3)
    return np.asarray(cv2.cvtColor(pixels, cv2.COLOR_RGB2Lab), dtype=np.float32).reshape(-1, 3)


_NAMES = list(PROTOTYPES)
_PROTOTYPES = lab(np.array([PROTOTYPES[n] for n in _NAMES], dtype=np.float32))


def colours(patch: Image) -> dict[str, float]:
    """The likelihood of each GQA colour for the object in `patch` (an RGB crop)."""
    height, width = patch.shape[:2]
    dy, dx = int(height * _MARGIN), int(width * _MARGIN)
    core = patch[dy:height - dy or None, dx:width - dx or None].reshape(-1, 3)
    if len(core) == 0:
        return {}
    pixels = lab(core[:: max(1, len(core) // _SAMPLE)].astype(np.float32))
    centres, shares = _clusters(pixels)
    distances = np.linalg.norm(centres[:, None, :] - _PROTOTYPES[None, :, :], axis=2)
    likelihood = np.exp(-0.5 * (distances / SPREAD) ** 2)
    likelihood /= np.maximum(likelihood.sum(axis=1, keepdims=True), 1e-12)
    scores = shares @ likelihood
    return {name: float(p) for name, p in zip(_NAMES, scores, strict=True)}


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
