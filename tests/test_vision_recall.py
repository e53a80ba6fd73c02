"""A "no" from a perceiver only where its labels cover the class asked about and it finds
enough of those there are (`qlang.vision.recall`, measured by bench/recall.py)."""

from __future__ import annotations

import pytest

from qlang.api import parse
from qlang.vision.recall import FLOOR, blind_no, doubt, recall, sureness, why
from qlang.vision.sight import SIGHTS

SSD, OWLVIT = SIGHTS["ssd"], SIGHTS["owlvit"]


def test_a_label_for_a_kind_of_a_class_does_not_cover_it() -> None:
    assert SSD.label("plant") == "potted plant" and not SSD.covers("plant")
    assert doubt(SSD, "plant") == "the ssd detector's 'plant' is a potted plant only"


def test_seeing_some_kinds_of_a_class_does_not_cover_it() -> None:
    assert not SSD.covers("animal") and SSD.covers("cat")
    assert doubt(SSD, "animal") == "the ssd detector sees only some kinds of animal"


def test_a_class_it_finds_too_seldom_is_doubted_with_its_measured_recall() -> None:
    measured = recall("ssd")
    assert measured is not None and measured.measured("bicycle") and measured.of("bicycle") < FLOOR
    assert doubt(SSD, "bicycle") == "the ssd detector found 0 of 1 bicycle in the labelled photos at >= 0.15"


def test_a_no_is_judged_by_the_recall_at_its_own_threshold() -> None:
    """coffee's spoon is a detection at 0.19: found at seek's closer threshold, missed at ask's,
    so ask's "no" about a spoon is no evidence, and one above every threshold measured none."""
    assert doubt(SSD, "spoon", 0.15) is None
    assert doubt(SSD, "spoon", 0.4) == "the ssd detector found 0 of 1 spoon in the labelled photos at >= 0.4"
    assert blind_no(SSD, parse("exist(select(scene(), spoon))"), "no", 0.4) == ("spoon",)
    assert blind_no(SSD, parse("exist(select(scene(), spoon))"), "no", 0.15) == ()
    assert doubt(SSD, "cup", 0.3) is None, "judged by the recall at 0.4, a bound on that at 0.3"
    assert doubt(SSD, "cup", 0.9) == "the ssd detector's recall is not measured at >= 0.9"


def test_a_covered_class_is_as_sure_as_its_recall_measured_or_pooled() -> None:
    measured = recall("ssd")
    assert measured is not None
    assert doubt(SSD, "dog") is None and not measured.measured("dog")
    found, there = (sum(column) for column in zip(*measured.counts.values(), strict=True))
    assert sureness(SSD, "dog") == pytest.approx(found / there)
    assert sureness(SSD, "cat") == 1.0


def test_an_open_vocabulary_perceiver_is_not_doubted() -> None:
    assert doubt(OWLVIT, "plant") is None
    assert blind_no(OWLVIT, parse("exist(select(scene(), tree))"), "no") == ()


@pytest.mark.parametrize(("program", "doubted"), [
    ("exist(select(scene(), flag))", ("flag",)),
    ("exist(select(scene(), plant))", ("plant",)),
    ("exist(select(scene(), animal))", ("animal",)),
    ("exist(select(scene(), dog))", ()),
    ("query(unique(select(scene(), plant)), color)", ())])
def test_ask_refuses_a_no_it_cannot_ground(program: str, doubted: tuple[str, ...]) -> None:
    assert blind_no(SSD, parse(program), "no") == doubted
    assert blind_no(SSD, parse(program), "yes") == ()


def test_the_reason_names_what_is_missing() -> None:
    assert why(SSD, "flag") == "no perceiver knows 'flag'"
    assert why(SSD, "plant") == "the ssd detector's 'plant' is a potted plant only"
