"""Pictures people can read: the labels of `perceive --draw` and of the web page never overlap
one another and never leave the picture, on a crowded real GQA scene (2353884: a tent, a roof
and the air over the whole image, a nose, eyes and an ear a few pixels apart) and on a photo."""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qlang.vision.draw import draw
from qlang.vision.perception import Detection, Perception, SeenBox, Thresholds
from qlang.vision.placement import Placed, place
from qlang.web import report

SCENE = Path(__file__).parent.parent / "examples" / "scene_2353884.json"


def _readable(placed: list[Placed | None], width: float, height: float) -> None:
    """No two labels share area, and each lies inside the picture."""
    labels = [p.box for p in placed if p is not None]
    for a, b in combinations(labels, 2):
        assert not (a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1), (a, b)
    for box in labels:
        assert 0 <= box.x0 <= box.x1 <= width and 0 <= box.y0 <= box.y1 <= height, box


def _on_outline(point: tuple[float, float], box: SeenBox) -> bool:
    x, y = point
    inside = box.x0 - 1e-6 <= x <= box.x1 + 1e-6 and box.y0 - 1e-6 <= y <= box.y1 + 1e-6
    return inside and min(abs(x - box.x0), abs(x - box.x1), abs(y - box.y0), abs(y - box.y1)) < 1e-6


@pytest.fixture(scope="module")
def scene() -> dict:
    return json.loads(SCENE.read_text())["2353884"]


def test_the_pages_labels_on_the_crowded_scene(scene: dict) -> None:
    shown = report.objects(scene)
    assert shown is not None
    labels = [o["label"] for o in shown["objects"]]
    assert all(labels) and len(labels) == len(scene["objects"]) == 18
    placed = [Placed(t["text"], SeenBox(t["x"], t["y"], t["x"] + t["w"], t["y"] + t["h"]), None)
              for t in labels]
    _readable(placed, scene["width"], scene["height"])
    assert {t["text"] for t in labels} >= {"tent", "roof", "air", "nose", "eyes", "foot", "shoe", "audience"}
    for o in shown["objects"]:  # a leader line runs from its label to its own box
        if o["label"]["leader"] is not None:
            box = SeenBox(o["x"], o["y"], o["x"] + o["w"], o["y"] + o["h"])
            assert _on_outline(tuple(o["label"]["leader"][1]), box)


def test_perceive_draws_the_crowded_scene_readably(scene: dict, tmp_path: Path) -> None:
    width, height = scene["width"], scene["height"]
    objects = [Detection(o["name"], 0.9, SeenBox(o["x"], o["y"], o["x"] + o["w"], o["y"] + o["h"]), o["name"],
                         {"white": 0.5, "large": 0.3}) for o in scene["objects"].values()]
    placed = draw(np.full((height, width, 3), 200, np.uint8), Perception(width, height, "test", objects),
                  tmp_path / "scene.png")
    assert all(placed)  # "nose 0.90 | white 0.50 | large 0.30" eighteen times still fits
    _readable(placed, width, height)


def test_perceive_draws_a_photo_readably(tmp_path: Path) -> None:
    """The astronaut with every box the detector dares, down to 0.05: many, one inside another."""
    data = pytest.importorskip("skimage.data")
    from PIL import Image

    from qlang.vision.ssd import SSD

    photo = data.astronaut()
    perception = SSD().perceive(photo, None, Thresholds(detection=0.05))
    assert len(perception.objects) >= 10
    placed = draw(photo, perception, tmp_path / "boxes.png")
    assert all(placed)
    _readable(placed, perception.width, perception.height)
    with Image.open(tmp_path / "boxes.png") as picture:
        assert picture.size == (photo.shape[1], photo.shape[0])


def test_a_label_wider_than_the_picture_is_cut_to_fit() -> None:
    [placed] = place([SeenBox(0, 0, 10, 10)], [["a rather long label"]], 60, 40,
                     lambda t: (6.0 * len(t), 10.0))
    assert placed is not None and placed.text.endswith("…") and placed.box.width <= 60


def test_where_no_room_is_left_a_label_is_left_out() -> None:
    placed = place([SeenBox(0, 0, 20, 20)] * 12, [["label"]] * 12, 60, 30, lambda t: (30.0, 10.0))
    assert 6 <= placed.count(None) < 12  # six labels of 30 x 10 at most tile 60 x 30
    _readable(placed, 60, 30)


boxes = st.builds(lambda x, y, w, h: SeenBox(x, y, x + w, y + h), st.integers(-20, 300),
                  st.integers(-20, 200), st.integers(1, 200), st.integers(1, 150))


@settings(max_examples=60, deadline=None)
@given(st.lists(boxes, min_size=1, max_size=25), st.lists(st.text("abcdefgh ", min_size=1, max_size=30),
                                                          min_size=25, max_size=25))
def test_labels_never_overlap_nor_leave_the_picture(found: list[SeenBox], texts: list[str]) -> None:
    placed = place(found, [[t, t[:3]] for t in texts[:len(found)]], 320, 240,
                   lambda t: (6.5 * len(t) + 4, 15.0))
    _readable(placed, 320, 240)
    for box, label in zip(found, placed, strict=True):
        if label is not None and label.leader is not None:
            start, end = label.leader
            assert _on_outline(end, box.clipped(320, 240)) and math.dist(start, end) > 0
