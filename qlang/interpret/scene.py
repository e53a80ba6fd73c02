"""A typed, read-only view of one GQA scene graph.

Positions come from the box as in the ASP scene encoder (`qlang.asp.scene`): the third of the
image its centre falls in, so that both back ends see the same ``hposition``/``vposition``.
A graph's scene-wide ``location`` (indoors/outdoors) is what "Is it indoors or outdoors?"
asks about; it holds for every object of the scene.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_THIRDS = {"hposition": ("left", "middle", "right"), "vposition": ("top", "middle", "bottom")}
#: Attributes a GQA graph gives the whole scene rather than one object.
SCENE_ATTRIBUTES = ("location", "weather")


@dataclass(frozen=True, slots=True)
class SceneRelation:
    name: str
    #: the id of the object at the other end
    other: str


@dataclass(frozen=True, slots=True)
class SceneBox:
    x: float
    y: float
    w: float
    h: float


@dataclass(frozen=True, slots=True)
class SceneObject:
    id: str
    name: str
    attributes: tuple[str, ...]
    #: relations the object is the subject of
    outgoing: tuple[SceneRelation, ...]
    #: relations the object is the object of (`other` is their subject)
    incoming: tuple[SceneRelation, ...]
    box: SceneBox


@dataclass(frozen=True)
class Scene:
    objects: Mapping[str, SceneObject]
    width: float
    height: float
    #: scene-wide attributes by category, e.g. ``{"location": "indoors"}``
    context: Mapping[str, str]

    @classmethod
    def from_json(cls, graph: Mapping[str, Any]) -> Scene:
        """A scene from one graph of a GQA ``*_sceneGraphs.json`` file."""
        raw: Mapping[str, Any] = graph["objects"]
        incoming: dict[str, list[SceneRelation]] = {oid: [] for oid in raw}
        for oid, obj in raw.items():
            for rel in obj.get("relations", []):
                incoming[str(rel["object"])].append(SceneRelation(rel["name"], oid))
        objects = {
            oid: SceneObject(oid, obj["name"], tuple(obj.get("attributes", [])),
                             tuple(SceneRelation(r["name"], str(r["object"]))
                                   for r in obj.get("relations", [])),
                             tuple(incoming[oid]),
                             SceneBox(*(float(obj[k]) for k in ("x", "y", "w", "h"))))
            for oid, obj in raw.items()
        }
        context = {key: graph[key] for key in SCENE_ATTRIBUTES if isinstance(graph.get(key), str)}
        return cls(objects, float(graph["width"]), float(graph["height"]), context)

    def position(self, obj: SceneObject, axis: str) -> str:
        """``left``/``middle``/``right`` (hposition) or ``top``/``middle``/``bottom`` (vposition)."""
        start, extent, total = ((obj.box.x, obj.box.w, self.width) if axis == "hposition"
                                else (obj.box.y, obj.box.h, self.height))
        third = min(2, max(0, int(3 * (start + extent / 2) / total)))
        return _THIRDS[axis][third]
