"""Answer matching on real WordNet cases, with the hypernym bound enforced."""

from __future__ import annotations

import pytest

from qlang.evaluate.matching import Generosity, matches, normalise, top_k_match


@pytest.mark.parametrize("raw, normal", [
    (True, "yes"), ("False", "no"), ("['man']", "man"), ("['man', 'woman']", "['man', 'woman']"),
    ("to the left", "left"), ("On the right side", "right"), ("  Dark_Blue ", "dark blue"),
    ("[__import__('os')]", "[ import ('os')]"),  # a literal is read, never evaluated
])
def test_normalisation_is_the_seeds_sanitize_answer(raw, normal) -> None:
    assert normalise(raw) == normal


def test_generosity_levels_parse() -> None:
    assert str(Generosity.parse("strict")) == "strict"
    assert Generosity.parse("generous") == Generosity(True, 0)
    assert Generosity.parse("generous+") == Generosity(True, 5)
    assert Generosity.parse("generous+2") == Generosity(True, 2)
    with pytest.raises(ValueError):
        Generosity.parse("lenient")


def test_a_more_specific_answer_is_generously_right() -> None:
    assert not matches("shirt", "clothing", "strict")
    assert matches("shirt", "clothing", "generous")  # shirt -> garment -> clothing
    assert matches("sedan", "car", "generous")


def test_synonyms_are_generously_right() -> None:
    assert matches("automobile", "car", "generous")
    assert not matches("automobile", "car", "strict")


def test_the_hypernym_bound_is_enforced() -> None:
    """`clothing` for `shirt` is two levels up: only generous+2 and above accept it."""
    assert not matches("clothing", "shirt", "generous")
    assert not matches("clothing", "shirt", "generous+1")
    assert matches("clothing", "shirt", "generous+2")
    assert matches("clothing", "shirt", "generous+")
    assert not matches("entity", "shirt", "generous+5")  # the top is too far up


def test_suv_is_no_truck() -> None:
    """The seed thesis's case: an SUV is a car, a sibling of trucks, at no level a truck."""
    for level in ("strict", "generous", "generous+", "generous+9"):
        assert not matches("suv", "truck", level)
    assert matches("suv", "car", "generous")


def test_top_k() -> None:
    answers = ["woman", "man", "boy"]
    assert not top_k_match(answers, "man", 1)
    assert top_k_match(answers, "man", 3)
    assert top_k_match(["girl", "shirt"], "clothing", 2, "generous")
