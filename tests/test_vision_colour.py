"""The colour namer on crops of real photos with the colours a person names (tests/fixtures/colours,
cut from the photos the packages ship by bench/colours.py), through the object's own pixels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from qlang.vision.colour import NAMES, colours
from qlang.vision.image import read
from qlang.vision.perception import SeenBox
from qlang.vision.segment import ink, segment

pytest.importorskip("cv2")

FIXTURES = Path(__file__).parent / "fixtures" / "colours"
CROPS = {crop["name"]: crop for crop in json.loads((FIXTURES / "colours.json").read_text())["crops"]}


def named_scores(name: str) -> dict[str, float]:
    """The crop's colours' likelihoods."""
    crop = CROPS[name]
    others = [SeenBox(*box) for box in crop.get("others", ())]
    image = read(FIXTURES / f"{name.replace(' ', '_')}.png")
    scores = colours(segment(image, SeenBox(*crop["in_crop"]), others).pixels)
    assert sum(scores.values()) == pytest.approx(1.0)
    return scores


def named(name: str) -> list[str]:
    """The crop's colours, likeliest first."""
    scores = named_scores(name)
    return sorted(scores, key=scores.__getitem__, reverse=True)


@pytest.mark.parametrize("name", ["motorcycle", "red box", "saucer", "jacket", "backdrop", "table"])
def test_an_object_is_named_by_its_own_colour(name: str) -> None:
    assert named(name)[0] in CROPS[name]["colours"]


def test_the_red_motorcycle_is_red_not_the_grey_of_the_garage_around_it() -> None:
    scores = named_scores("motorcycle")
    assert max(scores, key=scores.__getitem__) == "red" and scores["red"] > 2 * scores["gray"]


def test_the_cut_keeps_the_object_and_drops_its_background() -> None:
    image = np.full((80, 80, 3), (120, 120, 120), dtype=np.uint8)
    image[20:60, 25:55] = (30, 60, 200)
    cut = segment(image, SeenBox(15, 10, 65, 70))
    assert 0.3 < cut.share < 0.6
    scores = colours(cut.pixels)
    assert max(scores, key=scores.__getitem__) == "blue" and scores["gray"] < 0.01


def test_a_surface_under_another_object_is_taken_whole() -> None:
    image = np.full((40, 40, 3), (120, 75, 40), dtype=np.uint8)
    image[10:20, 10:20] = (200, 30, 30)
    cut = segment(image, SeenBox(0, 0, 40, 40), [SeenBox(10, 10, 20, 20)])
    assert cut.share == 1.0
    scores = colours(cut.pixels)
    assert max(scores, key=scores.__getitem__) == "brown"


def test_a_figure_filling_its_photo_is_cut_from_the_ground_around_it() -> None:
    from skimage import data

    horse = np.repeat(np.where(data.horse(), 255, 0).astype(np.uint8)[..., None], 3, axis=2)
    cut = segment(horse, SeenBox(14, 4, 392, 317))  # the detector's box: 90 % of the photo
    scores = colours(cut.pixels)
    assert cut.share < 0.6 and max(scores, key=scores.__getitem__) == "black"


@pytest.mark.parametrize(("photo", "name", "expected"), [
    ("chelsea", "cat", "brown"), ("horse", "horse", "black"), ("coffee", "table", "brown")])
def test_a_detected_object_is_named_by_its_basic_colour_from_its_whole_distribution(
        photo: str, name: str, expected: str) -> None:
    """The cat's browns taken together, the drawn horse cut from the white around it, the table
    taken whole under the cup; every colour at least `WHOLE` likely kept, for the margin to
    weigh the answer against."""
    from skimage import data

    from qlang.api import parse
    from qlang.vision.perceiving import from_program
    from qlang.vision.perception import Thresholds
    from qlang.vision.ssd import SSD

    concepts = from_program(parse(f"query(unique(select(scene(), {name})), color)", "nested"))
    perception = SSD().perceive(read(Path(data.__file__).parent / f"{photo}.png"), concepts, Thresholds())
    (seen,) = [d for d in perception.objects if d.name == name]
    named = {value: p for value, p in seen.attributes.items() if value in NAMES}
    assert max(named, key=named.__getitem__) == expected
    assert len(named) > 3 and sum(named.values()) > 0.9


def test_text_is_named_by_its_ink_not_the_ground_between_its_letters() -> None:
    """Thin strokes on white, and matplotlib's logo, whose text box is the whole picture."""
    import matplotlib

    image = np.full((40, 120, 3), 250, dtype=np.uint8)
    image[8:32, 10:110:6] = image[8:32, 11:110:6] = (20, 60, 140)
    cut = ink(image, SeenBox(0, 0, 120, 40))
    assert 0.05 < cut.share < 0.3 and not cut.cut
    scores = colours(cut.pixels)
    assert max(scores, key=scores.__getitem__) == "blue" and scores["white"] < 0.05
    logo = read(Path(matplotlib.get_data_path()) / "sample_data" / "logo2.png")
    scores = colours(ink(logo, SeenBox(0, 0, logo.shape[1], logo.shape[0])).pixels)
    assert max(scores, key=scores.__getitem__) == "blue" and scores["blue"] > 0.5


def test_the_namers_colours_are_kept_whole_and_the_stuff_cues_shares_by_their_likeliest() -> None:
    from qlang.vision.describe import describe
    from qlang.vision.perception import Detection, Perception, Thresholds

    image = np.full((60, 60, 3), (40, 80, 200), dtype=np.uint8)
    shares = {"blue": 0.6, "white": 0.15, "gray": 0.1}
    sky = Detection("sky", 0.9, SeenBox(0, 0, 60, 30), "stuff", colours=shares)
    named = dict.fromkeys(NAMES, 0.01) | {"blue": 0.5, "gray": 0.1, "white": 0.05}
    ground = Detection("ground", 0.9, SeenBox(0, 30, 60, 60), "background", colours=named)
    describe(image, Perception(60, 60, "test", [sky, ground]), None, Thresholds())
    assert sky.attributes.keys() & set(NAMES) == {"blue"}
    assert ground.attributes.keys() & set(NAMES) == {"blue", "gray", "white"}
