"""The colour namer calibrated on labelled crops, and its accuracy on them.

    .venv/bin/python bench/colours.py [--cut]

The crops are tests/fixtures/colours (`colours.json` says what each is and where it was cut
from); `--cut` cuts them again from the photos the packages ship.  Each crop's object is cut
from its box's background (`qlang.vision.segment`) and clustered once; then every calibration
of a grid is scored on the crops of the calibration half by the mean log-likelihood of the
colours a person named (by their basic terms, `qlang.vision.colour.FAMILIES`), and the best
is reported with its accuracy (the likeliest colour is one of those named) on each half,
beside the uncalibrated namer's (the whole box, no segmentation, the former constants) and
the shipped constants' (`qlang.vision.colour.CALIBRATED`: where the crops tell calibrations
apart by less than their noise, the photo set's calibration half chose among them).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from qlang.vision import colour
from qlang.vision.image import read
from qlang.vision.perception import Image, SeenBox
from qlang.vision.segment import CONTEXT, segment

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "colours"
#: the longer side of a committed crop
SIDE = 128
GRID = {"spread": (8.0, 10.0, 12.0, 14.0, 18.0, 24.0), "lightness": (0.25, 0.5, 0.75, 1.0),
        "salience": (0.0, 1.0, 2.0, 3.0), "gain": (1.0, 1.25, 1.5, 2.0), "grey": (0.0, 5.0, 10.0, 15.0, 20.0)}


def labels() -> dict[str, Any]:
    return dict(json.loads((FIXTURES / "colours.json").read_text()))


def _photo(name: str) -> Image:
    if name == "motorcycle":
        from skimage import data

        return np.asarray(data.stereo_motorcycle()[0])
    if name in ("coffee", "astronaut", "rocket", "camera", "chelsea", "horse"):
        from skimage import data

        image = np.asarray(getattr(data, name)())
        grey = image.astype(np.uint8) * 255 if image.dtype == bool else image  # a drawing's True is white
        return grey if grey.ndim == 3 else np.repeat(grey[..., None], 3, axis=2)
    if name in ("china", "flower"):
        from sklearn.datasets import load_sample_image

        return np.asarray(load_sample_image(f"{name}.jpg"))
    import matplotlib

    return read(Path(matplotlib.get_data_path()) / "sample_data" / f"{name}.jpg")


def cut() -> None:
    """Each crop: its box and a `CONTEXT` border of the photo, scaled to `SIDE`, and where the
    box lies in it."""
    import cv2
    from PIL import Image as Picture

    table = labels()
    for crop in table["crops"]:
        image = _photo(crop["photo"])
        height, width = image.shape[:2]
        x0, y0, x1, y1 = crop["box"]
        dx, dy = int((x1 - x0) * CONTEXT), int((y1 - y0) * CONTEXT)
        cx0, cy0, cx1, cy1 = max(0, x0 - dx), max(0, y0 - dy), min(width, x1 + dx), min(height, y1 + dy)
        scale = min(1.0, SIDE / max(cx1 - cx0, cy1 - cy0))
        size = (round((cx1 - cx0) * scale), round((cy1 - cy0) * scale))
        small = cv2.resize(image[cy0:cy1, cx0:cx1], size, interpolation=cv2.INTER_AREA)
        Picture.fromarray(small).save(FIXTURES / f"{crop['name'].replace(' ', '_')}.png", optimize=True)
        crop["in_crop"] = [round((x0 - cx0) * scale), round((y0 - cy0) * scale),
                           round((x1 - cx0) * scale), round((y1 - cy0) * scale)]
    (FIXTURES / "colours.json").write_text(json.dumps(table, indent=1) + "\n")


def named_as(entry: dict[str, Any]) -> set[str]:
    """The basic colour terms of the colours a person named for a crop."""
    return {colour.FAMILIES.get(c, c) for c in entry["colours"]}


def crop(entry: dict[str, Any]) -> tuple[Image, SeenBox, list[SeenBox]]:
    """A committed crop's pixels, its object's box and the other objects' boxes in it."""
    others = [SeenBox(*box) for box in entry.get("others", ())]
    return read(FIXTURES / f"{entry['name'].replace(' ', '_')}.png"), SeenBox(*entry["in_crop"]), others


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--cut", action="store_true", help="cut the crops again from the packages' photos")
    args = parser.parse_args()
    if args.cut:
        cut()
    entries = labels()["crops"]
    clustered, whole = [], []
    for entry in entries:
        image, box, others = crop(entry)
        clustered.append(colour.clusters(segment(image, box, others).pixels))
        inside = image[int(box.y0):int(box.y1), int(box.x0):int(box.x1)]
        whole.append(colour.clusters(inside))

    def scores(calibration: colour.Calibration, clusters: list[Any], half: str) -> tuple[float, float]:
        logs, right = [], []
        for entry, (centres, shares) in zip(entries, clusters, strict=True):
            if entry["half"] != half:
                continue
            p = dict(zip(colour.NAMES, colour.score(centres, shares, calibration), strict=True))
            named = named_as(entry)
            logs.append(math.log(max(sum(p[c] for c in named), 1e-9)))
            right.append(max(p, key=p.__getitem__) in named)
        return float(np.mean(logs)), float(np.mean(right))

    grid = [colour.Calibration(*values) for values in itertools.product(*GRID.values())]
    best = max(grid, key=lambda c: scores(c, clustered, "calibration")[0])
    former = colour.Calibration(spread=12.0, lightness=1.0, salience=0.0, gain=1.0, grey=0.0)
    for label, calibration, clusters in (("whole box, former constants", former, whole),
                                         ("segmented, former constants", former, clustered),
                                         (f"segmented, calibrated {best}", best, clustered),
                                         (f"segmented, shipped {colour.CALIBRATED}", colour.CALIBRATED,
                                          clustered)):
        shown = [f"{half} log-likelihood {ll:.2f} accuracy {acc:.0%}" for half in ("calibration", "test")
                 for ll, acc in [scores(calibration, clusters, half)]]
        print(f"{label}: {'; '.join(shown)}")
    for entry, (centres, shares) in zip(entries, clustered, strict=True):
        p = dict(zip(colour.NAMES, colour.score(centres, shares, best), strict=True))
        top = sorted(p, key=p.__getitem__, reverse=True)[:3]
        print(f"  {entry['half']:<11} {entry['name']:<14} {'/'.join(entry['colours']):<30} "
              + ", ".join(f"{c} {p[c]:.2f}" for c in top))


if __name__ == "__main__":
    main()
