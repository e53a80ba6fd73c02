"""Crop refinement: an ImageNet classifier (EfficientNet-Lite3, through LiteRT) names each box,
and a name more specific than the detector's replaces it when WordNet files it under the
detector's (ImageNet's `scuba diver` is a person, its `Egyptian cat` a cat).

ImageNet's names become GQA classes by the same hypernym walk as COCO's (`labels.gqa_class`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from qlang.vision import models
from qlang.vision.labels import gqa_class
from qlang.vision.perception import Detection, Image, require
from qlang.wordnet import equal_or_hyponym

#: Below this the classifier's guess is ignored.
LEAST = 0.3


@cache
def _interpreter() -> tuple[Any, list[str]]:
    require("ai_edge_litert", "ai-edge-litert")
    from ai_edge_litert.interpreter import Interpreter

    model, names = models.path(models.CLASSIFIER), models.path(models.CLASSIFIER_LABELS)
    try:
        interpreter = Interpreter(model_path=str(model))
        interpreter.allocate_tensors()
    except (ValueError, RuntimeError) as exc:  # LiteRT's words for a model it cannot run
        raise models.damaged(model, exc) from None
    try:
        labels = names.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise models.damaged(names, exc) from None
    return interpreter, labels


def classify(crop: Image) -> tuple[str, float]:
    """ImageNet's likeliest label for a crop, and its probability."""
    import cv2

    interpreter, labels = _interpreter()
    (entry,), (exit_,) = interpreter.get_input_details(), interpreter.get_output_details()
    side = int(entry["shape"][1])
    interpreter.set_tensor(entry["index"], cv2.resize(crop, (side, side))[None].astype(np.uint8))
    interpreter.invoke()
    scale, zero = exit_["quantization"]
    scores = (interpreter.get_tensor(exit_["index"])[0].astype(np.float32) - zero) * scale
    best = int(scores.argmax())
    return labels[best], float(scores[best])


def refine(image: Image, detection: Detection) -> None:
    """Rename the detection when the classifier is sure of a kind of what the detector saw."""
    box = detection.box
    crop = image[int(box.y0):max(int(box.y1), int(box.y0) + 1), int(box.x0):max(int(box.x1), int(box.x0) + 1)]
    label, p = classify(crop)
    name = gqa_class(label)
    if p >= LEAST and name is not None and name != detection.name and equal_or_hyponym(name, detection.name):
        detection.label = f"{detection.label} / {label}"
        detection.name = name
