"""A perceiver that also reads: the objects another perceiver sees, and each region of text the
photo shows (`qlang.text.ocr`) as an object of class ``words`` (``number`` where it is digits)
whose confidence is the recogniser's and whose text is the string read, related to the other
objects by the same geometry (`describe.relate`: the words ``on`` the sign they are painted on).

Text regions are kept whatever the question's concepts: what a sign says is read from them.
"""

from __future__ import annotations

from qlang.text import ocr
from qlang.vision.concepts import Concepts
from qlang.vision.describe import relate
from qlang.vision.perception import Detection, Image, Perceiver, Perception, SeenBox, Thresholds, require


class Reading:
    """`inner`'s perception, and the photo's text regions."""

    def __init__(self, inner: Perceiver) -> None:
        require("rapidocr_onnxruntime", "rapidocr-onnxruntime")
        self.inner = inner
        self.name = inner.name

    def perceive(self, image: Image, concepts: Concepts | None, thresholds: Thresholds) -> Perception:
        perception = self.inner.perceive(image, concepts, thresholds)
        seen = len(perception.objects)
        height, width = image.shape[:2]
        with perception.stages.time("read text"):
            found = ocr.read(image)
        for region in found:
            box = SeenBox(*region.box).clipped(width, height)
            read = Detection(region.kind, region.confidence, box, "text", text=region.text)
            perception.objects.append(read)
        relate(perception, concepts, thresholds, seen)
        return perception
