"""Hostile photos for the vision steps that came after the first rounds: colour from the cut
and the ink, shape from the outline, relations from geometry, text read by RapidOCR, the
subject, regions and stuff.  Degenerate photos (a row or a column of pixels, a huge aspect
ratio) and boxes at or past the photo's edge get an answer or "cannot tell", never an internal
error, a process killed for memory or a hang.  What could exhaust memory runs in a process of
its own, under the memory ceiling and a hang guard (`conftest.qlangc_process`)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from qlang.vision import geometry
from qlang.vision.perception import SeenBox
from tests.conftest import qlangc_process

FIXTURES = Path(__file__).parent / "fixtures"


def saved(path: Path, pixels: np.ndarray) -> str:
    from PIL import Image

    Image.fromarray(pixels).save(path)
    return str(path)


def held(code: int, output: str) -> None:
    """An answer, no answer or "cannot tell": never an internal error or a traceback."""
    assert code in (0, 1, 4), output
    assert "Traceback" not in output and "internal error" not in output, output


# ----- text: RapidOCR scales a photo's shorter side up to 736 pixels ---------------------------

@pytest.mark.parametrize("shape", [(1, 500), (500, 1), (3, 4000)])
@pytest.mark.parametrize("question", ["What does the sign say?", "What is this?"])
def test_a_photo_of_a_row_or_a_column_of_pixels_is_read_within_memory(tmp_path: Path, shape: tuple[int, int],
                                                                      question: str) -> None:
    """A 500×1 strip was scaled to 368,000×736 pixels for the text detector (2.8 GB of floats:
    killed), a 1×500 one to 3,750×15,000 (100 s)."""
    photo = saved(tmp_path / "strip.png", np.full((*shape, 3), 200, dtype=np.uint8))
    held(*qlangc_process("ask", "--image", photo, "--translator", "small", question, timeout=120))


@pytest.mark.parametrize("layout", ["wide", "tall"])
def test_text_on_a_thin_photo_is_read_where_it_is(tmp_path: Path, layout: str) -> None:
    from PIL import Image

    from qlang.text import ocr

    sign = np.asarray(Image.open(FIXTURES / "text" / "sign.png").convert("RGB"))
    height, width = sign.shape[:2]
    size = (height, 6 * width) if layout == "wide" else (6 * height, width)
    page = np.full((*size, 3), 255, dtype=np.uint8)
    dx, dy = (3 * width, 0) if layout == "wide" else (0, 3 * height)
    page[dy:dy + height, dx:dx + width] = sign
    found = {region.text: region.box for region in ocr.read(page)}
    x0, y0, x1, y1 = found["COFFEE SHOP"]
    assert dx < x0 < x1 < dx + width and dy < y0 < y1 < dy + height, found


def test_text_read_at_a_thin_photos_edge_stays_inside_it() -> None:
    """The padding below a thin photo is no part of it: a region's box reaching into it is cut
    at the photo's edge (matplotlib's logo, 542×130, was read to 135)."""
    from qlang.evaluate.seeking import PHOTO_SET, read_photos
    from qlang.text import ocr
    from qlang.vision.image import read

    logo = read(read_photos(PHOTO_SET).photos["matplotlib_logo"].path)
    height, width = logo.shape[:2]
    regions = ocr.read(logo)
    assert regions
    for region in regions:
        x0, y0, x1, y1 = region.box
        assert 0 <= x0 <= x1 <= width and 0 <= y0 <= y1 <= height, region


# ----- geometry: ratios of areas are unbounded -----------------------------------------------

@pytest.mark.parametrize(("a", "b"), [
    (SeenBox(10, 410, 60, 460), SeenBox(100, 50, 700, 460)),  # a distant person, a motorcycle
    (SeenBox(50, 50, 50, 50), SeenBox(0, 0, 100, 100)),  # a box of no size
    (SeenBox(0, 0, 0, 100), SeenBox(0, 0, 100, 100)),  # clipped to nothing at the left edge
])
def test_every_relation_of_boxes_of_any_sizes_is_a_probability(a: SeenBox, b: SeenBox) -> None:
    """A person 60 times smaller than what it might hold overflowed `math.exp`."""
    for x, y in ((a, b), (b, a)):
        for kinds in (("person", "motorcycle"), ("person", "hat"), ("person", "grass"), ("cup", "table")):
            for name, p in geometry.relations(x, y, None, kinds).items():
                assert 0.0 <= p <= 1.0 and math.isfinite(p), (name, x, y, p)


def test_perceive_relates_a_distant_person_to_a_large_motorcycle(tmp_path: Path) -> None:
    """The embedded detector finds the small astronaut pasted on the motorcycle's photo: it
    ended `qlangc perceive` in an internal error."""
    data = pytest.importorskip("skimage.data")
    from PIL import Image

    photo = data.stereo_motorcycle()[0].copy()
    height = photo.shape[0]
    photo[height - 90:height - 10, 10:90] = np.asarray(Image.fromarray(data.astronaut()).resize((80, 80)))
    path = saved(tmp_path / "distant.png", photo)
    code, output = qlangc_process("perceive", path, "-o", str(tmp_path / "distant.json"), timeout=120)
    assert code == 0, output
    assert "objects: 2" in output, output


# ----- boxes at or past the photo's edge ----------------------------------------------------

@pytest.mark.parametrize("box", [
    SeenBox(100, 0, 105, 100),  # past the right edge: clipped to no width
    SeenBox(0, 100, 100, 105),  # past the bottom edge
    SeenBox(-5, -5, 105, 105),  # over every edge
    SeenBox(40, 40, 40, 40),  # of no size
])
def test_a_box_clipped_to_nothing_still_has_a_pixel_to_read(box: SeenBox) -> None:
    """An empty crop reached OpenCV's resize, which asserts a size."""
    from qlang.vision import classifier, colour, shape
    from qlang.vision.perception import crop
    from qlang.vision.segment import ink, segment

    image = np.random.default_rng(0).integers(0, 255, (100, 100, 3), dtype=np.uint8)
    assert crop(image, box.clipped(100, 100)).size
    for cut in (segment(image, box), segment(image, box, rim=True), ink(image, box)):
        assert cut.crop.size and cut.mask.shape == cut.crop.shape[:2]
        assert colour.colours(cut.pixels) or not cut.pixels.size
    assert isinstance(shape.shapes(image, box), dict)
    assert classifier.ranked(crop(image, box.clipped(100, 100)), 5)


