"""Where the ImageNet classifier finds more: recall and false finds of each source of regions.

    .venv/bin/python bench/regions.py [--photos qlang/data/seek/photo_set.json]

For each existence question of the photo set's calibration half ("Is there a clock?") about a
class some ImageNet label is filed under (`qlang.vision.regions.wanted`; COCO's classes too,
though regions are named only for the others), each source's regions are named
(`qlang.vision.regions.name`) and the class's best probability on them kept.  Where the answer
is "yes" the source finds the class at a cut that probability reaches; where it is "no" that is
a false find.  The sources: the whole photo, the detector's boxes of at least
`regions.PROPOSED` (at most `regions.REGIONS` - 1), the 3 x 3 grid `regions.proposals` uses, a
2 x 2 grid, nine overlapping windows of half the photo's side, and the centre's half and
seven tenths; "shipped" is `regions.proposals` itself.  Only the calibration half is read.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from qlang.evaluate.seeking import CALIBRATION, PHOTO_SET, photo_items
from qlang.ontology import load
from qlang.vision import regions
from qlang.vision.concepts import Concepts
from qlang.vision.image import read
from qlang.vision.perception import Image, SeenBox
from qlang.vision.ssd import SIDE, SSD

EXISTS = re.compile(r"^(?:is|are) there (?:a |an )?(.+?)\?$", re.IGNORECASE)
#: The cuts a find is counted at: the regions' own least (`regions.LEAST`) and `ask`'s detection
#: threshold, which seek's explain step holds every object to.
CUTS = (regions.LEAST, 0.4)

Boxes = list[tuple[float, SeenBox]]


def windows(width: int, height: int, side: float, steps: int) -> list[SeenBox]:
    """`steps` x `steps` windows of `side` of the photo's width and height, evenly spread."""
    w, h = width * side, height * side
    return [SeenBox(x, y, x + w, y + h) for y in np.linspace(0, height - h, steps)
            for x in np.linspace(0, width - w, steps)]


def centre(width: int, height: int) -> list[SeenBox]:
    return [SeenBox(width * (1 - f) / 2, height * (1 - f) / 2, width * (1 + f) / 2, height * (1 + f) / 2)
            for f in (0.5, 0.7)]


#: source -> its regions, from the detector's boxes and the photo's size
SOURCES: dict[str, Callable[[Boxes, int, int], list[SeenBox]]] = {
    "whole": lambda boxes, w, h: [SeenBox(0, 0, w, h)],
    "detector": lambda boxes, w, h: regions.proposals(boxes, w, h, [])[1:regions.REGIONS],
    "grid 3x3": lambda boxes, w, h: windows(w, h, 1 / regions.GRID, regions.GRID),
    "grid 2x2": lambda boxes, w, h: windows(w, h, 1 / 2, 2),
    "windows": lambda boxes, w, h: windows(w, h, 1 / 2, 3),
    "centre": lambda boxes, w, h: centre(w, h),
    "shipped": lambda boxes, w, h: regions.proposals(boxes, w, h, []),
}


def detector_boxes(detector: SSD, image: Image) -> Boxes:
    """Every box the detector proposes, with its score."""
    import cv2

    height, width = image.shape[:2]
    detector.network.setInput(cv2.dnn.blobFromImage(image, size=(SIDE, SIDE), swapRB=False))
    rows = np.asarray(detector.network.forward())[0, 0]
    return [(float(score), SeenBox(x0 * width, y0 * height, x1 * width, y1 * height).clipped(width, height))
            for _, _, score, x0, y0, x1, y1 in rows.tolist()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--photos", type=Path, default=PHOTO_SET)
    args = parser.parse_args()
    ontology, detector = load(), SSD()
    least, regions.LEAST = regions.LEAST, 0.0  # every probability, to count at each cut
    found: dict[str, dict[float, list[int]]] = {s: {cut: [0, 0, 0, 0] for cut in CUTS} for s in SOURCES}
    named, seconds = 0, 0.0
    print(f"{'question':<28} {'gold':<4} " + " ".join(f"{s:>9}" for s in SOURCES))
    for item in photo_items(args.photos, CALIBRATION):
        match = EXISTS.match(item.question or "")
        cls = match.group(1).lower() if match else ""
        if cls not in ontology.classes or not regions.wanted(Concepts(classes=frozenset({cls})), frozenset()):
            continue
        assert item.image is not None
        image = read(item.image)
        height, width = image.shape[:2]
        boxes = detector_boxes(detector, image)
        best = {}
        for source, make in SOURCES.items():
            proposed = make(boxes, width, height)
            start = time.perf_counter()
            seen = regions.name(image, proposed, frozenset({cls}))
            best[source] = max((d.confidence for d in seen), default=0.0)
            seconds += time.perf_counter() - start
            named += len(proposed)
            for cut in CUTS:
                counts = found[source][cut]
                there = item.gold == "yes"
                counts[0 if there else 2] += best[source] >= cut
                counts[1 if there else 3] += 1
        print(f"{item.id:<28} {item.gold:<4} " + " ".join(f"{best[s]:>9.2f}" for s in SOURCES))
    regions.LEAST = least
    print()
    for cut in CUTS:
        rows = [(source, found[source][cut]) for source in SOURCES]
        print(f"at >= {cut:g}: " + "; ".join(f"{source} {c[0]}/{c[1]} found, {c[2]}/{c[3]} false"
                                               for source, c in rows))
    print(f"{1000 * seconds / max(named, 1):.0f} ms a region ({named} named)")


if __name__ == "__main__":
    main()
