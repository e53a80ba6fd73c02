"""The colour namer on crops of real photos with the colours a person names (tests/fixtures/colours,
cut from the photos the packages ship by bench/colours.py), through the object's own pixels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from qlang.vision.colour import colours
from qlang.vision.image import read
from qlang.vision.perception import SeenBox
from qlang.vision.segment import segment

pytest.importorskip("cv2")

FIXTURES = Path(__file__).parent / "fixtures" / "colours"
CROPS = {crop["name"]: crop for crop in json.loads((FIXTURES / "colours.json").read_text())["crops"]}


def named(name: str) -> list[str]:
    """The crop's colours, likeliest first."""
    crop = CROPS[name]
    pixels = segment(read(FIXTURES / f"{name.replace(' ', '_')}.png"), SeenBox(*crop["in_crop"])).pixels
    scores = colours(pixels)
    assert sum(scores.values()) == pytest.approx(1.0)
    return sorted(scores, key=scores.__getitem__, reverse=True)


@pytest.mark.parametrize("name", ["motorcycle", "red box", "saucer", "jacket", "backdrop", "table"])
def test_an_object_is_named_by_its_own_colour(name: str) -> None:
    assert named(name)[0] in CROPS[name]["colours"]


def test_the_red_motorcycle_is_red_not_the_grey_of_the_garage_around_it() -> None:
    ranked = named("motorcycle")
    assert ranked[0] == "red" and ranked.index("gray") > 1


def test_the_cut_keeps_the_object_and_drops_its_background() -> None:
    image = np.full((80, 80, 3), (120, 120, 120), dtype=np.uint8)
    image[20:60, 25:55] = (30, 60, 200)
    cut = segment(image, SeenBox(15, 10, 65, 70))
    assert 0.3 < cut.share < 0.6
    scores = colours(cut.pixels)
    assert max(scores, key=scores.__getitem__) == "blue" and scores["gray"] < 0.01


def test_a_box_over_the_whole_image_is_taken_whole() -> None:
    image = np.full((40, 40, 3), (120, 75, 40), dtype=np.uint8)
    assert segment(image, SeenBox(0, 0, 40, 40)).share == 1.0
