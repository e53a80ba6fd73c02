"""The perceiver reads the photo's text: each region an object of class words or number in the
weighted scene, with its string, related to the objects around it (qlang.vision.reading)."""

from __future__ import annotations

import pytest

from qlang.timing import Stages
from qlang.vision.perceiving import Options, make_perceiver, perceive
from qlang.vision.perception import Detection, Image, Perception, SeenBox, Thresholds
from qlang.vision.reading import Reading
from tests.conftest import FIXTURES

SIGN = str(FIXTURES / "text" / "sign.png")


class Panel:
    """A perceiver that sees one red panel where the sign's words are painted."""

    name = "panel"

    def perceive(self, image: Image, concepts: object, thresholds: Thresholds) -> Perception:
        return Perception(image.shape[1], image.shape[0], self.name,
                          [Detection("sign", 0.9, SeenBox(20, 20, 300, 90), "sign")])


def test_text_regions_become_objects_with_their_string_on_what_they_lie_on() -> None:
    perceived = perceive(SIGN, None, Reading(Panel()), Thresholds(), Stages())
    objects = perceived.graph["objects"]
    read = {o["text"]: (oid, o) for oid, o in objects.items() if "text" in o}
    assert set(read) == {"COFFEE SHOP", "opendaily", "1984"}
    oid, coffee = read["COFFEE SHOP"]
    assert coffee["name"] == "words" and 0.5 <= coffee["confidence"] <= 1
    assert read["1984"][1]["name"] == "number"
    assert any(r["object"] == "o0" for r in coffee["relations"]), "the words relate to the panel"
    assert f"has_attr({oid}, name, words)." in perceived.facts.splitlines()


def test_reading_is_on_by_default_and_a_setting_turns_it_off() -> None:
    pytest.importorskip("cv2")
    assert isinstance(make_perceiver(Options()), Reading)
    assert not isinstance(make_perceiver(Options(text=False)), Reading)