_EDGE = st.floats(-50, 150, allow_nan=False)


@given(_EDGE, _EDGE, _EDGE, _EDGE, st.integers(1, 120), st.integers(1, 120), st.sampled_from((1, 4)))
def test_a_box_has_the_pixels_it_covers_and_at_least_the_fewest_asked(
        x0: float, y0: float, x1: float, y1: float, width: int, height: int, least: int) -> None:
    """One rule for every crop (the classifier's, the segmenter's, OWL-ViT's), where three
    had each their own rounding."""
    from qlang.vision.perception import bounds, crop

    box = SeenBox(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    left, top, right, bottom = bounds(box, width, height, least)
    for low, high, side in ((left, right, width), (top, bottom, height)):
        assert 0 <= low <= max(side - least, 0) and high - low >= least and high <= max(side, least)
    seen = box.clipped(width, height)  # every pixel wholly inside the box is in its crop
    assert left <= math.ceil(seen.x0) and top <= math.ceil(seen.y0)
    assert right >= math.floor(seen.x1) and bottom >= math.floor(seen.y1)
    image = np.zeros((height, width, 3), dtype=np.uint8)
    assert crop(image, box, least).shape[:2] == (min(bottom, height) - top, min(right, width) - left)


# ----- stuff and the background: rules on a small copy of the photo ---------------------------

@pytest.mark.parametrize("shape", [(4000, 3), (3, 4000), (1, 1)])
def test_stuff_and_the_background_are_looked_for_on_a_bounded_copy(shape: tuple[int, int]) -> None:
    """A 4000×3 photo's small copy was 96×128,000 pixels, on which finding its stuff took
    from 10 s to minutes."""
    from qlang.vision import background, stuff

    image = np.random.default_rng(0).integers(0, 255, (*shape, 3), dtype=np.uint8)
    small = stuff.features(image).small
    assert small.shape[1] == stuff.SIDE and 1 <= small.shape[0] <= 4 * stuff.SIDE
    for found in (stuff.find(image, stuff.CLASSES), background.find(image, background.CLASSES)):
        assert all(0 <= d.box.x0 <= d.box.x1 <= shape[1] and 0 <= d.box.y0 <= d.box.y1 <= shape[0]
                   for d in found), found


def test_a_tall_photo_of_noise_is_asked_about_its_stuff_within_its_time(tmp_path: Path) -> None:
    noise = np.random.default_rng(0).integers(0, 255, (4000, 3, 3), dtype=np.uint8)
    photo = saved(tmp_path / "tall.png", noise)
    held(*qlangc_process("ask", "--image", photo, "--translator", "small", "Is there a tree?", timeout=120))


# ----- text: a page of words -------------------------------------------------------------------

def _page_of_words(folder: Path) -> Path:
    """A photo of 16 words in 4 rows."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.new("RGB", (640, 200), "white")
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=22)
    for row in range(4):
        for column in range(4):
            draw.text((20 + column * 155, 15 + row * 45), f"word{row}{column}", fill="black", font=font)
    page.save(folder / "page.png")
    return folder / "page.png"


def test_a_page_of_words_keeps_at_most_top_n_of_them(tmp_path: Path) -> None:
    """Every pair of objects is related, and every region read was kept: a page of 400 words
    made 326,000 relations and took a gigabyte; thousands would not fit."""
    scene = tmp_path / "page.json"
    code, output = qlangc_process("perceive", str(_page_of_words(tmp_path)), "--top-n", "5", "--text",
                                  "-o", str(scene), timeout=120)
    assert code == 0, output
    objects = json.loads(scene.read_text())["objects"].values()
    read = [o for o in objects if o["name"] in ("words", "number")]
    assert len(read) == 5, objects


def test_a_scene_past_the_relation_limit_is_refused_before_it_fills_the_memory(tmp_path: Path) -> None:
    """Asked for every object and every relation however unlikely, a page of 400 words made 2.4
    million relations (3.9 GB): the 16 words' 240 pairs here pass a limit of 100."""
    scene = tmp_path / "page.json"
    code, output = qlangc_process("perceive", str(_page_of_words(tmp_path)), "--top-n", "1000", "--text",
                                  "--relation-threshold", "0", "-o", str(scene), timeout=120,
                                  env={"QLANG_MAX_RELATIONS": "100"})
    assert code == 1 and "Traceback" not in output, output
    assert re.search(r"error: more than 100 relations among \d+ objects: at most 100 relations in a "
                     r"perceived scene \(set QLANG_MAX_RELATIONS to raise it\) \(raise --relation-threshold, "
                     r"lower --top-n, or ask about fewer relations\)", output), output
    assert not scene.exists()


# ----- a photo at the pixel limit, under the memory ceiling ----------------------------------

@pytest.mark.parametrize(("mode", "question"), [("RGB", "What color is the background?"),
                                                ("RGBA", "Is there a tree?")])
def test_a_photo_at_the_pixel_limit_is_perceived_within_the_memory_ceiling(tmp_path: Path, mode: str,
                                                                           question: str) -> None:
    """8000×8000 pixels is within `QLANG_MAX_PIXELS_MB` (256); Pillow's upright copy, its copy
    to RGB and its compositing over white each held another 256 MB, and the read ended in a
    MemoryError under the ceiling."""
    from PIL import Image

    side = 8000
    pixels = np.zeros((side, side, len(mode)), dtype=np.uint8)
    pixels[:side // 2, :, :3] = (90, 140, 220)  # sky over grass, a white square between
    pixels[side // 2:, :, 1] = 150
    pixels[3000:5000, 3000:5000, :3] = 255
    if mode == "RGBA":
        pixels[..., 3] = 128
    Image.fromarray(pixels, mode).save(tmp_path / "huge.png", compress_level=1)
    del pixels
    held(*qlangc_process("ask", "--image", str(tmp_path / "huge.png"), "--translator", "small", question,
                         timeout=300))
