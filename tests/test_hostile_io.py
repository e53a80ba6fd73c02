"""Hostile input and output: every read is bounded, every output is checked before
the work, and an output that cannot be written is an error, exit 1.

Reads that once grew without end run in a process of their own under the memory ceiling
(`tests.conftest.memory_ceiling`), so that one that grows again fails the test, not the machine;
those that once hung have a hang guard.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from tests.conftest import EMMA, QLANGC, memory_ceiling, qlangc_process, run, write

QUESTIONS = str(Path(EMMA).parent.parent / "questions" / "testdev_ood_head.json")
GOOD = "exist(select(scene(), man))"
#: an image of the emma scenes
IMAGE = "2353884"


def results(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.split("\n") if line]


def program_lines(path: Path, count: int = 3) -> str:
    return write(path, "".join(json.dumps({"id": i, "program": GOOD, "image_id": IMAGE}) + "\n"
                               for i in range(count)))


def qlangc(*args: str, stdin: IO[Any] | None = None, stdout: IO[Any] | int | None = subprocess.PIPE,
           close_stdout: bool = False, timeout: float = 60) -> tuple[int, str]:
    """qlangc in a process of its own under the memory ceiling, reading `stdin`, writing to
    `stdout` (or with standard output closed): its exit status and standard error."""
    def limited() -> None:
        memory_ceiling()
        if close_stdout:
            os.close(1)

    done = subprocess.run([*QLANGC, *args], stdin=stdin, stdout=stdout, stderr=subprocess.PIPE,
                          preexec_fn=limited, timeout=timeout)
    return done.returncode, done.stderr.decode(errors="replace")


# ----- every read bounded --------------------------------------------------------------------

def test_an_endless_device_as_a_program_ends_at_the_program_limit() -> None:
    code, out = qlangc_process("check", "/dev/zero", timeout=60)
    assert code == 1 and "/dev/zero: error: exceeds 16 MB, the limit for a program" in out
    assert "QLANG_MAX_PROGRAM_MB" in out and "internal error" not in out


@pytest.mark.parametrize(("args", "limit"), [
    (("solve", "--scene", "/dev/zero", "--program", "PROGRAM"), "QLANG_MAX_SCENE_MB"),
    (("check", "--jsonl", "/dev/zero"), "QLANG_MAX_QUESTIONS_MB"),
    (("solve", "--jsonl", "--scene", EMMA, "--program", "/dev/urandom"), "QLANG_MAX_QUESTIONS_MB"),
    (("eval", "/dev/zero", "--questions", QUESTIONS), "QLANG_MAX_QUESTIONS_MB"),
    (("oracle", "/dev/zero", "--scenes", EMMA), "QLANG_MAX_QUESTIONS_MB"),
    (("data", "/dev/zero", "--out", "OUT"), "QLANG_MAX_QUESTIONS_MB"),
], ids=["scene", "jsonl", "urandom", "translations", "questions", "training-data"])
def test_an_endless_device_ends_at_its_kinds_limit(args: tuple[str, ...], limit: str, tmp_path: Path) -> None:
    program = write(tmp_path / "p.txt", GOOD)
    args = tuple(program if a == "PROGRAM" else str(tmp_path / "out") if a == "OUT" else a for a in args)
    code, out = qlangc_process(*args, timeout=60)
    assert code == 1 and " MB, the limit for " in out and limit in out, out
    assert "internal error" not in out


def test_endless_standard_input_ends_at_the_program_limit() -> None:
    with open("/dev/zero", "rb") as zeros:
        code, err = qlangc("check", "-", stdin=zeros)
    assert code == 1 and "<stdin>: error: exceeds 16 MB" in err


@pytest.fixture
def endless_fifo(tmp_path: Path) -> Iterator[Path]:
    """A named pipe a writer fills without end (until its reader is gone)."""
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat /dev/zero > '{fifo}'"], stderr=subprocess.DEVNULL)
    yield fifo
    writer.kill()
    writer.wait(10)


def test_a_pipe_that_never_ends_is_read_within_the_limit(endless_fifo: Path) -> None:
    code, out = qlangc_process("compile", "--to", "code", str(endless_fifo), timeout=60)
    assert code == 1 and f"{endless_fifo}: error: exceeds 16 MB, the limit for a program" in out


def test_an_output_that_never_ends_is_written_not_read(tmp_path: Path) -> None:
    code, out = qlangc_process("check", "--jsonl", program_lines(tmp_path / "in.jsonl"),
                               "--output", "/dev/zero", timeout=60)
    assert code == 0 and "internal error" not in out


def test_an_output_on_a_full_device_is_an_error(tmp_path: Path) -> None:
    code, out = qlangc_process("check", "--jsonl", program_lines(tmp_path / "in.jsonl"),
                               "--output", "/dev/full", timeout=60)
    assert code == 1 and "/dev/full: error: cannot write: No space left on device" in out


def test_an_output_larger_than_its_limit_is_not_read(tmp_path: Path) -> None:
    inputs = program_lines(tmp_path / "in.jsonl", 100)
    output = tmp_path / "out.jsonl"
    assert run("check", "--jsonl", inputs, "--output", str(output))[0] == 0
    before = output.read_bytes()
    assert len(before) > 2000
    code, out = qlangc_process("check", "--jsonl", inputs, "--output", str(output),
                               env={"QLANG_MAX_OUTPUT_MB": "0.002"})
    assert code == 1 and "exceeds 0.002 MB, the limit for an output file being resumed" in out
    assert output.read_bytes() == before


def test_a_line_longer_than_the_line_limit_costs_only_itself(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QLANG_MAX_LINE_MB", "0.001")
    long = json.dumps({"id": "long", "program": GOOD, "note": "x" * 2000})
    short = json.dumps({"id": "short", "program": GOOD})
    code, out, _ = run("check", "--jsonl", "-", input=f"{short}\n{long}\n{short}\n")
    assert code == 1
    lines = results(out)
    assert [line["id"] for line in lines] == ["short", None, "short"]
    assert lines[0]["ok"] and lines[2]["ok"]
    assert "line 2 is longer than 0.001 MB, the limit for a JSON line" in lines[1]["error"]["message"]


def test_a_limit_that_is_no_number_is_an_error() -> None:
    code, out = qlangc_process("ops", env={"QLANG_MAX_SCENE_MB": "lots"})
    assert code == 1 and "QLANG_MAX_SCENE_MB='lots' is not a positive number of megabytes" in out


# ----- outputs checked before the work ---------------------------------------------------------

def test_a_missing_output_folder_is_refused_before_the_work(tmp_path: Path) -> None:
    output = tmp_path / "missing" / "answerable.json"
    code, out, err = run("oracle", QUESTIONS, "--scenes", EMMA, "--output", str(output))
    assert code == 1 and f"the output folder {output.parent} does not exist" in err
    assert out == ""  # no oracle was run


@pytest.mark.parametrize("command", [["check"], ["compile", "--to", "code"], ["solve", "--scene", EMMA]])
def test_a_batch_into_a_missing_folder_is_an_error(command: list[str], tmp_path: Path) -> None:
    inputs = program_lines(tmp_path / "in.jsonl")
    jsonl = ["--jsonl", "--program", inputs] if command[0] == "solve" else ["--jsonl", inputs]
    code, _, err = run(*command, *jsonl, "--output", str(tmp_path / "no" / "out.jsonl"))
    assert code == 1 and "does not exist" in err


def test_an_output_folder_that_cannot_be_made_is_refused_before_the_work(tmp_path: Path) -> None:
    blocker = write(tmp_path / "file", "")
    code, out, err = run("data", QUESTIONS, "--out", f"{blocker}/data")
    assert code == 1 and "cannot make the output folder" in err
    assert out == ""


def test_training_data_never_overwrites_its_input(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    source = folder / "train.jsonl"
    shutil.copy(QUESTIONS, source)
    code, _, err = run("data", str(source), "--out", str(folder))
    assert code == 1 and "the output file is the input file" in err
    assert source.read_bytes() == Path(QUESTIONS).read_bytes()


def test_the_oracle_never_overwrites_its_questions(tmp_path: Path) -> None:
    questions = tmp_path / "q.json"
    shutil.copy(QUESTIONS, questions)
    code, _, err = run("oracle", str(questions), "--scenes", EMMA, "--output", str(questions))
    assert code == 1 and "the output file is the input file" in err
    assert questions.read_bytes() == Path(QUESTIONS).read_bytes()


@pytest.fixture(scope="module")
def photo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real photograph (scikit-image's)."""
    data = pytest.importorskip("skimage.data")
    from PIL import Image

    path = tmp_path_factory.mktemp("photo") / "coffee.png"
    Image.fromarray(data.coffee()).save(path)
    return path


