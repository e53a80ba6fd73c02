"""One error style: an error about a whole file prints as `PATH: error: message`, a located one as
`PATH:LINE:COL: error: message`, the file first either way; what an error shows of a bad input
(its line, a word of it) is printable and of bounded length; a size limit names what it limits;
a file that cannot be read or decoded is bad input (exit 1) whichever option names it, exit 2 being
for usage alone."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import EMMA, QLANGC, graphs, run, write

from qlang.errors import QlangError, Span, error

IMAGE = "2353884"
PROGRAM = "exist(select(scene(), man))"


def printable_and_short(err: str, width: int = 300) -> bool:
    return all(line.isprintable() and len(line) <= width for line in err.splitlines())


def test_an_error_about_a_whole_file_names_it_first() -> None:
    about = error(QlangError, "input", "not a regular file", path="/dev/null")
    assert about.render() == "/dev/null: error: not a regular file"
    located = error(QlangError, "input", "bad", Span(2, 3, 2, 4), path="q.txt")
    assert located.render() == "q.txt:2:3: error: bad"  # no text at hand: no line shown


def test_a_missing_output_folder_is_an_error_about_the_output(tmp_path: Path) -> None:
    output = tmp_path / "none" / "out.jsonl"
    lines = write(tmp_path / "in.jsonl", json.dumps({"id": 1, "program": PROGRAM}) + "\n")
    code, _, err = run("check", "--jsonl", lines, "--output", str(output))
    assert (code, err) == (1, f"{output}: error: the output folder {output.parent} does not exist\n")


def test_a_file_over_its_limit_names_itself_then_the_limit(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("QLANG_MAX_PROGRAM_MB", "0.00001")
    program = write(tmp_path / "q.txt", PROGRAM)
    code, _, err = run("check", program)
    assert (code, err) == (1, f"{program}: error: exceeds 1e-05 MB, the limit for a program or concepts "
                              "file (set QLANG_MAX_PROGRAM_MB to raise it)\n")


def test_a_rules_file_over_its_limit_is_called_a_rules_file(tmp_path: Path, monkeypatch) -> None:
    rules = write(tmp_path / "r.rules", "class(X, athlete) :- class(X, man).\n" * 100)
    monkeypatch.setenv("QLANG_MAX_RULES_MB", "0.001")
    code, _, err = run("solve", "--scene", EMMA, "--image-id", IMAGE, "--rules", rules, input=PROGRAM)
    assert (code, err) == (1, f"{rules}: error: exceeds 0.001 MB, the limit for a rules file "
                              "(set QLANG_MAX_RULES_MB to raise it)\n")
    monkeypatch.setenv("QLANG_MAX_PROGRAM_MB", "0.001")  # a program's limit is no rules file's
    monkeypatch.delenv("QLANG_MAX_RULES_MB")
    assert run("solve", "--scene", EMMA, "--image-id", IMAGE, "--rules", rules, input=PROGRAM)[0] == 0


def test_an_endless_knowledge_device_shows_no_line() -> None:
    code, out, err = run("solve", "--scene", EMMA, "--image-id", IMAGE, "--kb", "/dev/zero", input=PROGRAM)
    assert (code, out, err) == (1, "", "/dev/zero:1:1: error: a line longer than 1,048,576 bytes\n")


def test_control_characters_of_a_knowledge_line_show_as_their_pictures(tmp_path: Path) -> None:
    kb = write(tmp_path / "k.tsv", "cup\tused\x00for\x1b[31m\tdrinking\n")
    code, _, err = run("kb", "paths", "cup", "drinking", "--kb", kb)
    assert code == 1 and printable_and_short(err)
    assert err.splitlines()[1:] == ["  cup\u2409used\u2400for\u241b[31m\u2409drinking",
                                    "      ^" + "~" * 12]  # under the whole field, 13 characters


def test_a_long_word_of_a_knowledge_line_is_cut(tmp_path: Path) -> None:
    kb = write(tmp_path / "k.tsv", f"cup\t{'x' * 100_000}\tdrinking\n")
    code, _, err = run("kb", "paths", "cup", "drinking", "--kb", kb)
    assert code == 1 and "(100000 characters) is not a knowledge relation" in err and printable_and_short(err)


def test_a_word_of_a_scene_that_asp_cannot_spell_is_the_scene_files_error(tmp_path: Path) -> None:
    graph = json.loads(Path(EMMA).read_text())[IMAGE]
    first = next(iter(graph["objects"]))
    graph["objects"][first]["attributes"].append("re\x00d" + "d" * 1000)
    scene = write(tmp_path / "scene.json", json.dumps({IMAGE: graph}))
    program = write(tmp_path / "q.txt", PROGRAM)
    code, _, err = run("solve", "--scene", scene, "--program", program)
    assert code == 1 and printable_and_short(err)
    assert err.startswith(f"{scene}:") and f"object {first}: ASP cannot spell 're\\x00dddd" in err
    assert "(1004 characters): it contains NUL" in err


def test_a_bad_line_of_a_rules_file_is_shown_printable(tmp_path: Path) -> None:
    rules = write(tmp_path / "r.rules", "class(X, athlete) :- \x1b[2J\x00 class(X, man).\n")
    code, _, err = run("solve", "--scene", EMMA, "--image-id", IMAGE, "--rules", rules, input=PROGRAM)
    assert code == 1 and err.startswith(f"{rules}:1:22: error: unexpected character '\\x1b'")
    assert "  class(X, athlete) :- \u241b[2J\u2400 class(X, man)." in err and printable_and_short(err)


def test_a_long_word_a_rules_file_does_not_know_is_cut_hint_and_all(tmp_path: Path) -> None:
    rules = write(tmp_path / "r.rules", f"class(X, athlete) :- class(X, {'x' * 5000}).\n")
    code, _, err = run("solve", "--scene", EMMA, "--image-id", IMAGE, "--rules", rules, input=PROGRAM)
    assert code == 1 and "(5000 characters) is not a known class" in err and printable_and_short(err)


def test_a_bad_question_line_is_reported_in_its_result_without_its_text(tmp_path: Path) -> None:
    lines = write(tmp_path / "in.jsonl", b"\x1b[2J\x00" * 1000 + b"\n")
    code, out, err = run("check", "--jsonl", lines)
    assert code == 1 and err == "" and printable_and_short(out)
    assert json.loads(out)["error"]["message"] == "line 1 is not JSON: Expecting value"


def test_a_long_image_id_is_cut(tmp_path: Path) -> None:
    code, _, err = run("solve", "--scene", EMMA, "--image-id", "9" * 10_000, input=PROGRAM)
    assert code == 1 and err.startswith(f"{EMMA}: error: image '99999") and printable_and_short(err)


@pytest.mark.parametrize(("kept", "what"), [
    ("notes", "not a result line of an earlier run"),
    (json.dumps({"id": 1, "answers": []}), "a result of another command"),
])
def test_a_resumed_output_names_its_bad_line_after_the_file(tmp_path: Path, kept: str, what: str) -> None:
    lines = write(tmp_path / "in.jsonl", json.dumps({"id": 1, "program": PROGRAM}) + "\n")
    output = write(tmp_path / "out.jsonl", kept + "\n")
    code, _, err = run("check", "--jsonl", lines, "--output", output)
    assert code == 1 and err.startswith(f"{output}: error: line 1: {what}")


def solve(options: dict[str, str]) -> tuple[int, str, str]:
    """`qlangc solve` of PROGRAM over EMMA's IMAGE, with `options` given or in their place."""
    given = {"--scene": EMMA, "--image-id": IMAGE, **options}
    return run("solve", *(word for pair in given.items() for word in pair), input=PROGRAM)


