"""The ImageNet classifier as a user meets it: its native library's log stays off the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import qlangc_process

skimage_data = pytest.importorskip("skimage.data")


def test_asking_about_a_photo_prints_no_log_line_of_the_classifiers_library() -> None:
    """LiteRT announces its XNNPACK delegate on standard error when the classifier first runs
    (here on the astronaut's regions, to find the helmet COCO's detector lacks)."""
    photo = Path(skimage_data.__file__).parent / "astronaut.png"
    status, printed = qlangc_process("ask", "--image", str(photo), "Is there a helmet?")
    assert status == 0, printed
    assert "answer:  yes" in printed
    assert "XNNPACK" not in printed and "INFO:" not in printed
