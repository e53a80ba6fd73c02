"""Translation end to end with the bundled default model (SmolLM2-135M-Instruct, llama.cpp).

The headline property of grammar-constrained decoding: every output parses and type-checks,
although a 135M model, left unconstrained, rarely writes a program at all.  The tests hold it on
a few real dev questions; the figures over many (how many check, how exact, how fast, per
engine) are bench/translate.py's and `qlangc experiment constrained`'s.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import qlang
from qlang.commands.main import cli
from qlang.passes.translation import REFUSALS, settle
from qlang.translate.backends import load_backend
from qlang.translate.examples import load_pool
from qlang.translate.translator import Settings, Translator
from tests.conftest import questions

#: real dev questions per property: enough to meet varied questions, few enough to run often
FIRST = 12


def _dev(count: int = FIRST) -> list[str]:
    return [r["question"] for r in list(questions("testdev_ood_head.json").values())[:count]]


@pytest.fixture(scope="module")
def llama():
    return load_backend("llama-cpp")


@pytest.fixture(scope="module")
def pool():
    return load_pool()


def test_constrained_outputs_always_parse_and_check(llama, pool) -> None:
    translator = Translator(llama, pool, Settings(syntax="nested", examples=5))
    results = [translator.translate(question) for question in _dev()]
    # `settle` may refuse a program that answers another question, never one that fails to check
    failures = [(t.question, t.program, t.error) for t in results
                if not t.ok and (t.error is None or t.error.diagnostics[0].kind not in REFUSALS)]
    assert not failures, failures[:3]
    for translation in results:  # what the translator returns is what it checked
        qlang.check(qlang.parse(translation.program, "nested"))


def test_unconstrained_outputs_show_the_gap_the_grammar_closes(llama, pool) -> None:
    settings = Settings(syntax="nested", examples=5, constrained=False, max_tokens=64)
    translator = Translator(llama, pool, settings)
    results = [translator.translate(question) for question in _dev(FIRST // 2)]  # each runs to the cap
    assert sum(t.ok for t in results) < len(results) / 2  # the same questions all check above
    assert all(t.ok or (t.error and t.error.diagnostics) for t in results)  # every failure says why


def test_translate_command_prints_a_checked_program() -> None:
    """(Three examples are few for the bundled model: for "Is there a red car?" it infers a kind
    of ice-cream cone, which `settle` refuses.)"""
    result = CliRunner().invoke(cli, ["translate", "What color is the car?", "--examples", "3"])
    assert result.exit_code == 0, result.output
    qlang.check(qlang.parse(result.stdout.strip(), "nested"))


def test_translate_batch_records_every_question_and_resumes(tmp_path) -> None:
    source = tmp_path / "questions.jsonl"
    lines = [{"id": "a", "question": "Is there a red car?"}, {"id": "b"},
             {"id": "c", "question": "What color is the cup?"}]
    source.write_text("\n".join(json.dumps(line) for line in lines))
    output = tmp_path / "out.jsonl"
    args = ["translate", "--jsonl", str(source), "--output", str(output), "--examples", "2"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 1  # line b has no question
    results = [json.loads(line) for line in output.read_text().splitlines()]
    assert [r["id"] for r in results] == ["a", "b", "c"]
    assert results[1]["error"]["kind"] == "input"
    assert results[0]["program"] and results[0]["seconds"] > 0 and results[0]["completion_tokens"] > 0
    CliRunner().invoke(cli, args)
    assert len(output.read_text().splitlines()) == 3  # nothing repeated


def test_ask_translates_checks_and_solves() -> None:
    result = CliRunner().invoke(cli, ["ask", "Who wears shorts?", "--scene",
                                      "examples/scene_2353884.json", "--examples", "5"])
    assert result.exit_code in (0, 1), result.output
    lines = dict(line.split(":", 1) for line in result.stdout.splitlines() if ":" in line)
    qlang.check(qlang.parse(lines["program"].strip(), "nested"))
    assert "translate" in lines["time"] and "solve" in lines["time"]


def test_only_few_shot_translators_read_the_example_pool(monkeypatch, tmp_path) -> None:
    """finetuned, cascade and small show no examples: they translate where the pool file is not."""
    monkeypatch.setattr("qlang.translate.examples.DEFAULT_POOL", tmp_path / "absent.json")
    for translator in ("finetuned", "cascade", "small"):
        result = CliRunner().invoke(cli, ["translate", "Is the cup red?", "--translator", translator])
        assert result.exit_code == 0, result.output
        assert result.stdout == "verify_attr(unique(select(scene(), cup)), color, red)\n"
    result = CliRunner().invoke(cli, ["translate", "Is the cup red?", "--translator", "fewshot"])
    assert result.exit_code == 1 and "cannot read the example pool" in result.stderr



#: a program `settle` refuses for its question, of each kind of refusal
REFUSED = [
    ("query(unique(relate(select(scene(), pillow), device, to_the_left_of, subject)), name)",
     "What kind of device is right of the pillow?", "unsaid"),
    ("exist(relate(select(scene(), road), car, on, subject))", "Is there a car that drives on the road?",
     "shortened"),
    ("query(unique(filter(select(scene(), plate), color, pink)), name)",
     "What is on the plate that looks pink and red?", "dropped"),
    ("infer(select(scene(), peanut), go)", "What drink might go with that peanut?", "kindless"),
]


@pytest.mark.parametrize(("program", "question", "kind"), REFUSED)
def test_every_refusal_of_settle_is_one_of_its_refusals(program: str, question: str, kind: str) -> None:
    with pytest.raises(qlang.CheckError) as caught:
        settle(qlang.parse(program), question)
    assert caught.value.diagnostics[0].kind == kind
    assert {kind for *_, kind in REFUSED} == REFUSALS  # every kind of REFUSALS is tried here
