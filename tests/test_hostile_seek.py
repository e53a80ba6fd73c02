"""Hostile photo files for `experiment seek --photos`: each is read by the bounded JSON reader
and checked against the file's schema, so that every malformed one is an error located in the
file (exit 1), no entry names a module to import, and no photo lies outside its package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qlang.errors import QlangError
from qlang.evaluate import seeking
from tests.conftest import qlangc_process

GOOD = json.loads(seeking.PHOTOS.read_text(encoding="utf-8"))
PHOTO = next(iter(GOOD["photos"]))


def question(**fields: Any) -> dict[str, Any]:
    return {"id": "q", "photo": PHOTO, "question": "Is there a cat?", "answer": "no", **fields}


def photo(**entry: Any) -> str:
    return json.dumps({"name": "x", "photos": {"a": entry}, "questions": []})


CASES = {
    "empty": "",
    "a list": "[]",
    "deep": "[" * 100_000,
    "a 5,000-digit integer": '{"name": ' + "9" * 5000 + "}",
    "a lone surrogate": '{"name": "\\ud800"}',
    "no photos": '{"name": "x", "questions": []}',
    "photos a list": '{"name": "x", "photos": [], "questions": []}',
    "a name not a word": json.dumps({**GOOD, "name": {}}),
    "a module to import": photo(source="this.x", file="x.png"),
    "a package field": photo(package="this", file="x.png"),
    "a path that climbs": photo(source="skimage", file="../../../etc/passwd"),
    "an absolute path": photo(source="skimage", file="/etc/passwd"),
    "a NUL in a path": photo(source="skimage", file="data/\x00astronaut.png"),
    "a folder": photo(source="skimage", file="data"),
    "a file no photo": photo(source="skimage", file="__init__.py"),
    "an archive no photo": photo(source="skimage", file="data/motorcycle_disp.npz"),
    "a kind not a word": photo(source="skimage", file="data/astronaut.png", kind=[]),
    "a question a list": json.dumps({**GOOD, "questions": [[1]]}),
    "a question of no photo": json.dumps({**GOOD, "questions": [{"id": "1"}]}),
    "a type not a word": json.dumps({**GOOD, "questions": [question(type=[1])]}),
    "also not words": json.dumps({**GOOD, "questions": [question(also=[{}])]}),
    "a repeated id": json.dumps({**GOOD, "questions": [question(), question()]}),
}


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_a_malformed_photo_file_is_a_located_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "photos.json"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    with pytest.raises(QlangError) as raised:
        seeking.photo_items(path, None)
    assert raised.value.render().startswith(str(path)), raised.value.render()


def test_the_command_reports_it_before_any_work(tmp_path: Path) -> None:
    path = tmp_path / "photos.json"
    path.write_text(photo(source="this.x", file="x.png"))
    out = str(tmp_path / "out")
    code, output = qlangc_process("experiment", "seek", "--photos", str(path), "--out", out, "--no-gqa")
    assert code == 1, output
    said = f"{path}:1:26: error: the photo 'a': 'this.x' is no known source of photos"
    assert output.startswith(said), output
    assert "Zen of Python" not in output and "Beautiful is better" not in output
