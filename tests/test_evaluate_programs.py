"""Program-level metrics and blind concept extraction, on real programs."""

from __future__ import annotations

import csv
from collections import Counter

import qlang
from qlang.evaluate.concepts import extract
from qlang.evaluate.programs import score, summarize
from qlang.ontology import load
from qlang.syntax import gqa
from tests.conftest import DATA, questions


def _gold(record: dict) -> qlang.Node:
    return qlang.canonicalize(gqa.to_ir(gqa.steps_from_json(record["semantic"])))


def test_the_gold_program_scores_perfectly_in_every_syntax() -> None:
    for record in list(questions("testdev_ood_head.json").values())[:100]:
        gold = _gold(record)
        for syntax in ("flat", "nested", "code", "gqa"):
            result = score(qlang.SYNTAXES[syntax].print(gold), syntax, gold)
            assert result.exact and not result.dropped and not result.invented


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
    assert sum(summary.errors.values()) == sum(not s.checked for s in scores)


def test_blind_concepts_expand_any_to_every_class() -> None:
    concepts = extract(qlang.parse(
        "and(exist(relate_any(select(scene(), girl), on, object)), "
        "verify_attr(unique(select(scene(), car)), any, green))"))
    assert concepts.classes == load().classes
    assert concepts.relations == {"on"} and concepts.values == {"green"}
    assert "any" not in concepts.attributes


def test_blind_concepts_of_a_gold_program(data_dir) -> None:
    record = questions("testdev_ood_head.json")
    first = next(iter(record.values()))  # "... the piece of furniture that is in front of the white wall?"
    concepts = extract(_gold(first))
    assert {"wall", "furniture"} <= concepts.classes
    assert concepts.values == {"white"} and concepts.attributes == {"color"}
    assert concepts.relations == {"in front of"}
