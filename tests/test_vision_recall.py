"""A "no" from a perceiver only where its labels cover the class asked about and it finds
enough of those there are (`qlang.vision.recall`, measured by bench/recall.py)."""

from __future__ import annotations

import pytest

from qlang.api import parse
from qlang.vision.recall import FLOOR, LABELLED, Recall, blind_no, doubt, recall, sureness, why
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


def test_a_class_found_only_now_and_then_is_denied_only_on_enough_labelled_photos() -> None:
    """The classifier on regions and the colour cues are measured too, apart from the covered
    classes: a "no" about grass needs its recall measured on `LABELLED` photos and at least
    `FLOOR`; the calibration half shows one photo of grass, where the cues miss it."""
    measured = recall("ssd", 0.15)
    assert measured is not None and measured.partly["grass"] == (0, 1) and not measured.enough("grass")
    assert doubt(SSD, "grass", 0.15) == ("the ssd detector finds grass only by colour, texture and place "
                                         "(found 0 of 1 in the labelled photos)")
    often = Recall(0.15, {"cat": (1, 1)}, {"grass": (3, LABELLED)})
    assert often.enough("grass") and often.of("grass") == 1.0
    seldom = Recall(0.15, {"cat": (1, 1)}, {"grass": (2, 2)})
    assert not seldom.enough("grass") and seldom.of("grass") == 1.0, "the pooled recall of covered classes"
    assert sureness(SSD, "dog") == recall("ssd").of("dog"), "partly found classes are not pooled"  # type: ignore[union-attr]
