"""The embedded perceiver: SSD-MobileNet-v2 (COCO) through OpenCV's DNN module, its labels in
GQA's words, optionally refined by an ImageNet classifier on each crop; the classes COCO lacks
from the ImageNet classifier on regions (`regions`); colour, size and relations by classical
means (`describe`); sky, trees, grass and leaves by colour, texture and place (`stuff`); a
plain background by the frame's colour (`background`); the photo's subject, which `this`
names, from the detector, the classifier and the stuff (`subject`)."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from qlang.ontology import load
from qlang.vision import background, models, regions, stuff, subject
from qlang.vision.concepts import Concepts
from qlang.vision.describe import describe
from qlang.vision.labels import COCO, COCO_RENAMED
from qlang.vision.perception import Detection, Image, Perception, SeenBox, Thresholds, require
from qlang.vision.sight import SIGHTS

#: The detector's input side; SSD-MobileNet-v2 was trained at 300×300.
SIDE = 300


def relevant(name: str, concepts: Concepts | None) -> bool:
    """Whether a detected class answers to the concepts: the class, a category above it, or a
    category it names (a `person` may be the `man` asked for)."""
    if concepts is None or not concepts.classes:
        return True
    ontology = load()
    related = {name, *ontology.ancestors(name), *ontology.class_members.get(name, ())}
    return bool(related & concepts.classes)


@cache
def _network() -> Any:
    require("cv2", "opencv-python-headless")
    import cv2

    graph, config = models.path(models.SSD_GRAPH), models.path(models.SSD_CONFIG)
    try:
        network = cv2.dnn.readNetFromTensorflow(str(graph), str(config))
        network.setInput(np.zeros((1, 3, SIDE, SIDE), dtype=np.float32))
        network.forward()  # OpenCV prepares the graph on the first run: a load cost
    except cv2.error as exc:
        raise models.damaged(graph.parent, str(exc).splitlines()[0]) from None
    return network


class SSD:
    name = "ssd"

    def __init__(self, refine: bool = False) -> None:
        self.refine = refine
        self.network = _network()

    def perceive(self, image: Image, concepts: Concepts | None, thresholds: Thresholds) -> Perception:
        import cv2

        height, width = image.shape[:2]
        self.network.setInput(cv2.dnn.blobFromImage(image, size=(SIDE, SIDE), swapRB=False))
        rows = np.asarray(self.network.forward())[0, 0]
        perception = Perception(width, height, self.name)
        boxes, detected = [], []
        for _, class_id, score, *corners in sorted(rows.tolist(), key=lambda r: -r[2]):
            label = COCO.get(int(class_id)) or ""
            name = COCO_RENAMED.get(label, label) or None
            box = SeenBox(corners[0] * width, corners[1] * height,
                          corners[2] * width, corners[3] * height).clipped(width, height)
            boxes.append((float(score), box))
            if score < thresholds.detection or name is None:
                continue
            detection = Detection(name, float(score), box, label)
            detected.append(detection)
            if not relevant(name, concepts) or len(perception.objects) >= thresholds.objects:
                continue
            if self.refine:
                from qlang.vision.classifier import refine

                refine(image, detection)
            perception.objects.append(detection)
        if concepts is not None and subject.asked(concepts.classes):
            with perception.stages.time("find the subject"):
                subjects = subject.proposals(image, detected)
            kept = {id(d) for d in perception.objects}
            room = max(0, thresholds.objects - len(kept))
            perception.objects += [d for d in subjects
                                   if d.confidence >= thresholds.detection and id(d) not in kept][:room]
        unnamed = regions.wanted(concepts, SIGHTS[self.name].classes or frozenset(),
                                 (d.name for d in perception.objects))
        if unnamed:
            with perception.stages.time("classify regions"):
                proposed = regions.proposals(boxes, width, height, [d.box for d in perception.objects])
                found = regions.name(image, proposed, unnamed)
            found = [d for d in found if d.confidence >= thresholds.detection]
            perception.objects = regions.merge(perception.objects, found)[:thresholds.objects]
        if asked := stuff.CLASSES if concepts is None else stuff.CLASSES & concepts.classes:
            with perception.stages.time("find stuff"):
                found = [d for d in stuff.find(image, asked) if d.confidence >= thresholds.detection]
            perception.objects += found[:max(0, thresholds.objects - len(perception.objects))]
        if asked := background.CLASSES if concepts is None else background.CLASSES & concepts.classes:
            with perception.stages.time("find the background"):
                found = background.find(image, asked, (d.box for d in detected))
            perception.objects += found[:max(0, thresholds.objects - len(perception.objects))]
        describe(image, perception, concepts, thresholds, seen=[d.box for d in detected])
        return perception
