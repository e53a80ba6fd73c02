"""Text read from a photo: each region of text a photo shows, its string, box and confidence.

The reader is RapidOCR (`rapidocr-onnxruntime`), which runs PaddleOCR's PP-OCRv4 detection,
direction and recognition models with ONNX Runtime; the models ship inside its wheel, so
nothing is downloaded.  A region is the recogniser's line of text (a sign's words, a number
plate's digits), its box the detector's quadrilateral's bounding box, its confidence the
recogniser's mean character probability.  `qlang.vision` turns each into an object of class
``words`` (``number`` where it is digits) whose name is the string.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from qlang.errors import QlangError, error

#: A region's string that is a number: digits, with separators, a sign or a unit of money.
_NUMBER = re.compile(r"[-+$€£]?\d+(?:[.,:/]\d+)*%?")
#: The least confidence of a region kept (the recogniser's own default drops below 0.5).
THRESHOLD = 0.5
#: The most a photo's longer side is read as times its shorter.  RapidOCR scales the shorter
#: side up to 30 pixels, then to 736 for its detector, whatever the longer: a photo of 1×500
#: pixels became 368,000×736 (2.8 GB of floats, then the kernel's kill), one of 500×1 took
#: 100 s.  A thinner photo is padded below or to its right, in black as RapidOCR pads its own,
#: so no region moves and at most 736 × 736·ASPECT pixels are detected on.
ASPECT = 4


@dataclass(frozen=True, slots=True)
class Region:
    """A region of text: its string, box (x0, y0, x1, y1 in pixels) and confidence in (0, 1]."""

    text: str
    box: tuple[float, float, float, float]
    confidence: float

    @property
    def kind(self) -> str:
        """The GQA class of the region: ``number`` when it is a number, else ``words``."""
        return "number" if _NUMBER.fullmatch(self.text.replace(" ", "")) else "words"


@cache
def _engine() -> Any:
    # ONNX Runtime's telemetry, on by default since 1.32, writes a session file into the
    # temporary folder at import (and would send events): a reader of photos does neither.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as exc:
        raise error(QlangError, "vision", f"reading text needs the package rapidocr-onnxruntime ({exc}); "
                    "install qlang's vision extra (`make install`)") from None
    # One thread: on a busy 2-core machine onnxruntime's threads waiting on each other doubled
    # a read (a 640x480 photo in 1.84 s against 0.89 s at a load of 13).  (Detecting on a
    # smaller image is faster still, 0.27-0.33 s, but reads fewer of the labelled set's words:
    # small print needs RapidOCR's default upscaling, the shorter side to 736 pixels.)
    return RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)


def read(image: np.ndarray, threshold: float = THRESHOLD) -> list[Region]:
    """The regions of text in an RGB image (height x width x 3, uint8), top to bottom then left
    to right, those the recogniser is at least `threshold` sure of."""
    if image.ndim == 2:
        image = np.stack([image] * 3, axis=-1)
    # RapidOCR reads an array as OpenCV's BGR
    found, _ = _engine()(np.ascontiguousarray(_padded(image)[..., 2::-1]), text_score=threshold)
    height, width = image.shape[:2]
    regions = []
    for points, text, score in found or ():  # a box may reach into the padding: kept to the photo
        xs = [min(max(float(p[0]), 0.0), width) for p in points]
        ys = [min(max(float(p[1]), 0.0), height) for p in points]
        if text.strip() and float(score) >= threshold:
            regions.append(Region(text.strip(), (min(xs), min(ys), max(xs), max(ys)), float(score)))
    return sorted(regions, key=lambda r: (round(r.box[1] / 10), r.box[0]))


def _padded(image: np.ndarray) -> np.ndarray:
    """The image, padded below or to its right to at most `ASPECT` times as long as it is wide."""
    height, width = image.shape[:2]
    below, right = max(0, -(-width // ASPECT) - height), max(0, -(-height // ASPECT) - width)
    return np.pad(image, ((0, below), (0, right), (0, 0))) if below or right else image
