"""Text read from photos (qlang.text.ocr): a committed image with known words, and scikit-image's."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from qlang.text import ocr
from tests.conftest import FIXTURES

SIGN = FIXTURES / "text" / "sign.png"  # rendered with Pillow's own font: COFFEE SHOP, open daily, 1984


def test_the_words_of_a_rendered_sign_are_read_with_their_boxes() -> None:
    regions = ocr.read(np.asarray(Image.open(SIGN).convert("RGB")))
    assert [r.text.replace(" ", "").lower() for r in regions] == ["coffeeshop", "opendaily", "1984"]
    assert [r.kind for r in regions] == ["words", "words", "number"]
    coffee = regions[0]
    x0, y0, x1, y1 = coffee.box
    assert 20 <= x0 < x1 <= 300 and 20 <= y0 < y1 <= 90  # inside the red panel it is painted on
    assert all(ocr.THRESHOLD <= r.confidence <= 1 for r in regions)


def test_a_grey_image_is_read_and_a_blank_one_has_no_text() -> None:
    grey = np.asarray(Image.open(SIGN).convert("L"))
    assert "1984" in [r.text for r in ocr.read(grey)]
    assert ocr.read(np.full((120, 160, 3), 255, dtype=np.uint8)) == []


def test_scikit_image_s_page_is_read() -> None:
    data = pytest.importorskip("skimage.data")
    text = " ".join(r.text for r in ocr.read(data.page())).lower()
    assert "markers" in text and "background" in text


@pytest.mark.parametrize(("text", "kind"), [("1984", "number"), ("$4.99", "number"), ("12:30", "number"),
                                            ("STOP", "words"), ("route 66", "words")])
def test_a_region_is_a_number_when_it_is_digits(text: str, kind: str) -> None:
    assert ocr.Region(text, (0, 0, 1, 1), 1.0).kind == kind
