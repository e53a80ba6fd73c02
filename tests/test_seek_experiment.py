"""`qlangc experiment seek` on a few of its real questions: one log line per configuration and
question, resumed, and the report; the labelled photos are real files of installed packages."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import run

from qlang.errors import QlangError
from qlang.evaluate import seeking


def test_the_labelled_photos_are_files_of_installed_packages() -> None:
    items = seeking.photo_items()
    assert len(items) >= 30 and all(Path(item.image or "").is_file() for item in items)
    assert {item.gold for item in items} >= {"yes", "no"}


def test_the_photo_set_is_split_by_photo_into_two_halves() -> None:
    """At least 150 questions about 25 photos, outdoor scenes and close-ups among them, of every
    type; each photo in one half only, each half with enough of each type to measure."""
    photos = seeking.read_photos(seeking.PHOTO_SET)
    assert len(photos.photos) >= 25 and len(photos.questions) >= 150
    assert {"outdoor", "close-up"} <= {photo.kind for photo in photos.photos.values()}
    halves = {half: seeking.photo_items(seeking.PHOTO_SET, half)
              for half in (seeking.CALIBRATION, seeking.TEST)}
    assert sum(map(len, halves.values())) == len(seeking.photo_items(seeking.PHOTO_SET, None))
    images = {half: {item.image for item in items} for half, items in halves.items()}
    assert not images[seeking.CALIBRATION] & images[seeking.TEST]
    for half, items in halves.items():
        assert {item.group for item in items} == {f"photo set, {half}"}
        types = Counter(item.type for item in items)
        assert set(types) == {"exist", "colour", "relation", "what", "kind"} and min(types.values()) >= 5
        assert {item.gold for item in items if item.type == "exist"} == {"yes", "no"}
    assert halves == {half: seeking.photo_items(seeking.PHOTO_SET, half) for half in halves}  # each time


@pytest.mark.parametrize(("photo", "why"), [
    ({"source": "os", "file": "data/astronaut.png"}, "'os' is no known source of photos"),
    ({"source": "skimage", "file": "../../os.py"}, "'../../os.py' is no plain relative path inside skimage"),
    ({"source": "skimage", "file": "/etc/passwd"}, "'/etc/passwd' is no plain relative path inside skimage"),
    ({"source": "skimage", "file": "data/nothing.png"}, "skimage has no file 'data/nothing.png'"),
    ({"source": "skimage"}, "the photo 'p' needs a source and a file"),
])
def test_a_photo_names_a_known_package_and_a_file_inside_it(tmp_path: Path, photo: dict[str, str],
                                                           why: str) -> None:
    """Nothing a photo file says is imported or read outside its package: a located error."""
    path = tmp_path / "photos.json"
    path.write_text(json.dumps({"name": "bad", "photos": {"p": photo},
                                "questions": [{"id": "q", "photo": "p", "question": "Is there a cat?",
                                               "answer": "no"}]}, indent=1))
    with pytest.raises(QlangError) as raised:
        seeking.read_photos(path)
    shown = raised.value.render()
    assert shown.startswith(f"{path}:4:3: error: ") and why in shown, shown
    code, _, err = run("experiment", "seek", "--out", str(tmp_path / "out"), "--photos", str(path),
                       "--no-gqa")
    assert code == 1 and why in err and "Traceback" not in err


@pytest.mark.parametrize(("questions", "why"), [
    ([{"id": "q", "photo": "elsewhere", "question": "Is there a cat?", "answer": "no"}],
     "3:3: error: the question 'q' is about no photo of this file"),
    ([{"id": "q", "photo": "p", "question": "Is there a cat?", "answer": "no"}] * 2,
     "4:3: error: the id 'q' is another question's"),
    ([{"id": "q", "photo": "p", "question": "Is there a cat?"}], "needs a question and an answer"),
    ([{"photo": "p", "question": "Is there a cat?", "answer": "no"}], "question 1 needs an id"),
])
def test_a_question_is_about_a_photo_of_its_file(tmp_path: Path, questions: list[dict[str, str]],
                                                  why: str) -> None:
    path = tmp_path / "photos.json"
    photos = {"p": {"source": "skimage", "file": "data/astronaut.png"}}
    path.write_text("{\"name\": \"bad\", \"photos\": " + json.dumps(photos) + ",\n \"questions\": [\n"
                    + ",\n".join(" " + json.dumps(q) for q in questions) + "]}")
    with pytest.raises(QlangError) as raised:
        seeking.read_photos(path)
    assert why in raised.value.render()


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
    assert {r["config"] for r in results} == configs and len(results) == 5 * len(configs)
    assert {r["group"] for r in results if r["type"]} == {"photo set, test"}
    flag = {r["config"]: r for r in results if r["id"] == "astronaut-flag" and r["group"] == "photos"}
    assert flag["pipeline"]["answer"] == "no" and flag["pipeline"]["unseen"] == ["flag"]
    assert flag["ask"]["cannot_tell"] and flag["seek"]["cannot_tell"]
    assert flag["seek"]["reason"] == "no perceiver knows 'flag'"
    report = (out / "report.md").read_text()
    assert "| pipeline | photos | 1 | 0.0% | 0.0% | 100.0% | 0.0% | 1 | 1 |" in report
    assert (out / "seek.png").stat().st_size > 0
    assert "| pipeline | photo set, test | 1 |" in report and "## By question type" in report
    code, _, err = run("experiment", "seek", "--out", str(out), "--limit", "1", "--no-progress",
                       "--before", str(out))
    assert code == 0, err
    assert len((out / "results.jsonl").read_text().splitlines()) == len(results)
    report = (out / "report.md").read_text()  # compared with itself: no change
    row = [line for line in report.splitlines() if line.startswith("| seek | photo set, test | 1 | ")][-1]
    before, after = row.split(" | ")[3].split(" → ")
    assert before == after
    assert (out / "before-after.png").stat().st_size > 0


def _experiment(tmp_path: Path, photo: str, questions: list[dict[str, str]],
                configs: tuple[str, ...]) -> dict[tuple[str, str], dict[str, Any]]:
    """`experiment seek` of `configs` over questions about one skimage photo: each result by
    its configuration and question id."""
    photos = tmp_path / "photos.json"
    photos.write_text(json.dumps({"name": photo, "photos": {photo: {
        "source": "skimage", "file": f"data/{photo}.png", "provenance": "scikit-image"}},
        "questions": [{"photo": photo, **question} for question in questions]}))
    out = tmp_path / "out"
    chosen = [option for config in configs for option in ("--config", config)]
    code, _, err = run("experiment", "seek", "--out", str(out), "--photos", str(photos), "--no-gqa",
                       *chosen, "--no-progress")
    assert code == 0, err
    logged = map(json.loads, (out / "results.jsonl").read_text().splitlines())
    return {(r["config"], r["id"]): r for r in logged}


def test_the_experiments_ask_withholds_what_seek_would(tmp_path: Path) -> None:
    """The experiment's `ask` takes the same last step as `qlangc ask` on a photo: the cup's
    colour (the coffee in it), orange at 0.57, is below the cut for a colour; the pipeline gives it."""
    results = _experiment(tmp_path, "coffee", [{"id": "cup", "question": "What color is the cup?",
                                                "answer": "red"}], ("pipeline", "ask"))
    assert results["pipeline", "cup"]["answer"] == "orange"
    assert results["ask", "cup"]["cannot_tell"] and results["ask", "cup"]["reason"] == \
        "'orange' is only 0.57 likely against the others"


def test_the_experiments_ask_takes_the_man_to_be_the_person_seen_as_ask_does(tmp_path: Path) -> None:
    """camera.png's one person is "the man" for the experiment's `ask` and seek as for
    `qlangc ask`: what is to his right is the building; whether there is a man stays open."""
    results = _experiment(tmp_path, "camera", [
        {"id": "right", "question": "What is to the right of the man?", "answer": "building"},
        {"id": "man", "question": "Is there a man?", "answer": "yes"}], ("ask", "seek"))
    assert results["ask", "right"]["answer"] == results["seek", "right"]["answer"] == "building"
    assert results["ask", "man"]["cannot_tell"] and results["seek", "man"]["cannot_tell"]


def test_a_malformed_photo_file_is_located(tmp_path: Path) -> None:
    path = tmp_path / "photos.json"
    path.write_text('{"name": "bad",\n "photos": {,}}')
    with pytest.raises(QlangError) as raised:
        seeking.read_photos(path)
    assert raised.value.render().startswith(f"{path}:2:13: error: malformed JSON")


def test_an_unknown_configuration_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run("experiment", "seek", "--out", str(tmp_path / "out"), "--config", "seek, no plan")
    assert code == 2 and "no configuration 'seek, no plan' (known: 'pipeline', 'ask', 'seek'," in err
    assert not (tmp_path / "out").exists()


def test_the_report_says_how_far_perception_reaches_each_question(tmp_path: Path) -> None:
    """On coffee.png the spoon is found at 0.19: under `ask`'s cut, in seek's reach; no
    perceiver has a label for a flag; a "no" about a dog is sound (COCO's detector covers
    dogs); the report's "at most" counts the questions in reach."""
    results = _experiment(tmp_path, "coffee", [
        {"id": "spoon", "question": "Is there a spoon?", "answer": "yes"},
        {"id": "flag", "question": "Is there a flag?", "answer": "no"},
        {"id": "dog", "question": "Is there a dog?", "answer": "no"}], ("ask", "seek"))
    reach = {key: r["reach"] for key, r in results.items()}
    assert reach["ask", "spoon"] == {"why": "under the cut", "words": ["spoon"]}
    assert reach["seek", "spoon"] == {"why": "in reach", "words": []}
    assert reach["ask", "flag"] == reach["seek", "flag"] == {"why": "no label", "words": ["flag"]}
    assert reach["ask", "dog"] == reach["seek", "dog"] == {"why": "in reach", "words": []}
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| ask | coffee | 3 |" in report and "| 33.3% | " in report.split("| ask | coffee | 3 |")[1]
    assert "| coffee | seek | " in report and "## Perception's reach" in report
    assert "- no label: flag (2)" in report