@pytest.mark.parametrize("option", ["--program", "--scene", "--rules", "--kb"])
def test_a_file_that_cannot_be_read_is_bad_input_whichever_option_names_it(tmp_path: Path,
                                                                            option: str) -> None:
    unreadable = write(tmp_path / "file", "") + "/x"  # a path through a file: it cannot be opened
    assert solve({option: unreadable}) == (1, "", f"{unreadable}: error: Not a directory\n")
    missing = str(tmp_path / "missing")
    assert solve({option: missing}) == (1, "", f"{missing}: error: No such file or directory\n")


@pytest.mark.parametrize("option", ["--program", "--scene", "--rules"])
def test_a_file_that_is_not_utf8_is_bad_input_and_says_where(tmp_path: Path, option: str) -> None:
    latin = write(tmp_path / "latin1", "caf\N{LATIN SMALL LETTER E WITH ACUTE} au lait".encode("latin-1"))
    assert solve({option: latin}) == (1, "", f"{latin}: error: not UTF-8 text (invalid continuation "
                                              "byte at byte 3)\n")


def test_standard_input_that_is_not_utf8_is_bad_input() -> None:
    code, _, err = run("check", "-", input=b"\xff\xfe")
    assert (code, err) == (1, "<stdin>: error: not UTF-8 text (invalid start byte at byte 0)\n")


def test_a_folder_click_refuses_before_reading_stays_a_usage_error(tmp_path: Path) -> None:
    code, _, err = solve({"--rules": str(tmp_path)})
    assert code == 2 and f"Error: Invalid value for '--rules': File '{tmp_path}' is a directory." in err


def test_closed_standard_input_is_bad_input(tmp_path: Path) -> None:
    for args in (("check", "-"), ("kb", "build", "--out", str(tmp_path / "kb.sqlite"), "-")):
        done = subprocess.run([*QLANGC, *args], capture_output=True, timeout=60,
                              preexec_fn=lambda: os.close(0))
        assert (done.returncode, done.stderr) == (1, b"<stdin>: error: standard input is closed\n"), args


def test_a_missing_image_of_a_one_scene_file_counts_one_scene(tmp_path: Path) -> None:
    one = write(tmp_path / "one.json", json.dumps({IMAGE: graphs("emma")[IMAGE]}))
    assert solve({"--scene": one, "--image-id": "zzz"}) == (
        1, "", f"{one}: error: image 'zzz' is not in the scene file (it has 1 scene)\n")
