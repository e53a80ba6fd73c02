"""Program-level metrics and blind concept extraction, on real programs."""

from __future__ import annotations

import csv
from collections import Counter

import pytest

import qlang
from qlang.evaluate.programs import score, summarize
from qlang.ir import Node, op
from qlang.ontology import PRONOUNS, load
from qlang.passes.canonical import equivalent
from qlang.syntax import gqa
from qlang.vision.concepts import extract
from tests.conftest import DATA, questions


def _gold(record: dict) -> qlang.Node:
    return qlang.canonicalize(gqa.to_ir(gqa.steps_from_json(record["semantic"])))


def test_the_gold_program_scores_perfectly_in_every_syntax() -> None:
    for record in list(questions("testdev_ood_head.json").values())[:100]:
        gold = _gold(record)
        for syntax in ("flat", "nested", "code", "gqa"):
            result = score(qlang.SYNTAXES[syntax].print(gold), syntax, gold)
            assert result.exact and result.strict and result.execution
            assert not result.dropped and not result.invented


# ----- order-insensitive equality ----------------------------------------------------------------

def _objects(cls: str, value: str | None = None) -> Node:
    chosen = op("select", op("scene"), cls)
    return op("filter", chosen, "color", value) if value else chosen


CAR, DOG = _objects("car", "red"), _objects("dog")
SWAPS = {  # (one program, the same with the order that means nothing swapped)
    "and": (op("and", op("exist", CAR), op("exist", DOG)), op("and", op("exist", DOG), op("exist", CAR))),
    "or": (op("or", op("exist", CAR), op("exist", DOG)), op("or", op("exist", DOG), op("exist", CAR))),
    "two_same": (op("two_same", CAR, DOG, "color"), op("two_same", DOG, CAR, "color")),
    "two_different": (op("two_different", CAR, DOG, "size"), op("two_different", DOG, CAR, "size")),
    "common": (op("common", op("unique", CAR), op("unique", DOG)),
               op("common", op("unique", DOG), op("unique", CAR))),
    "choose_attr": (op("choose_attr", op("unique", DOG), "color", "black", "white"),
                    op("choose_attr", op("unique", DOG), "color", "white", "black")),
    "choose_rel": (op("choose_rel", op("unique", DOG), "car", "on", "under", "subject"),
                   op("choose_rel", op("unique", DOG), "car", "under", "on", "subject")),
    "nested": (op("and", op("two_same", CAR, DOG, "color"),
                  op("verify_attr", op("unique", CAR), "any", "red")),
               op("and", op("verify_attr", op("unique", CAR), "any", "red"),
                  op("two_same", DOG, CAR, "color"))),
}
NOT_SWAPPABLE = {  # swapping what the operation's meaning depends on
    "negate": (op("negate", CAR, _objects("car")), op("negate", _objects("car"), CAR)),
    "compare": (op("compare", CAR, DOG, "large", "true"), op("compare", DOG, CAR, "large", "true")),
    "relate direction": (op("relate", DOG, "car", "on", "subject"),
                         op("relate", DOG, "car", "on", "object")),
    "verify_rel direction": (op("verify_rel", op("unique", DOG), "car", "on", "subject"),
                             op("verify_rel", op("unique", DOG), "car", "on", "object")),
    "choose_rel direction": (op("choose_rel", op("unique", DOG), "car", "on", "under", "subject"),
                             op("choose_rel", op("unique", DOG), "car", "on", "under", "object")),
    "filter order": (op("filter", op("filter", DOG, "color", "black"), "size", "large"),
                     op("filter", op("filter", DOG, "size", "large"), "color", "black")),
}


@pytest.mark.parametrize("name", SWAPS)
def test_symmetric_operands_and_alternatives_are_equivalent(name: str) -> None:
    a, b = SWAPS[name]
    assert a != b and equivalent(a, b) and equivalent(b, a)


