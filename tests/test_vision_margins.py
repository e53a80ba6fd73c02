"""Seek's cuts per kind of answer: the kinds a program's answer is of, the fit on labelled
answers, and the table fitted on the photo set's calibration half."""

from __future__ import annotations

import pytest

from qlang.api import parse
from qlang.vision.margins import FLOOR, Margins, fit, keys, table


@pytest.mark.parametrize(("program", "kinds"), [
    ("exist(select(scene(), tree))", ["exist"]),
    ("query(unique(select(scene(), cup)), color)", ["color"]),
    ("query(unique(select(scene(), sky)), color)", ["color, stuff", "color"]),
    ("query(unique(select(scene(), object)), name)", ["name"]),
    ("verify_rel(unique(select(scene(), building)), water, in_front_of, object)",
     ["relation, in front of", "relation"]),
    ("query(unique(relate_any(select(scene(), water), on, subject)), name)", ["relation, on", "relation"]),
    ("exist(relate(relate(select(scene(), cup), plate, on, subject), table, on, subject))",
     ["relation, on", "relation"]),
    ("exist(relate(relate(select(scene(), cup), plate, on, subject), table, under, subject))", ["relation"]),
])
def test_an_answer_is_of_the_kind_the_program_asks(program: str, kinds: list[str]) -> None:
    assert keys(parse(program, "nested")) == kinds


def test_a_kind_without_a_cut_takes_the_next_coarser_one_then_the_default() -> None:
    margins = Margins(0.6, {"color": 0.5, "relation": 0.8, "relation, on": 0.5})
    assert margins.of(parse("query(unique(select(scene(), sky)), color)", "nested")) == 0.5
    assert margins.of(parse("query(unique(relate_any(select(scene(), cup), under, subject)), name)",
                            "nested")) == 0.8
    assert margins.of(parse("query(unique(select(scene(), cup)), material)", "nested")) == 0.6


def test_the_fit_passes_no_wrong_answer_of_few_and_goes_below_no_floor() -> None:
    assert fit([(0.41, False), (0.55, True), (0.99, True)], 0.6) == 0.55
    assert fit([(0.36, True), (0.52, True), (0.667, False), (0.76, True), (0.9, True)], 0.6) == 0.76
    assert fit([(0.3, True), (0.45, True), (0.41, False)], 0.4) == FLOOR
    assert fit([(0.3, True), (0.45, True)], 0.6) == 0.6
    assert fit([(0.7, False)], 0.6) == pytest.approx(0.701)
    assert fit([], 0.6) is None


def test_the_fit_lowers_the_default_only_as_far_as_right_answers_were_seen() -> None:
    """A wrong colour at 0.41 and a right one at 0.99 say nothing of one at 0.55."""
    assert fit([(0.405, False), (0.99, True)], 0.6) == 0.6
    assert fit([(0.527, True), (0.99, True)], 0.6) == 0.527


def test_the_fit_allows_one_wrong_answer_in_twenty() -> None:
    answers = [(0.55, False)] + [(0.6 + i / 100, True) for i in range(19)]
    assert fit(answers, 0.6) == 0.6
    assert fit([(0.52, True), *answers], 0.6) == 0.52
    assert fit([(0.55, False), *answers], 0.6) == 0.6


def test_the_shipped_cuts_are_fitted_and_above_the_floor() -> None:
    shipped = table()
    assert shipped.cuts and all(FLOOR <= cut <= 1.001 for cut in shipped.cuts.values())
    assert FLOOR <= shipped.default < 1.0
