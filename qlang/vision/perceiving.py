"""From a photo to a weighted scene: which concepts to look for, which perceiver looks, and how
long each stage takes (the figure a user of `ask --image` sees)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qlang import jsontext, limits
from qlang.errors import error
from qlang.ir import Node
from qlang.timing import Stages
from qlang.vision import weighted
from qlang.vision.concepts import Concepts, expand, extract, mentioned
from qlang.vision.perception import Perceiver, Perception, Thresholds, VisionError


@dataclass(frozen=True)
class Options:
    backend: str = "ssd"
    detector: str | None = None
    clip: str | None = None
    device: str | None = None
    refine: bool = False
    thresholds: Thresholds = field(default_factory=Thresholds)
    #: also read the photo's text, each region an object (`qlang.vision.reading`): always
    #: (True), never (False), or where the question's concepts need text (None)
    text: bool | None = None


def _ssd(options: Options) -> Perceiver:
    from qlang.vision.ssd import SSD

    return SSD(refine=options.refine)


def _owlvit(options: Options) -> Perceiver:
    if options.detector is None or options.clip is None:
        raise error(VisionError, "usage", "--backend owlvit needs --detector DIR and --clip DIR",
                    hint="directories of OWL-ViT (or OWLv2) and CLIP weights for transformers")
    from qlang.vision.owlvit import OwlViT

    return OwlViT(options.detector, options.clip, options.device)


#: perceiver name -> factory (each imports its libraries only when chosen)
PERCEIVERS: dict[str, Callable[[Options], Perceiver]] = {"ssd": _ssd, "owlvit": _owlvit}


def make_perceiver(options: Options) -> Perceiver:
    """The perceiver the options name, with its models loaded (and the text reader's, unless
    `options.text` is off)."""
    perceiver = PERCEIVERS[options.backend](options)
    if options.text is False:
        return perceiver
    from qlang.vision.reading import Reading

    return Reading(perceiver, always=bool(options.text))


def from_program(root: Node) -> Concepts:
    """What a (gold or translated) program needs, widened to what may answer to it."""
    return expand(extract(root))


def from_question(question: str) -> Concepts:
    """The rule-based extractor's concepts, from the question's words alone."""
    return mentioned(question)


def read_concepts(path: str) -> Concepts:
    """A concepts file: `{"classes": [...], "attributes": [...], "values": [...], "relations": [...]}`."""
    try:
        data = jsontext.loads(limits.read(path, limits.PROGRAM).decode("utf-8"))
        return expand(Concepts(**{k: frozenset(map(str, data.get(k, []))) for k in Concepts().to_json()}))
    except (OSError, ValueError, AttributeError, TypeError) as exc:
        raise error(VisionError, "concepts", f"not a concepts file ({exc})", path=path) from None


@dataclass(frozen=True, slots=True)
class Perceived:
    """A photo perceived: its pixels (for drawing), what the perceiver saw, the weighted scene
    and its ASP facts (encoded once: building them is how the scene is validated)."""

    pixels: Any
    perception: Perception
    graph: dict[str, Any]
    facts: str


def perceive(path: str, concepts: Concepts | None, perceiver: Perceiver, thresholds: Thresholds,
             stages: Stages) -> Perceived:
    """Image → perception → validated weighted scene and its facts."""
    from qlang.vision.image import read  # numpy and the image readers: only when perceiving

    with stages.time("read image"):
        image = read(path)
    start = time.perf_counter()
    perception = perceiver.perceive(image, concepts, thresholds)
    inner = perception.stages.seconds
    stages.add("perceive", time.perf_counter() - start - sum(inner.values()))
    for stage, seconds in inner.items():
        stages.add(stage, seconds)
    with stages.time("build scene"):
        graph = weighted.scene(perception, Path(path).name)
        facts = weighted.facts(graph)
    return Perceived(image, perception, graph, facts)
