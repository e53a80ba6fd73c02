"""The shape namer on drawn outlines and on objects of the photos the packages ship, through
GrabCut's cut of each box (boxes where the detector puts them, or drawn tight by hand)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from qlang.vision.perception import SeenBox
from qlang.vision.shape import likelihoods, shapes

data = pytest.importorskip("skimage.data")
pytest.importorskip("cv2")

SKIMAGE = Path(data.__file__).parent


def _photo(path: Path) -> np.ndarray:
    from qlang.vision.image import read

    return read(path)


def _best(scores: dict[str, float]) -> str | None:
    return max(scores, key=scores.__getitem__) if scores else None


def _drawn(kind: str) -> np.ndarray:
    import cv2

    canvas = np.zeros((70, 90), dtype=np.uint8)
    if kind == "disc":
        cv2.circle(canvas, (45, 35), 28, 1, cv2.FILLED)
    elif kind == "slanted disc":
        cv2.ellipse(canvas, (45, 35), (40, 22), 15, 0, 360, 1, cv2.FILLED)
    elif kind == "square":
        cv2.rectangle(canvas, (20, 8), (74, 62), 1, cv2.FILLED)
    elif kind == "long box":
        cv2.rectangle(canvas, (5, 20), (85, 50), 1, cv2.FILLED)
    elif kind == "triangle":
        cv2.fillPoly(canvas, [np.array([[10, 62], [80, 62], [45, 5]], dtype=np.int32)], 1)
    ys, xs = np.nonzero(canvas)
    return canvas[ys.min() - 1:ys.max() + 2, xs.min() - 1:xs.max() + 2].astype(bool)  # its tight box


@pytest.mark.parametrize(("kind", "shape"), [
    ("disc", "round"), ("slanted disc", "round"), ("square", "square"), ("long box", "rectangular"),
    ("triangle", "triangular")])
def test_a_drawn_outline_is_named_by_its_shape(kind: str, shape: str) -> None:
    scores = likelihoods(_drawn(kind))
    assert _best(scores) == shape and scores[shape] > 0.5


def test_an_outline_like_none_of_them_is_none_of_them() -> None:
    cross = np.zeros((60, 60), dtype=bool)
    cross[20:40], cross[:, 20:40] = True, True
    assert max(likelihoods(cross).values()) < 0.2


def test_an_outline_cut_off_by_the_photo_s_edge_is_no_evidence() -> None:
    half = _drawn("disc")[:, :30]
    assert likelihoods(half, (False, False, False, True)) == {}
    assert _best(likelihoods(_drawn("disc"), (True, True, True, True))) == "round"


@pytest.mark.parametrize("box", [(305, 17, 365, 75), (185, 105, 224, 145), (314, 154, 381, 219)])
def test_the_coins_are_round(box: tuple[int, int, int, int]) -> None:
    scores = shapes(_photo(SKIMAGE / "coins.png"), SeenBox(*box))
    assert _best(scores) == "round" and scores["round"] > 0.5


@pytest.mark.parametrize(("name", "box"), [("color.png", (0, 0, 371, 370)), ("logo.png", (16, 15, 497, 498))])
def test_a_round_picture_filling_its_photo_is_cut_against_the_photo_s_rim(
        name: str, box: tuple[int, int, int, int]) -> None:
    scores = shapes(_photo(SKIMAGE / name), SeenBox(*box))
    assert _best(scores) == "round" and scores["round"] > 0.7


def test_the_blurred_clock_is_round_if_not_surely() -> None:
    scores = shapes(_photo(SKIMAGE / "clock_motion.png"), SeenBox(145, 92, 282, 212))
    assert _best(scores) == "round" and max(v for k, v in scores.items() if k != "round") < 0.05


@pytest.mark.parametrize("box", [(0, 0, 128, 128), (8, 3, 119, 118)])  # by hand, the detector's
def test_a_gift_box_seen_from_above_a_corner_is_not_round(box: tuple[int, int, int, int]) -> None:
    import matplotlib

    present = Path(matplotlib.get_data_path()) / "sample_data" / "Minduka_Present_Blue_Pack.png"
    assert max(shapes(_photo(present), SeenBox(*box)).values(), default=0.0) < 0.2


@pytest.mark.parametrize("sides", [6, 8])
def test_a_polygon_of_many_sides_is_not_round(sides: int) -> None:
    import cv2

    turn = np.arange(sides) * 2 * np.pi / sides + 0.2
    corners = np.stack([np.cos(turn), np.sin(turn)], axis=1) * 31 + 33
    canvas = np.zeros((67, 67), dtype=np.uint8)
    cv2.fillPoly(canvas, [np.round(corners).astype(np.int32)], 1)
    assert likelihoods(canvas.astype(bool)).get("round", 0.0) < 0.05


@pytest.mark.parametrize(("name", "box"), [
    ("coffee.png", (3, 0, 597, 398)),    # the table around the cup: the cut keeps the saucer
    ("chelsea.png", (9, 0, 408, 297)),    # a cat, cut off by the frame
    ("horse.png", (14, 4, 392, 317)),     # a horse's outline is no shape GQA names
])
def test_an_outline_that_is_not_the_box_s_object_or_not_a_shape_names_none(
        name: str, box: tuple[int, int, int, int]) -> None:
    assert max(shapes(_photo(SKIMAGE / name), SeenBox(*box)).values(), default=0.0) < 0.2


def test_a_rectangle_on_a_photo_s_texture_is_rectangular() -> None:
    image = _photo(SKIMAGE / "grass.png").copy()
    if image.ndim == 2:
        image = np.repeat(image[..., None], 3, axis=2)
    image[100:160, 60:200] = (40, 70, 200)
    scores = shapes(image, SeenBox(55, 95, 205, 165))
    assert _best(scores) == "rectangular" and scores["rectangular"] > 0.5


def test_a_shape_question_about_a_photo_is_answered_from_the_cup_s_outline() -> None:
    from qlang import parse
    from qlang.vision.concepts import Concepts
    from qlang.vision.perception import Thresholds
    from qlang.vision.sight import SIGHTS, unseen
    from qlang.vision.ssd import SSD

    assert unseen(SIGHTS["ssd"], parse("query(unique(select(scene(), cup)), shape)")) == ()
    concepts = Concepts(classes=frozenset({"cup"}), attributes=frozenset({"shape"}))
    perception = SSD().perceive(_photo(SKIMAGE / "coffee.png"), concepts, Thresholds())
    cup = next(d for d in perception.objects if d.name == "cup")
    assert max(cup.attributes, key=cup.attributes.__getitem__) == "round"
    assert "segment" in perception.stages.seconds


@pytest.mark.parametrize("name", ["logo.png", "color.png"])
def test_what_shape_this_is_asks_the_photo_s_subject_for_its_outline(name: str) -> None:
    from qlang.vision.concepts import Concepts
    from qlang.vision.perception import Thresholds
    from qlang.vision.ssd import SSD

    concepts = Concepts(classes=frozenset({"this"}), attributes=frozenset({"shape"}))
    perception = SSD().perceive(_photo(SKIMAGE / name), concepts, Thresholds())
    shaped = [d.attributes for d in perception.objects if "this" in d.classes and d.attributes]
    assert shaped and all(max(a, key=a.__getitem__) == "round" for a in shaped)


def test_a_rectangle_nearly_square_is_left_to_neither_square_nor_rectangular() -> None:
    import cv2

    canvas = np.zeros((52, 66), dtype=np.uint8)
    cv2.rectangle(canvas, (1, 1), (64, 50), 1, cv2.FILLED)  # 4:5, a picture GQA may call square
    scores = likelihoods(canvas.astype(bool))
    assert scores["square"] == pytest.approx(scores["rectangular"], abs=0.1) and max(scores.values()) < 0.5
