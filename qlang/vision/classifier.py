"""Crop refinement: an ImageNet classifier (EfficientNet-Lite3, through LiteRT) names each box,
and a name more specific than the detector's replaces it when WordNet files it under the
detector's (ImageNet's `scuba diver` is a person, its `Egyptian cat` a cat).

ImageNet's names become GQA classes by the same hypernym walk as COCO's (`labels.gqa_class`),
read from a table made once (`labels.imagenet_classes`): loading WordNet would cost seconds.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import numpy as np

from qlang.vision import models
from qlang.vision.kinds import kind_of
from qlang.vision.labels import imagenet_classes
from qlang.vision.perception import Detection, Image, crop, require

#: Below this the classifier's guess is ignored.
LEAST = 0.3


@cache
def _interpreter() -> tuple[Any, list[str]]:
    require("ai_edge_litert", "ai-edge-litert")
    from ai_edge_litert.interpreter import Interpreter

    model, names = models.path(models.CLASSIFIER), models.path(models.CLASSIFIER_LABELS)
    try:
        interpreter = Interpreter(model_path=str(model))
        with _native_log_silenced():
            interpreter.allocate_tensors()
    except (ValueError, RuntimeError) as exc:  # LiteRT's words for a model it cannot run
        raise models.damaged(model, exc) from None
    try:
        labels = names.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise models.damaged(names, exc) from None
    return interpreter, labels


@contextmanager
def _native_log_silenced() -> Iterator[None]:
    """Standard error (file descriptor 2) on the null device for a while: LiteRT's C++ prints
    "INFO: Created TensorFlow Lite XNNPACK delegate for CPU." there on every first question
    about a photo, and no setting of its turns that off.  A failure still comes back as an
    exception; where descriptor 2 is closed there is nothing to silence."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    sys.stderr.flush()
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def ranked(crop: Image, top: int = 1) -> list[tuple[str, float]]:
    """ImageNet's `top` likeliest labels for a crop, with their probabilities."""
    import cv2

    interpreter, labels = _interpreter()
    (entry,), (exit_,) = interpreter.get_input_details(), interpreter.get_output_details()
    side = int(entry["shape"][1])
    interpreter.set_tensor(entry["index"], cv2.resize(crop, (side, side))[None].astype(np.uint8))
    interpreter.invoke()
    scale, zero = exit_["quantization"]
    scores = (interpreter.get_tensor(exit_["index"])[0].astype(np.float32) - zero) * scale
    return [(labels[i], float(scores[i])) for i in np.argsort(-scores)[:top]]


def classify(crop: Image) -> tuple[str, float]:
    """ImageNet's likeliest label for a crop, and its probability."""
    return ranked(crop)[0]


def refine(image: Image, detection: Detection) -> None:
    """Rename the detection when the classifier is sure of a kind of what the detector saw."""
    label, p = classify(crop(image, detection.box))
    name = imagenet_classes().get(label)
    if p >= LEAST and name is not None and name != detection.name and kind_of(name, detection.name):
        detection.label = f"{detection.label} / {label}"
        detection.name = name
