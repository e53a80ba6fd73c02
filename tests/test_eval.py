"""`qlangc eval`: program metrics and answers against the oracle, on the real emma questions."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

import qlang
from qlang.commands.main import cli
from qlang.syntax import gqa
from tests.conftest import DATA

SCENES = DATA / "gqa" / "scenes"


def _questions() -> dict[str, dict]:
    return json.loads((SCENES / "emma_questions.json").read_text())


def _run(tmp_path, programs: dict[str, str | None], *options: str) -> str:
    path = tmp_path / "translations.jsonl"
    path.write_text("\n".join(json.dumps({"id": qid, "program": p}) for qid, p in programs.items()))
    result = CliRunner().invoke(cli, ["eval", str(path), "--questions", str(SCENES / "emma_questions.json"),
                                      *options])
    assert result.exit_code == 0, result.output
    return result.stdout


def _figures(tmp_path, programs: dict[str, str | None]) -> dict:
    return json.loads(_run(tmp_path, programs, "--scenes", str(SCENES / "emma_sceneGraphs.json"), "--json"))


def test_gold_translations_score_as_the_oracle(tmp_path) -> None:
    nested = qlang.SYNTAXES["nested"].print
    gold = {qid: nested(gqa.to_ir(gqa.steps_from_json(q["semantic"]))) for qid, q in _questions().items()}
    figures = _figures(tmp_path, gold)
    assert figures["programs"]["total"] == 9
    assert figures["programs"]["exact_rate"] == figures["programs"]["strict_rate"] == 1.0
    assert figures["programs"]["execution_rate"] == 1.0
    strict_top1 = next(r for r in figures["answers"] if r["generosity"] == "strict" and r["k"] == 1)
    assert strict_top1["questions"] == 4  # the emma questions whose scene graphs exist
    assert strict_top1["answerable"] == 4 and strict_top1["vs_oracle"] == 1.0


def test_wrong_and_missing_translations_count_against(tmp_path) -> None:
    programs = {qid: None for qid in _questions()}
    programs["041477"] = "query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)"
    programs["041438"] = "exist(select(scene(), logo))"  # answers yes, as the gold does, by luck
    programs["142457"] = "query(unique(select(scene(), shelf)), color)"
    figures = _figures(tmp_path, programs)
    assert figures["programs"]["parse_rate"] == 3 / 9
    assert figures["programs"]["exact_rate"] == figures["programs"]["execution_rate"] == 1 / 9
    rows = {(r["generosity"], r["k"]): r for r in figures["answers"]}
    assert rows[("strict", 1)]["accuracy"] == 2 / 4
    assert figures["programs"]["dropped"]["choose_attr"] >= 1


def test_exact_strict_and_execution_side_by_side(tmp_path) -> None:
    """The shelf's sides in the other order: exact, not strict; `filter class` of the selected
    birds: neither, but it executes as the gold program does; the knife's other axis: none."""
    programs = {"142457": "choose_attr(unique(select(scene(), shelf)), hposition, right, left)",
                "05515938": "query(unique(filter(select(scene(), bird), class, bird)), name)",
                "1231468": "query(unique(select(scene(), knife)), vposition)"}
    printed = _run(tmp_path, programs)
    assert "parse 100.0%, check 100.0%, exact 33.3%, strict 0.0%, execution 66.7%" in printed


def test_figures_over_verbatim_unseen_questions_and_latency(tmp_path) -> None:
    """Questions whose text is among the training pairs are counted apart; seconds summarised."""
    nested = qlang.SYNTAXES["nested"].print
    questions = _questions()
    lines = [{"id": qid, "seconds": 0.1 * n,
              "program": nested(gqa.to_ir(gqa.steps_from_json(q["semantic"]))) if n else None}
             for n, (qid, q) in enumerate(questions.items())]
    path = tmp_path / "translations.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    seen = tmp_path / "train.jsonl"
    first = next(iter(questions.values()))
    seen.write_text(json.dumps({"id": "t", "question": "  " + first["question"].upper()}) + "\n")
    result = CliRunner().invoke(cli, ["eval", str(path), "--questions", str(SCENES / "emma_questions.json"),
                                      "--unseen", str(seen), "--json"])
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["programs"]["exact_rate"] == 8 / 9  # the first has no program
    assert figures["verbatim-unseen"]["total"] == 8 and figures["verbatim-unseen"]["exact_rate"] == 1.0
    assert figures["latency"] == pytest.approx({"median_s": 0.4, "p90_s": 0.7})


@pytest.mark.parametrize(("reader", "correct"), [([], 1), (["--reader", "strict"], 0)])
def test_eval_reads_refused_output_leniently_unless_strict(tmp_path, reader: list[str], correct: int) -> None:
    """As the experiments: the raw output the strict reader refused (`Man = ...`) is answered."""
    raw = "Man = unique(relate(select(scene(), shorts), person, wearing, subject))\nquery(Man, name)"
    path = tmp_path / "translations.jsonl"
    path.write_text(json.dumps({"id": "041477", "program": None, "raw": raw}) + "\n")
    result = CliRunner().invoke(cli, ["eval", str(path), "--questions", str(SCENES / "emma_questions.json"),
                                      "--scenes", str(SCENES / "emma_sceneGraphs.json"), "--json",
                                      "--semantics", "qlang", *reader])
    assert result.exit_code == 0, result.output
    rows = {(r["generosity"], r["k"]): r for r in json.loads(result.stdout)["answers"]}
    assert rows[("strict", 1)]["accuracy"] == correct
