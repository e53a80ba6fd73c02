"""A name that only repeats the class a question asks about is no answer on a photo."""

from __future__ import annotations

import pytest

from qlang.api import parse
from qlang.vision.repeats import asked, repeats


@pytest.mark.parametrize(("program", "answer", "why"), [
    ("query(unique(select(scene(), building)), name)", "building", "seen only as a building"),
    ("query(unique(select(scene(), building)), name)", "structure", "seen only as a building"),
    ("query(unique(relate(select(scene(), water), vehicle, on, subject)), name)", "vehicle",
     "seen only as a vehicle"),
    ("query(unique(select(scene(), building)), name)", "tower", None),
    ("query(unique(relate(select(scene(), water), vehicle, on, subject)), name)", "boat", None),
])
def test_a_name_no_finer_than_the_class_asked_is_none(program: str, answer: str, why: str | None) -> None:
    assert repeats(parse(program, "nested"), answer) == why


@pytest.mark.parametrize("program", [
    "query(unique(select(scene(), this)), name)",
    "query(unique(relate_any(select(scene(), cup), in, subject)), name)",
    "query(unique(select(scene(), cup)), color)",
    "exist(select(scene(), building))",
])
def test_only_a_name_of_a_class_is_asked(program: str) -> None:
    assert asked(parse(program, "nested")) is None
