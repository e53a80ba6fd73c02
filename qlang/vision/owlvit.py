"""OWL-ViT finds the objects, CLIP scores their attributes and relations (Eq. 8): the seed's
GS-VQA pipeline, through transformers' own classes, for a user who has the weights.

`--detector` is an OWL-ViT or OWLv2 directory (or a model id, with hub access) and `--clip` a
CLIP one.  Text queries are the concepts' classes; each detection's crop is scored for the
attribute values asked for against its bare class (`a red cup` vs `a cup`), and each pair's
union box for the relations asked for against `and` (`a cup on a table` vs `a cup and a
table`).  Crops and prompts go through the models in batches.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from qlang.errors import error
from qlang.ontology import load
from qlang.vision import geometry
from qlang.vision.concepts import Concepts
from qlang.vision.describe import keep, wanted
from qlang.vision.perception import (
    Detection,
    Image,
    Perception,
    SeenBox,
    Thresholds,
    VisionError,
    crop,
    require,
)
from qlang.vision.scoring import target_vs_neutral_array

#: Boxes overlapping more than this (intersection over union) are one object.
NMS_IOU = 0.5
#: the fewest pixels a side of a box's crop has (a degenerate box still has one)
_LEAST = 4
#: Categories the scene encoder derives from the box; CLIP is not asked.
FROM_BOX = frozenset({"hposition", "vposition"})


def _load(kind: str, path: str, device: str) -> tuple[Any, Any]:
    """A model and its processor from a directory (or model id)."""
    require("transformers", "transformers")
    from safetensors import SafetensorError
    from transformers import AutoModelForZeroShotObjectDetection, AutoProcessor, CLIPModel

    loader = AutoModelForZeroShotObjectDetection if kind == "detector" else CLIPModel
    try:
        model = loader.from_pretrained(path).to(device).eval()  # type: ignore[arg-type]
        processor = AutoProcessor.from_pretrained(path)  # type: ignore[no-untyped-call]
    except (OSError, ValueError, SafetensorError) as exc:  # the last: weights cut short, or no weights
        raise error(VisionError, "vision", f"--{kind} {path}: cannot load the model ({exc})".strip(),
                    hint="a local directory of transformers weights, or a model id with hub access") \
            from None
    return model, processor


def default_device() -> str:
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


class OwlViT:
    name = "owlvit"

    def __init__(self, detector: str, clip: str, device: str | None = None, batch: int = 32,
                 scale: float | None = None) -> None:
        self.device = device or default_device()
        self.detector, self.detector_processor = _load("detector", detector, self.device)
        self.clip, self.clip_processor = _load("clip", clip, self.device)
        self.batch = batch
        #: Eq. 8's temperature: CLIP's own unless given (see `qlang.vision.scoring`)
        self.scale = float(self.clip.logit_scale.detach().exp()) if scale is None else scale

    def perceive(self, image: Image, concepts: Concepts | None, thresholds: Thresholds) -> Perception:
        height, width = image.shape[:2]
        perception = Perception(width, height, self.name)
        classes = sorted(concepts.classes if concepts is not None and concepts.classes else load().classes)
        perception.objects = self.detect(image, classes, thresholds)
        ontology = load()
        asked = sorted(concepts.attributes) if concepts is not None else []
        for category in dict.fromkeys(["color", "size", "material", "shape", *asked]):
            if category in ontology.categories and category not in FROM_BOX and wanted(category, concepts):
                values = sorted(ontology.categories[category] if concepts is None
                                else ontology.categories[category] & concepts.values)
                self.attributes(image, perception.objects, values, thresholds)
        names = sorted(geometry.RELATIONS if concepts is None else concepts.relations)
        self.relations(image, perception, names, thresholds)
        return perception

    def detect(self, image: Image, classes: list[str], thresholds: Thresholds) -> list[Detection]:
        """OWL-ViT over the class queries (in batches), then one box per object (NMS)."""
        import torch

        height, width = image.shape[:2]
        found: list[Detection] = []
        for start in range(0, len(classes), self.batch):
            queries = classes[start:start + self.batch]
            inputs = self.detector_processor(text=[[f"a photo of a {c}" for c in queries]],
                                             images=image, padding=True, truncation=True,
                                             return_tensors="pt").to(self.device)
            with torch.no_grad():
                outputs = self.detector(**inputs)
            result = self.detector_processor.post_process_grounded_object_detection(
                outputs, threshold=thresholds.detection, target_sizes=[(height, width)])[0]
            for box, score, label in zip(result["boxes"].tolist(), result["scores"].tolist(),
                                         result["labels"].tolist(), strict=True):
                name = queries[int(label)]
                found.append(Detection(name, float(score), SeenBox(*box).clipped(width, height), name))
        return _suppress(sorted(found, key=lambda d: -d.confidence))[:thresholds.objects]

    def attributes(self, image: Image, objects: list[Detection], values: list[str],
                   thresholds: Thresholds) -> None:
        """Each object's likelihood of each value (Eq. 8: `a {value} {class}` vs `a {class}`)."""
        if not objects or not values:
            return
        crops = self.image_embeddings([crop(image, d.box, _LEAST) for d in objects])
        for detection, seen in zip(objects, crops, strict=True):
            prompts = [f"a photo of a {v} {detection.name}" for v in values]
            texts = self.text_embeddings([*prompts, f"a photo of a {detection.name}"])
            similarity = texts @ seen
            p = target_vs_neutral_array(similarity[:-1], similarity[-1], self.scale)
            keep(detection, dict(zip(values, p.tolist(), strict=True)), thresholds)

    def relations(self, image: Image, perception: Perception, names: list[str],
                  thresholds: Thresholds) -> None:
        """Each pair's likelihood of each relation, on their union box (Eq. 8 against `and`)."""
        objects = perception.objects
        pairs = [(i, j) for i in range(len(objects)) for j in range(len(objects)) if i != j]
        if not pairs or not names:
            return
        crops = self.image_embeddings([crop(image, objects[i].box.union(objects[j].box), _LEAST)
                                       for i, j in pairs])
        for (i, j), seen in zip(pairs, crops, strict=True):
            a, b = objects[i].name, objects[j].name
            texts = self.text_embeddings([*(f"a photo of a {a} {r} a {b}" for r in names),
                                          f"a photo of a {a} and a {b}"])
            similarity = texts @ seen
            for name, p in zip(names, target_vs_neutral_array(similarity[:-1], similarity[-1], self.scale),
                               strict=True):
                if p >= thresholds.relation:
                    perception.relate(i, name, j, float(p))

    def image_embeddings(self, crops: list[Image]) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Unit CLIP embeddings of image crops."""
        import torch

        rows = []
        for start in range(0, len(crops), self.batch):
            inputs = self.clip_processor(images=crops[start:start + self.batch], return_tensors="pt",
                                         input_data_format="channels_last")
            with torch.no_grad():
                rows.append(_unit(self.clip.get_image_features(pixel_values=inputs["pixel_values"].to(self.device))))
        return np.concatenate(rows)

    def text_embeddings(self, prompts: list[str]) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Unit CLIP embeddings of prompts."""
        import torch

        rows = []
        for start in range(0, len(prompts), self.batch):
            inputs = self.clip_processor(text=prompts[start:start + self.batch], padding=True,
                                         truncation=True, return_tensors="pt").to(self.device)
            with torch.no_grad():
                rows.append(_unit(self.clip.get_text_features(input_ids=inputs["input_ids"],
                                                              attention_mask=inputs["attention_mask"])))
        return np.concatenate(rows)


def _unit(features: Any) -> np.ndarray[Any, np.dtype[np.float64]]:
    tensor = features if not hasattr(features, "pooler_output") else features.pooler_output
    rows = tensor.detach().float().cpu().numpy().astype(np.float64)
    return np.asarray(rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12))


def _iou(a: SeenBox, b: SeenBox) -> float:
    inter = a.intersection(b)
    return inter / max(a.area + b.area - inter, 1e-9)


def _suppress(detections: list[Detection]) -> list[Detection]:
    """Greedy non-maximum suppression across classes: the most confident box of each object."""
    kept: list[Detection] = []
    for d in detections:
        if all(_iou(d.box, k.box) <= NMS_IOU for k in kept):
            kept.append(d)
    return kept
