"""The shipped fine-tuned translator (the cascade's fallback) and the default translator: both
turn the documented questions into their programs under the typed grammar, and the adapter's
model card says how it was made."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import qlang
from qlang.commands.main import cli
from qlang.passes.canonical import equivalent
from qlang.translate.models import ADAPTER
from tests.conftest import SHOWN


def test_the_adapter_is_small_and_has_a_model_card() -> None:
    assert ADAPTER.stat().st_size < 12_000_000
    card = (ADAPTER.parent / "README.md").read_text()
    for needed in ("qlangc data", "qlangc train", "seed", "dev"):
        assert needed in card


@pytest.mark.parametrize("translator", ["finetuned", "auto"])
def test_the_default_and_the_finetuned_translator_write_the_documented_programs(translator) -> None:
    for question, program in SHOWN.items():
        result = CliRunner().invoke(cli, ["translate", question, "--translator", translator])
        assert result.exit_code == 0, result.output
        assert equivalent(qlang.parse(result.stdout.strip()), qlang.parse(program)), result.stdout


def test_few_shot_stays_when_a_model_or_examples_are_asked_for() -> None:
    from qlang.translate.factory import resolve

    assert resolve("auto", None, None) == "cascade"
    assert resolve("auto", "gemma3", None) == "fewshot"
    assert resolve("auto", None, 3) == "fewshot"
    assert resolve("fewshot", None, None) == "fewshot"


def test_a_batch_decoded_together_writes_the_documented_programs(tmp_path) -> None:
    """`--together`: the batch's generations share each llama.cpp step, and every record
    keeps its question's program, in order."""
    source, output = tmp_path / "questions.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps({"id": str(i), "question": q}) + "\n" for i, q in enumerate(SHOWN)))
    result = CliRunner().invoke(cli, ["translate", "--jsonl", str(source), "--output", str(output),
                                      "--translator", "finetuned", "--together"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in output.read_text().splitlines()]
    assert [r["id"] for r in records] == [str(i) for i in range(len(SHOWN))]
    for record, program in zip(records, SHOWN.values(), strict=True):
        assert equivalent(qlang.parse(record["program"]), qlang.parse(program)), record
        assert record["completion_tokens"] > 0
