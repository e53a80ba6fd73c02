"""More classes from the models already bundled: the ImageNet classifier named on regions.

COCO's detector knows 80 classes; the bundled ImageNet classifier (EfficientNet-Lite3) knows
1,000, among them helmets, cameras, hats, park benches and mountain bikes, but it names a whole
picture.  Named on regions, it finds objects of those classes: the regions are the detector's
own boxes of every score (its low-score boxes are often an object it cannot name, OpenCV's
selective search being in the contrib package only), the whole image and the cells of a
`GRID` × `GRID` grid over it (a close-up's flower, an outdoor photo's building, which no box
holds); each region's top `TOP` ImageNet labels become GQA classes through WordNet
(`labels.imagenet_classes`), or the question's word GQA lacks that WordNet files them under
(`filed`: a missile is a rocket), and a class the question needs is kept at its probability (its
labels' summed) where that reaches `LEAST`.  A scene's label also names what such scenes
show (`labels.SHOWS`: a lakeside shows water).  A region that repeats a detection of the
same class family (the class, a class above or below it) over the same pixels is dropped:
the detector's box is kept (`merge`).

Regions are named only for the classes a question needs that the detector has no label for
and saw nothing of, so a question about COCO's classes costs nothing more.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from qlang.ontology import load
from qlang.vision.concepts import Concepts
from qlang.vision.filed import filed, open_class
from qlang.vision.kinds import kind_of
from qlang.vision.labels import SHOWS, imagenet_classes
from qlang.vision.perception import Detection, Image, SeenBox, crop

#: Regions named at most (the whole image, then the detector's likeliest boxes), before the grid.
REGIONS = 8
#: The grid's cells a side.
GRID = 3
#: The least detector score of a box taken as a region.
PROPOSED = 0.05
#: ImageNet labels read per region.
TOP = 5
#: The least probability of a class found on a region.
LEAST = 0.25
#: Regions overlapping more than this are one.
SAME = 0.7


def wanted(concepts: Concepts | None, detector: frozenset[str], seen: Iterable[str] = ()) -> frozenset[str]:
    """The classes to name regions for: those the concepts ask for that the detector has no
    label for and saw nothing of (`seen`: the names of its detections), and that some ImageNet
    label is filed under."""
    if concepts is None:
        return frozenset()
    named = frozenset(c for c in imagenet_classes().values() if c is not None).union(*SHOWS.values())
    seen = frozenset(seen)
    return frozenset(c for c in concepts.classes - detector
                     if (filed(c) if open_class(c) else any(_answers(n, c) for n in named))
                     and not any(_answers(s, c) for s in seen))


def _answers(name: str, cls: str) -> bool:
    """Whether an object called `name` is a `cls` (the ontology, else WordNet)."""
    return load().is_a(name, cls) or kind_of(name, cls)


def proposals(boxes: Iterable[tuple[float, SeenBox]], width: int, height: int,
              detected: Iterable[SeenBox] = ()) -> list[SeenBox]:
    """The regions to name: the whole image and the detector's boxes of at least `PROPOSED`,
    likeliest first, one of those that cover the same pixels, at most `REGIONS`; then the
    grid's cells that no `detected` object's box covers half of (a cell of a cat is part of
    a cat, which ImageNet calls a cougar)."""
    chosen: list[SeenBox] = [SeenBox(0, 0, width, height)]
    for score, box in sorted(boxes, key=lambda sb: -sb[0]):
        if len(chosen) >= REGIONS:
            break
        if score >= PROPOSED and box.area >= 0.01 * width * height \
                and all(iou(box, other) < SAME for other in chosen):
            chosen.append(box)
    w, h = width / GRID, height / GRID
    cells = [SeenBox(j * w, i * h, (j + 1) * w, (i + 1) * h) for i in range(GRID) for j in range(GRID)]
    seen = list(detected)
    return chosen + [cell for cell in cells if all(cell.intersection(box) < cell.area / 2 for box in seen)]


def iou(a: SeenBox, b: SeenBox) -> float:
    shared = a.intersection(b)
    return shared / max(a.area + b.area - shared, 1.0)


def name(image: Image, regions: list[SeenBox], classes: frozenset[str]) -> list[Detection]:
    """The objects of `classes` the classifier finds on the regions."""
    from qlang.vision.classifier import ranked

    found = []
    opened = [cls for cls in classes if open_class(cls)]
    for box in regions:
        scores: dict[str, tuple[float, str]] = {}
        for label, p in ranked(crop(image, box), TOP):
            for named in names(label) + [cls for cls in opened if label in filed(cls)]:
                if any(_answers(named, cls) for cls in classes):
                    total, first = scores.get(named, (0.0, label))
                    scores[named] = (total + p, first)
        for named, (p, label) in scores.items():
            if p >= LEAST:
                found.append(Detection(named, float(np.clip(p, 0.0, 1.0)), box, f"imagenet: {label}"))
    return found


def names(label: str) -> list[str]:
    """The GQA classes an ImageNet label names: its own, and what its scene shows (a question's
    word outside GQA's classes, `filed`, is named apart)."""
    named = imagenet_classes().get(label)
    return ([] if named is None else [named]) + sorted(SHOWS.get(label, frozenset()))


def merge(detections: list[Detection], regions: list[Detection]) -> list[Detection]:
    """The detections, and each region's object that no detection or likelier region of its
    class family holds already."""
    ontology = load()
    kept = list(detections)
    for region in sorted(regions, key=lambda d: -d.confidence):
        family = {region.name, *ontology.ancestors(region.name)}
        if not any(iou(region.box, d.box) >= 0.5
                   and (d.name in family or region.name in ontology.ancestors(d.name)) for d in kept):
            kept.append(region)
    return kept
