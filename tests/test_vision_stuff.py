"""Stuff the detector has no boxes for, found by colour, texture and place (qlang.vision.stuff),
and scenes the ImageNet classifier names on the grid's cells (qlang.vision.regions)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qlang.vision import regions, stuff
from qlang.vision.perception import SeenBox

data = pytest.importorskip("skimage.data")
pytest.importorskip("cv2")

ASKED = frozenset({"sky", "tree", "grass", "leaves"})


def _photo(name: str) -> object:
    from qlang.vision.image import read

    if name.endswith(".jpg"):
        from sklearn.datasets import load_sample_image

        return load_sample_image(name)
    return read(Path(data.__file__).parent / name)


def _found(name: str) -> dict[str, dict[str, float]]:
    return {d.name: d.colours or {} for d in stuff.find(_photo(name), ASKED)}  # type: ignore[arg-type]


def test_a_lake_photo_shows_a_blue_sky_and_green_trees() -> None:
    found = _found("china.jpg")
    assert {"sky", "tree"} <= set(found)
    assert max(found["sky"], key=found["sky"].__getitem__) == "blue"
    assert max(found["tree"], key=found["tree"].__getitem__) == "green"


def test_a_close_up_shows_green_leaves_and_no_sky_nor_trees() -> None:
    found = _found("flower.jpg")
    assert set(found) == {"leaves"} and max(found["leaves"], key=found["leaves"].__getitem__) == "green"


@pytest.mark.parametrize("name", ["coffee.png", "chelsea.png", "page.png", "horse.png", "moon.png"])
def test_indoor_close_up_and_drawn_photos_show_no_stuff(name: str) -> None:
    """The calibration half's photos without sky or trees (a drawing's white is no sky)."""
    assert not set(_found(name)) & {"sky", "tree", "grass"}


def test_only_the_classes_asked_for_are_looked_for() -> None:
    assert stuff.find(_photo("china.jpg"), frozenset({"cat"})) == []  # type: ignore[arg-type]
    assert {d.name for d in stuff.find(_photo("china.jpg"), frozenset({"trees"}))} == {"trees"}  # type: ignore[arg-type]


def test_a_scene_label_names_what_such_scenes_show() -> None:
    assert regions.names("lakeside, lakeshore") == ["shore", "water"]
    assert regions.names("daisy") == ["daisy"]


def test_the_grid_cells_are_regions_too_where_no_object_was_detected() -> None:
    cells = regions.proposals([], 300, 300)[1:]
    assert len(cells) == regions.GRID ** 2 and SeenBox(0, 0, 100, 100) in cells
    beside = regions.proposals([], 300, 300, [SeenBox(0, 0, 140, 300)])[1:]
    assert SeenBox(0, 0, 100, 100) not in beside and SeenBox(100, 0, 200, 100) in beside, "less than half"
    assert len(beside) == regions.GRID ** 2 - regions.GRID


def test_a_plain_background_is_named_by_its_own_colour_and_a_busy_one_is_none() -> None:
    """The deep field's black around its galaxies is a background; a street with a man before
    it, and a cat filling the frame, have none."""
    from qlang.vision import background
    from qlang.vision.image import read

    deep_field = read(Path(data.__file__).parent / "hubble_deep_field.jpg")
    found = background.find(deep_field, frozenset({"ground"}))
    assert [d.name for d in found] == ["ground"] and found[0].colours
    assert max(found[0].colours, key=found[0].colours.__getitem__) == "black"
    cat = SeenBox(0, 0, 451, 300)
    assert background.find(_photo("chelsea.png"), frozenset({"ground"}), [cat]) == []  # type: ignore[arg-type]
    assert background.find(_photo("camera.png"), frozenset({"ground"})) == []  # type: ignore[arg-type]


def test_a_background_all_round_a_subject_that_reaches_into_the_frame_is_found() -> None:
    """The retina's disc reaches into the frame's band; the black all round it is a background."""
    from qlang.vision import background
    from qlang.vision.image import read

    found = background.find(read(Path(data.__file__).parent / "retina.jpg"), frozenset({"ground"}))
    assert [d.name for d in found] == ["ground"]
    assert max(found[0].colours, key=found[0].colours.__getitem__) == "black"