@pytest.mark.parametrize("option", ["-o", "--draw"])
@pytest.mark.parametrize("name", ["same", "link"])
def test_perceive_never_overwrites_the_photo(photo: Path, tmp_path: Path, option: str, name: str) -> None:
    image = tmp_path / "photo.png"
    shutil.copy(photo, image)
    target = image
    if name == "link":  # the same file by another name
        target = tmp_path / "other.png"
        os.link(image, target)
    code, _, err = run("perceive", str(image), option, str(target))
    assert code == 1 and "the output file is the input file" in err
    assert image.read_bytes() == photo.read_bytes()


def test_perceive_into_a_missing_folder_is_refused_before_perceiving(photo: Path, tmp_path: Path) -> None:
    code, _, err = run("perceive", str(photo), "-o", str(tmp_path / "no" / "scene.json"))
    assert code == 1 and "does not exist" in err and "objects:" not in err


# ----- results of another command -------------------------------------------------------------

BATCHES = {
    "check": ["check", "--jsonl", "IN"],
    "compile": ["compile", "--to", "code", "--jsonl", "IN"],
    "solve": ["solve", "--scene", EMMA, "--jsonl", "--program", "IN"],
}


@pytest.mark.parametrize(("first", "then"), [("solve", "check"), ("check", "compile"),
                                             ("compile", "check"), ("compile", "solve")])
