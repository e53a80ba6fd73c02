"""What every perceiver produces: objects with boxes and confidences, attributes and relations
with likelihoods, all in GQA's words.  One small interface, so the pipeline does not care which
models looked at the image."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, TypeAlias

from qlang import limits
from qlang.errors import QlangError, error
from qlang.timing import Stages
from qlang.vision.concepts import Concepts

if TYPE_CHECKING:  # numpy costs every qlangc command 0.15 s to import; only perceivers need it
    import numpy as np
    import numpy.typing as npt

#: An RGB image, height × width × 3, uint8.
Image: TypeAlias = "npt.NDArray[np.uint8]"


class VisionError(QlangError):
    """An image cannot be read, a model cannot be loaded, or an optional package is missing."""


def require(module: str, package: str) -> None:
    """Fail with the package to install when an optional dependency is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise error(VisionError, "vision", f"the visual front end needs the package '{package}'",
                    hint=f"pip install {package}  (or pip install 'qlang[vision]')")


@dataclass(frozen=True)
class SeenBox:
    """A box in pixels, corners (x0, y0) top left and (x1, y1) bottom right."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return max(0.0, self.x1 - self.x0)

    @property
    def height(self) -> float:
        return max(0.0, self.y1 - self.y0)

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def centre(self) -> tuple[float, float]:
        return (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2

    def intersection(self, other: SeenBox) -> float:
        return SeenBox(max(self.x0, other.x0), max(self.y0, other.y0),
                   min(self.x1, other.x1), min(self.y1, other.y1)).area

    def union(self, other: SeenBox) -> SeenBox:
        """The smallest box holding both (where CLIP looks for a relation)."""
        return SeenBox(min(self.x0, other.x0), min(self.y0, other.y0),
                   max(self.x1, other.x1), max(self.y1, other.y1))

    def clipped(self, width: int, height: int) -> SeenBox:
        return SeenBox(min(max(self.x0, 0), width), min(max(self.y0, 0), height),
                   min(max(self.x1, 0), width), min(max(self.y1, 0), height))


def bounds(box: SeenBox, width: int, height: int, least: int = 1) -> tuple[int, int, int, int]:
    """A box's pixel bounds (x0, y0, x1, y1) in a photo of `width` x `height`: the box clipped
    to the photo, its edges cut to whole pixels, at least `least` pixels each way where the photo has
    them (a box clipped to nothing at its right or bottom edge gets the last ones)."""
    box = box.clipped(width, height)
    x0, y0 = max(min(int(box.x0), width - least), 0), max(min(int(box.y0), height - least), 0)
    return x0, y0, max(int(box.x1), x0 + least), max(int(box.y1), y0 + least)


def crop(image: Image, box: SeenBox, least: int = 1) -> Image:
    """The pixels of a box (`bounds`)."""
    x0, y0, x1, y1 = bounds(box, image.shape[1], image.shape[0], least)
    return image[y0:y1, x0:x1]


#: The most times its width a photo's small copy is tall (`shrunk`).
TALLEST = 4


def shrunk(image: Image, side: int) -> Image:
    """A small copy of the photo for rules that need no detail: `side` pixels wide, as tall as
    its aspect makes it up to `TALLEST` times that (a photo of 4000×3 pixels would have been
    128,000 tall, and its stuff taken minutes to find)."""
    import cv2
    import numpy as np

    height, width = image.shape[:2]
    size = (side, min(TALLEST * side, max(1, round(side * height / max(width, 1)))))
    return np.ascontiguousarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), dtype=np.uint8)


@dataclass
class Detection:
    """One object: its GQA class, how sure the detector is, the detector's own label, and the
    likelihood of each attribute value scored for it."""

    name: str
    confidence: float
    box: SeenBox
    label: str
    attributes: dict[str, float] = field(default_factory=dict)
    #: the text it shows, where it is a region of text (`qlang.vision.reading`)
    text: str | None = None
    #: the likelihood of each of its colours, where the perceiver named them itself
    #: (`qlang.vision.stuff`, by hue family) rather than from the pixels in its box
    colours: dict[str, float] | None = None
    #: further classes it answers to besides its name (the photo's subject is `this`:
    #: `qlang.vision.subject`)
    classes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeenRelation:
    """`subject` and `object` index `Perception.objects`."""

    subject: int
    name: str
    object: int
    confidence: float


@dataclass
class Perception:
    width: int
    height: int
    backend: str
    objects: list[Detection] = field(default_factory=list)
    relations: list[SeenRelation] = field(default_factory=list)
    #: the perceiver's own stages beyond detecting (segmenting, classifying regions), for the
    #: timing line
    stages: Stages = field(default_factory=Stages)

    def relate(self, subject: int, name: str, object: int, confidence: float) -> None:
        """Keep a relation seen, within `limits.RELATIONS`: past it the scene is refused
        before it fills the memory, with the settings that make it smaller."""
        if len(self.relations) >= limits.RELATIONS.most:
            raise error(limits.TooLarge, "limit", f"more than {len(self.relations):,} relations among "
                        f"{len(self.objects):,} objects: {limits.RELATIONS.bound()}",
                        hint="raise --relation-threshold, lower --top-n, or ask about fewer relations")
        self.relations.append(SeenRelation(subject, name, object, confidence))


@dataclass(frozen=True)
class Thresholds:
    """What is kept: detections, attribute values and relations at least this likely; at most
    `objects` detections and `values` values per attribute category.

    A relation not kept is false to the solver, so its cut is where a "no" about it may be
    sure: one scored 0.45 from boxes (a helmet half beside a person) kept is a "no" 0.55
    likely, which seek and `ask` refuse, where cut at 0.5 it was a sure "no".  Only the
    relations a question names are scored; on the photo set's calibration half and the old 39
    no answer moved from 0.5 to 0.2."""

    detection: float = 0.4
    attribute: float = 0.2
    relation: float = 0.2
    objects: int = 20
    values: int = 3


class Perceiver(Protocol):
    name: str

    def perceive(self, image: Image, concepts: Concepts | None, thresholds: Thresholds) -> Perception:
        """The objects, attributes and relations `concepts` asks for (None: all it can see)."""
        ...