@pytest.mark.parametrize("name", NOT_SWAPPABLE)
def test_order_that_matters_is_not_equivalent(name: str) -> None:
    assert not equivalent(*NOT_SWAPPABLE[name])


def test_exact_ignores_the_order_strict_does_not() -> None:
    printed = {name: qlang.SYNTAXES["nested"].print(b) for name, (_, b) in SWAPS.items()}
    for name, (gold, _) in SWAPS.items():
        result = score(printed[name], "nested", gold)
        assert result.exact and not result.strict and result.execution, name
    summary = summarize(score(printed[name], "nested", gold) for name, (gold, _) in SWAPS.items())
    assert summary.exact_rate == 1.0 and summary.strict_rate == 0.0
    assert summary.to_json()["strict_rate"] == 0.0


def test_execution_credits_a_differently_written_program_exact_match_misses() -> None:
    gold = qlang.parse(
        "query(unique(filter(filter(select(scene(), car), color, red), material, metal)), size)")
    swapped = "query(unique(filter(filter(select(scene(), car), material, metal), color, red)), size)"
    result = score(swapped, "nested", gold)
    assert result.execution and not result.exact and not result.strict
    wrong = score("query(unique(filter(select(scene(), car), material, metal)), size)", "nested", gold)
    assert wrong.checked and not wrong.execution


def test_confusion_names_dropped_and_invented_operations() -> None:
    gold = qlang.parse("exist(filter(select(scene(), car), color, green))")
    result = score("exist(select(scene(), car))", "nested", gold)
    assert result.checked and not result.exact
    assert result.dropped == Counter({"filter": 1}) and not result.invented
    result = score("query(unique(select(scene(), car)), color)", "nested", gold)
    assert result.dropped == Counter({"exist": 1, "filter": 1})
    assert result.invented == Counter({"unique": 1, "query": 1})


def test_summary_over_the_real_gpt4o_outputs(data_dir) -> None:
    """GPT-4o's 500 nested translations of val questions against their gold programs."""
    pool = questions("val_balanced_tail.json")
    with open(DATA / "llm_outputs" / "gpt4o_nested_val_eval.csv", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["agent"] == "gpt-4o_raw" and r["qid"] in pool]
    scores = [score(r["answer"], "nested", _gold(pool[r["qid"]])) for r in rows]
    summary = summarize(scores)
    print(f"\nGPT-4o on {summary.total} val questions: parse {summary.parse_rate:.1%}, "
          f"check {summary.check_rate:.1%}, exact {summary.exact_rate:.1%}; "
          f"dropped {summary.dropped.most_common(3)}, invented {summary.invented.most_common(3)}")
    assert summary.total == len(rows) > 0
    assert summary.parse_rate >= summary.check_rate >= summary.exact_rate > 0
    assert summary.check_rate >= summary.execution_rate >= summary.exact_rate >= summary.strict_rate
    assert sum(summary.errors.values()) == sum(not s.checked for s in scores)


def test_blind_concepts_expand_any_to_every_class() -> None:
    """Every class but the pronouns GQA selects (this, he, she): a photo's subject answers to
    them, looked for only where a question names one, never by a blind `relate_any`."""
    concepts = extract(qlang.parse(
        "and(exist(relate_any(select(scene(), girl), on, object)), "
        "verify_attr(unique(select(scene(), car)), any, green))"))
    assert concepts.classes == load().classes - PRONOUNS and load().classes >= PRONOUNS
    assert concepts.relations == {"on"} and concepts.values == {"green"}
    assert "any" not in concepts.attributes


def test_blind_concepts_of_a_gold_program(data_dir) -> None:
    record = questions("testdev_ood_head.json")
    first = next(iter(record.values()))  # "... the piece of furniture that is in front of the white wall?"
    concepts = extract(_gold(first))
    assert {"wall", "furniture"} <= concepts.classes
    assert concepts.values == {"white"} and concepts.attributes == {"color"}
    assert concepts.relations == {"in front of"}
