"""The 500 real GPT-4o translations into nested ASP: a parser robustness corpus.

Raw model output (code fences, stray prose, wrong arities) must either check clean or give a
located error of a known kind; never anything else.
"""

from __future__ import annotations

import csv
from collections import Counter

import qlang
from qlang.errors import QlangError, Source
from tests.conftest import DATA

KINDS = {"syntax", "reference", "unknown-operation", "arity", "type", "literal", "vocabulary", "root"}


def _outputs() -> list[str]:
    with open(DATA / "llm_outputs" / "gpt4o_nested_val_eval.csv", newline="") as handle:
        return [row["answer"] for row in csv.DictReader(handle) if row["agent"] == "gpt-4o_raw"]


def test_every_gpt4o_output_checks_or_gives_a_located_error(data_dir) -> None:
    outputs = _outputs()
    assert len(outputs) == 500
    outcome: Counter[str] = Counter()
    for text in outputs:
        try:
            qlang.check(qlang.parse(text, "nested"), source=Source(text))
            outcome["clean"] += 1
        except QlangError as exc:
            first = exc.diagnostics[0]
            assert first.kind in KINDS, first
            assert first.span is not None and first.span.line >= 1 and first.span.column >= 1, first
            assert exc.render().count("^") >= 1
            outcome[first.kind] += 1
    print("\nGPT-4o nested outputs by outcome (first error kind):")
    for kind, count in outcome.most_common():
        print(f"  {count:4d}  {kind}")
    assert outcome["clean"] > 250  # most of GPT-4o's output is a well-typed program
