"""A perceiver that also reads: the objects another perceiver sees, and each region of text the
photo shows (`qlang.text.ocr`) as an object of class ``words`` (``number`` where it is digits;
words are letters too) whose confidence is the recogniser's and whose text is the string read,
described as the other objects are (`describe`: their colour, and the words ``on`` the sign
they are painted on).

Reading costs most of a photo's time (0.7 s of an `ask --image` of 1.5 s), so it is done only
where the question's concepts need text (`needs_text`: words, numbers, letters, logos, signs,
labels, or every class) or the user asks for it always; its regions are then kept whatever the
concepts: what a sign says is read from them.  A photo is read once a perceiver: seek's second
look at it (`look_closer`) finds the regions of the first, by the pixels' digest.  At most
`Thresholds.objects` of them are kept (`--top-n`), the surest, besides the other objects:
every pair of objects is related, and a page of 400 words made 326,000 relations (a gigabyte;
thousands of words would not fit).
"""

from __future__ import annotations

import hashlib

import numpy as np

from qlang.ontology import load
from qlang.text import ocr
from qlang.vision.concepts import READ_ALSO, Concepts
from qlang.vision.describe import describe
from qlang.vision.perception import Detection, Image, Perceiver, Perception, SeenBox, Thresholds, require

#: The classes that are text, or are where text is read: a question about them needs the reader.
TEXTUAL = frozenset({"words", "number", "letter", "letters", "logo", "sign", "label"})


def needs_text(concepts: Concepts | None) -> bool:
    """Whether the concepts ask about text (None: everything is asked about)."""
    if concepts is None:
        return True
    ontology = load()
    return any(cls in TEXTUAL or not TEXTUAL.isdisjoint(ontology.ancestors(cls)) for cls in concepts.classes)


class Reading:
    """`inner`'s perception, and the photo's text regions (`always`, or where the concepts
    need text)."""

    def __init__(self, inner: Perceiver, always: bool = False) -> None:
        require("rapidocr_onnxruntime", "rapidocr-onnxruntime")
        self.inner = inner
        self.name = inner.name
        self.always = always
        #: the last photo read (its pixels' digest), and its regions
        self._read: tuple[bytes, list[ocr.Region]] | None = None

    def perceive(self, image: Image, concepts: Concepts | None, thresholds: Thresholds) -> Perception:
        perception = self.inner.perceive(image, concepts, thresholds)
        if not (self.always or needs_text(concepts)):
            return perception
        seen = len(perception.objects)
        height, width = image.shape[:2]
        digest = _digest(image)
        if self._read is None or self._read[0] != digest:
            with perception.stages.time("read text"):
                self._read = digest, ocr.read(image)
        found = self._read[1]
        surest = set(sorted(found, key=lambda r: -r.confidence)[:thresholds.objects])
        for region in (r for r in found if r in surest):  # in reading order
            box = SeenBox(*region.box).clipped(width, height)
            read = Detection(region.kind, region.confidence, box, "text", text=region.text,
                             classes=READ_ALSO.get(region.kind, ()))
            perception.objects.append(read)
        describe(image, perception, concepts, thresholds, seen)
        return perception


def _digest(image: Image) -> bytes:
    """The photo's shape and pixels, digested (a millisecond for a megapixel)."""
    pixels = np.ascontiguousarray(image)
    return repr(pixels.shape).encode() + hashlib.blake2b(pixels.data, digest_size=16).digest()
