"""Hostile photos for the vision steps that came after the first rounds: colour from the cut
and the ink, shape from the outline, relations from geometry, text read by RapidOCR, the
subject, regions and stuff.  Degenerate photos (a row or a column of pixels, a huge aspect
ratio) and boxes at or past the photo's edge get an answer or "cannot tell", never an internal
error, a process killed for memory or a hang.  What could exhaust memory runs in a process of
its own, under the memory ceiling and a hang guard (`conftest.qlangc_process`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

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
