"""The photo's subject, which GQA's `this` selects (qlang.vision.subject): proposed by the
detector's prominent boxes, the classifier on the whole photo and prominent stuff."""

from __future__ import annotations

from pathlib import Path

import pytest

from qlang.vision import subject
from qlang.vision.concepts import Concepts
from qlang.vision.perception import Thresholds

data = pytest.importorskip("skimage.data")
pytest.importorskip("cv2")


def _perceive(name: str, classes: frozenset[str]) -> list[tuple[str, tuple[str, ...]]]:
    from qlang.vision.image import read
    from qlang.vision.ssd import SSD

    image = read(Path(data.__file__).parent / name)
    perception = SSD().perceive(image, Concepts(classes=classes), Thresholds())
    return [(d.name, d.classes) for d in perception.objects]


def test_a_close_up_s_cat_is_its_subject_by_the_detector_and_the_classifier() -> None:
    seen = _perceive("chelsea.png", frozenset({subject.SUBJECT}))
    assert seen and all(classes == (subject.SUBJECT,) and name == "cat" for name, classes in seen)
    assert len(seen) == 2, "the cat's box, and the classifier's cat for the whole photo"


def test_nothing_is_the_subject_where_nothing_stands_out() -> None:
    """A brick wall: no box, the classifier's guesses (a maze 0.34) under `LEAST`, no stuff."""
    assert _perceive("brick.png", frozenset({subject.SUBJECT})) == []


def test_the_subject_is_looked_for_only_where_a_question_points_at_it() -> None:
    assert _perceive("chelsea.png", frozenset({"cat"})) == [("cat", ())]
