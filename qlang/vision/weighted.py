"""A perception as qlang's weighted-scene JSON (see `qlang.asp.scene`): the objects with their
class and detection confidence, boxes (from which the encoder derives positions), attributes
and relations with their likelihoods; validated by encoding it, as every scene is."""

from __future__ import annotations

from typing import Any

from qlang.asp.scene import encode
from qlang.vision.perception import Perception

#: Likelihoods are written with this many decimals, and never as 0 (the encoder needs p > 0).
DECIMALS = 4


def _p(p: float) -> float:
    return min(1.0, max(round(p, DECIMALS), 10.0 ** -DECIMALS))


def object_id(index: int) -> str:
    return f"o{index}"


def scene(perception: Perception, image: str | None = None) -> dict[str, Any]:
    """The weighted scene of a perception (`image`: the photo's name, kept for the reader)."""
    objects: dict[str, Any] = {}
    for index, d in enumerate(perception.objects):
        box = d.box
        objects[object_id(index)] = {
            "name": d.name, "confidence": _p(d.confidence), "label": d.label,
            "x": round(box.x0), "y": round(box.y0), "w": round(box.width), "h": round(box.height),
            "attributes": [{"value": v, "confidence": _p(p)} for v, p in d.attributes.items()],
            "relations": [],
            **({"text": d.text} if d.text is not None else {}),
            **({"classes": list(d.classes)} if d.classes else {}),
        }
    for r in perception.relations:
        objects[object_id(r.subject)]["relations"].append(
            {"name": r.name, "object": object_id(r.object), "confidence": _p(r.confidence)})
    head = {"image": image} if image is not None else {}
    return {**head, "width": perception.width, "height": perception.height,
            "backend": perception.backend, "objects": objects}


def facts(graph: dict[str, Any]) -> str:
    """The scene's ASP facts, through the same validation as any scene file."""
    return encode(graph, "<perceived scene>")
