"""The photo's subject: what a question's `this` points at.

GQA's programs select `this` for the thing a question points at ("Is this a skateboarder or a
snowboarder?" is ``select: this``, then ``choose name``), and qlang's translators write "What is
this?" as ``query(unique(select(scene(), this)), name)``.  A GQA scene graph's annotator
resolved the pronoun; on a photo nothing is called `this`, so every such question was "cannot
tell".  The subject of a photo is what fills it, and three perceivers propose one:

- the detector's boxes that cover at least `PROMINENT` of the photo (a close-up's cat);
- the ImageNet classifier on the whole photo, its `TOP` labels as GQA classes through WordNet
  (`regions.names`), each class at its labels' summed probability where that reaches `LEAST`;
- stuff that covers at least `PROMINENT` of the photo (a close-up of grass or leaves).

Each proposal is an object answering to `this` besides its own name (`Detection.classes`), at
its own confidence.  They compete: the solver's likeliest subject is the answer, and where
none stands out seek says "cannot tell".
"""

from __future__ import annotations

from collections.abc import Iterable

from qlang.vision import stuff
from qlang.vision.perception import Detection, Image, SeenBox

#: The class GQA's programs select for the thing a question points at.
SUBJECT = "this"
#: The least share of the photo a box or a stuff region of its subject covers.
PROMINENT = 0.5
#: ImageNet labels read for the whole photo.
TOP = 5
#: The least probability of a class the classifier names for the whole photo.  ImageNet's
#: classifier is sure of wrong classes on drawings and scientific images: on the calibration
#: half's 14 photos, the likeliest class of the whole photo was right for 2 of 3 at >= 0.6 (a
#: cat, coffee; the deep field a bubble), 3 of 6 at >= 0.5 (a drawn horse a dog, a logo a
#: sign) and 3 of 9 at >= 0.3.
LEAST = 0.6
#: The stuff a photo may be of, one name for each kind.
STUFF = frozenset({"grass", "leaves", "sky", "tree"})


def asked(classes: frozenset[str]) -> bool:
    return SUBJECT in classes


def proposals(image: Image, detections: Iterable[Detection]) -> list[Detection]:
    """The photo's candidate subjects, each answering to `SUBJECT`: the prominent ones of the
    detector's `detections` (of any class), the classifier's classes for the whole photo, and
    prominent stuff."""
    from qlang.vision.classifier import ranked
    from qlang.vision.regions import names

    height, width = image.shape[:2]
    whole = SeenBox(0, 0, width, height)
    found = [d for d in detections if _prominent(d.box, whole)]
    scores: dict[str, tuple[float, str]] = {}
    for label, p in ranked(image, TOP):
        for named in names(label):
            total, first = scores.get(named, (0.0, label))
            scores[named] = (total + p, first)
    found += [Detection(named, min(p, 1.0), whole, f"imagenet: {label}")
              for named, (p, label) in scores.items() if p >= LEAST]
    found += [d for d in stuff.find(image, STUFF) if _prominent(d.box, whole)]
    return [_as_subject(d) for d in found]


def _prominent(box: SeenBox, whole: SeenBox) -> bool:
    return box.area >= PROMINENT * whole.area


def _as_subject(detection: Detection) -> Detection:
    detection.classes = (*detection.classes, SUBJECT)
    return detection
