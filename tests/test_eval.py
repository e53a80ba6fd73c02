"""`qlangc eval`: program metrics and answers against the oracle, on the real emma questions."""

from __future__ import annotations

import json

from click.testing import CliRunner

import qlang
from qlang.cli import cli
from qlang.syntax import gqa
from tests.conftest import DATA

SCENES = DATA / "gqa" / "scenes"


def _questions() -> dict[str, dict]:
    return json.loads((SCENES / "emma_questions.json").read_text())


def _run(tmp_path, programs: dict[str, str | None]) -> dict:
    path = tmp_path / "translations.jsonl"
    path.write_text("\n".join(json.dumps({"id": qid, "program": p}) for qid, p in programs.items()))
    result = CliRunner().invoke(cli, ["eval", str(path), "--questions", str(SCENES / "emma_questions.json"),
                                      "--scenes", str(SCENES / "emma_sceneGraphs.json"), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_gold_translations_score_as_the_oracle(tmp_path) -> None:
    nested = qlang.SYNTAXES["nested"].print
    gold = {qid: nested(gqa.to_ir(gqa.steps_from_json(q["semantic"]))) for qid, q in _questions().items()}
    figures = _run(tmp_path, gold)
    assert figures["programs"]["total"] == 9 and figures["programs"]["exact_rate"] == 1.0
    strict_top1 = next(r for r in figures["answers"] if r["generosity"] == "strict" and r["k"] == 1)
    assert strict_top1["questions"] == 4  # the emma questions whose scene graphs exist
    assert strict_top1["answerable"] == 4 and strict_top1["vs_oracle"] == 1.0


def test_wrong_and_missing_translations_count_against(tmp_path) -> None:
    programs = {qid: None for qid in _questions()}
    programs["041477"] = "query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)"
    programs["041438"] = "exist(select(scene(), logo))"  # answers yes, as the gold does, by luck
    programs["142457"] = "query(unique(select(scene(), shelf)), color)"
    figures = _run(tmp_path, programs)
    assert figures["programs"]["parse_rate"] == 3 / 9
    rows = {(r["generosity"], r["k"]): r for r in figures["answers"]}
    assert rows[("strict", 1)]["accuracy"] == 2 / 4
    assert figures["programs"]["dropped"]["choose_attr"] >= 1