def test_the_results_of_another_command_are_refused(first: str, then: str, tmp_path: Path) -> None:
    inputs = program_lines(tmp_path / "in.jsonl")
    output = tmp_path / "out.jsonl"

    def batch(name: str) -> tuple[int, str, str]:
        return run(*(inputs if a == "IN" else a for a in BATCHES[name]), "--output", str(output))

    assert batch(first)[0] == 0
    written = output.read_text()
    code, _, err = batch(then)
    assert code == 1 and f"{output}: error: line 1: a result of another command" in err
    assert output.read_text() == written
    assert batch(first)[0] == 0 and output.read_text() == written  # its own results: resumed


def test_translate_refuses_the_results_of_another_command(tmp_path: Path) -> None:
    questions = write(tmp_path / "q.jsonl", json.dumps({"id": 0, "question": "Is there a man?"}) + "\n")
    output = tmp_path / "out.jsonl"
    assert run("compile", "--to", "nested", "--jsonl", program_lines(tmp_path / "in.jsonl", 1),
               "--output", str(output))[0] == 0
    code, _, err = run("translate", "--translator", "small", "--jsonl", questions, "--output", str(output))
    assert code == 1 and "a result of another command" in err


# ----- standard output, Ray, special files in a folder -----------------------------------------

def test_standard_output_on_a_full_device_is_an_error(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        code, err = qlangc("ops", stdout=full)
        assert code == 1 and "standard output: error: cannot write: No space left on device" in err
        code, err = qlangc("check", "--jsonl", program_lines(tmp_path / "in.jsonl"), stdout=full)
    assert code == 1 and "No space left on device" in err and "report this as a bug" not in err


def test_a_closed_standard_output_is_an_error(tmp_path: Path) -> None:
    code, err = qlangc("compile", "--to", "code", write(tmp_path / "p.txt", GOOD), stdout=None,
                       close_stdout=True)
    assert code == 1 and "standard output: error: cannot write" in err


def test_a_ray_address_that_does_not_answer_fails_in_seconds(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    code, out = qlangc_process("solve", "--scene", EMMA, "--jsonl", "--program",
                               program_lines(tmp_path / "in.jsonl"), "--executor", "ray",
                               "--address", "127.0.0.1:1", timeout=60)
    assert code == 1 and "cannot reach Ray at 127.0.0.1:1" in out


def test_a_pipe_in_a_folder_of_photos_is_not_opened(photo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    shutil.copy(photo, folder / "a.png")
    os.mkfifo(folder / "b.png")  # nobody writes: opening it would wait for ever
    code, out = qlangc_process("perceive", str(folder), "-o", str(tmp_path / "out.jsonl"), timeout=120)
    assert code == 1, out
    lines = results((tmp_path / "out.jsonl").read_text())
    assert [line["id"] for line in lines] == ["a.png", "b.png"]
    assert "scene" in lines[0] and "not a regular file" in lines[1]["error"]["message"]


@pytest.mark.parametrize("command", [["check"], ["compile", "--to", "flat"]])
def test_a_resumed_batch_answers_a_line_without_an_id_once(command: list[str], tmp_path: Path) -> None:
    """A result of a line without an id names its line, so a resumed run knows it answered."""
    source = write(tmp_path / "in.jsonl", json.dumps({"program": "exist(select(scene(), cat))"}) + "\n"
                   + json.dumps({"id": "b", "program": "exist(select(scene(), dog))"}) + "\n")
    out = tmp_path / "out.jsonl"
    for _ in range(2):
        assert run(*command, "--jsonl", source, "--output", str(out))[0] == 0
    written = results(out.read_text())
    assert [(r.get("id"), r.get("input_line")) for r in written] == [(None, 1), ("b", None)]
