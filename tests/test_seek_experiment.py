"""`qlangc experiment seek` on a few of its real questions: one log line per configuration and
question, resumed, and the report; the labelled photos are real files of installed packages."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run

from qlang.evaluate import seeking


def test_the_labelled_photos_are_files_of_installed_packages() -> None:
    items = seeking.photo_items()
    assert len(items) >= 30 and all(Path(item.image or "").is_file() for item in items)
    assert {item.gold for item in items} >= {"yes", "no"}


def test_the_gqa_scenes_and_their_perturbed_copies() -> None:
    items = seeking.gqa_items()
    by_id = {item.id: item for item in items}
    groups = {item.group for item in items}
    assert groups == {"gqa", "gqa, object removed", "gqa, confidence lowered"}
    for item in items:
        if item.group == "gqa, object removed":
            original = by_id[item.id.removesuffix("-removed")]
            assert item.scene is not None and original.scene is not None
            assert len(item.scene["objects"]) == len(original.scene["objects"]) - 1
        if item.group == "gqa, confidence lowered":
            assert item.scene is not None
            assert [o["confidence"] for o in item.scene["objects"].values() if "confidence" in o] \
                == [seeking.LOWERED]


def test_experiment_seek_logs_resumes_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "seek"
    code, shown, err = run("experiment", "seek", "--out", str(out), "--limit", "1", "--no-progress")
    assert code == 0, err
    assert "report:" in shown
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    configs = set(seeking.CONFIGS)
    assert {r["config"] for r in results} == configs and len(results) == 4 * len(configs)
    flag = {r["config"]: r for r in results if r["id"] == "astronaut-flag"}
    assert flag["pipeline"]["answer"] == "no" and flag["pipeline"]["unseen"] == ["flag"]
    assert flag["ask"]["cannot_tell"] and flag["seek"]["cannot_tell"]
    assert flag["seek"]["reason"] == "no perceiver knows 'flag'"
    report = (out / "report.md").read_text()
    assert "| pipeline | photos | 1 | 0.0% | 100.0% | 0.0% | 1 | 1 |" in report
    assert (out / "seek.png").stat().st_size > 0
    code, _, err = run("experiment", "seek", "--out", str(out), "--limit", "1", "--no-progress")
    assert code == 0, err
    assert len((out / "results.jsonl").read_text().splitlines()) == len(results)
