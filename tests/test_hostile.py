"""Hostile input: never a traceback, one bad line never stops a batch, nothing lost.

Every input is built here.  Each case asserts the exit status and a located message; batch
cases also that every other line was answered, and that a resume answers nothing twice.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from qlang.commands.translate import run_batch
from qlang.translate.batch import Translating
from qlang.translate.translator import Settings, Translation
from tests.conftest import DATA, EMMA, HOPELESS, pigeonhole_scene, run, write

QUESTIONS = str(DATA / "gqa" / "questions" / "testdev_ood_head.json")
GOOD = "exist(select(scene(), cat))"


def lines(*records: dict[str, Any]) -> str:
    return "\n".join(json.dumps(r) for r in records)


def results(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.split("\n") if line]


# ----- programs --------------------------------------------------------------------------------

def deep_code(n: int = 1000) -> str:
    steps = ["v0 = select(scene(), cat)",
             *(f"v{i} = relate(v{i - 1}, cat, on, subject)" for i in range(1, n))]
    return "\n".join([*steps, f"exist(v{n - 1})"])


def deep_gqa(n: int = 1000) -> list[dict[str, Any]]:
    return [{"operation": "select", "argument": "cat", "dependencies": []},
            *({"operation": "relate", "argument": "cat,on,s", "dependencies": [i]} for i in range(n)),
            {"operation": "exist", "argument": "?", "dependencies": [n]}]


def deep_gqa_str(n: int = 1000) -> str:
    return "->".join(["select: cat", *(f"relate: cat,on,s [{i}]" for i in range(n)), f"exist: ? [{n}]"])


DEEP = {"code": deep_code(), "gqa": json.dumps(deep_gqa()), "gqa-str": deep_gqa_str()}


@pytest.mark.parametrize("syntax", sorted(DEEP))
def test_a_program_deeper_than_the_limit_is_a_located_error(syntax: str) -> None:
    code, _, err = run("check", "-", input=DEEP[syntax])
    assert code == 1
    assert "<stdin>:" in err and "deeper than 200" in err


@pytest.mark.parametrize("command", [["check"], ["compile", "--to", "flat"]])
def test_a_deep_line_costs_only_itself(command: list[str]) -> None:
    code, out, _ = run(*command, "--jsonl", "-", input=lines(
        {"id": 1, "program": GOOD}, {"id": 2, "program": DEEP["code"]},
        {"id": 3, "semantic": deep_gqa()}, {"id": 4, "program": GOOD}))
    got = {r["id"]: r for r in results(out)}
    assert code == 1 and sorted(got) == [1, 2, 3, 4]
    assert "deeper than 200" in got[2]["error"]["message"] and got[2]["error"]["line"] == 200
    assert "deeper than 200" in got[3]["error"]["message"]
    assert "error" not in got[1] and "error" not in got[4]


def test_a_deep_line_in_a_solve_batch_costs_only_itself_and_resumes(tmp_path: Path) -> None:
    questions = write(tmp_path / "q.jsonl", lines(
        {"id": 1, "program": GOOD}, {"id": 2, "program": DEEP["gqa-str"]}, {"id": 3, "program": GOOD}))
    output = tmp_path / "out.jsonl"
    code, _, _ = run("solve", "--jsonl", "--program", questions, "--scene", EMMA, "--image-id", "2354786",
                     "--output", str(output))
    first = results(output.read_text())
    assert code == 1 and [r["id"] for r in first] == [1, 2, 3]
    assert "deeper than 200" in first[1]["error"]["message"]
    run("solve", "--jsonl", "--program", questions, "--scene", EMMA, "--output", str(output))
    assert results(output.read_text()) == first


def diamond(levels: int = 30) -> str:
    """538 bytes of flat ASP whose every step is used twice: 2**30 operations written out."""
    steps = ["scene(0).", "select(1, 0, cat)."]
    steps += [f"negate({n + 1}, {n}, {n})." for n in range(1, levels + 1)]
    return " ".join([*steps, f"exist({levels + 2}, {levels + 1}). end({levels + 2})."])


def test_a_diamond_is_refused_by_nested_and_printed_by_code() -> None:
    start = time.monotonic()
    code, _, err = run("compile", "--to", "nested", "-", input=diamond())
    assert code == 1 and "3,221,225,472 operations" in err and "use the code or flat syntax" in err
    code, out, _ = run("compile", "--to", "code", "-", input=diamond())
    assert code == 0 and out.count("\n") == 31
    assert time.monotonic() - start < 10


def test_dead_flat_steps_are_errors_with_their_location() -> None:
    program = 'scene(0). select(1, 0, cat). frobnicate(6, 9, "x"). select(5, 0, dgo). exist(2, 1). end(2).'
    code, _, err = run("check", "-", input=program)
    assert code == 1
    assert "<stdin>:1:30: error: step 6 (frobnicate) is never used" in err
    assert "<stdin>:1:53: error: step 5 (select) is never used" in err


def test_dead_gqa_steps_are_errors() -> None:
    steps = [{"operation": "select", "argument": "dog", "dependencies": []},
             {"operation": "select", "argument": "cat", "dependencies": []},
             {"operation": "exist", "argument": "?", "dependencies": [1]}]
    code, _, err = run("check", "-", input=json.dumps(steps))
    assert code == 1 and "step 0 (select) is never used" in err


def test_errors_print_printable_text_and_shorten_huge_words() -> None:
    code, _, err = run("check", "-", input=f'exist(select(scene(), "\x1b[31m{"x" * 100_000}"))')
    assert code == 1
    assert "\x1b" not in err and "(100005 characters)" in err and len(err) < 1000


# ----- scenes ----------------------------------------------------------------------------------

def graph(**changes: Any) -> dict[str, Any]:
    cat = {"name": "cat", "x": 1, "y": 1, "w": 5, "h": 5, "attributes": [], "relations": []}
    scene = {"width": 100, "height": 100, "objects": {"1": cat}}
    for key, value in changes.items():
        (scene if key in ("width", "height") else cat)[key] = value
    return scene


BAD_SCENES = {
    "nan": (json.dumps(graph(x=float("nan"))), "'x' must be a number, not 'NaN'"),
    "inf": (json.dumps(graph(w=float("inf"))), "'w' must be a number, not 'Infinity'"),
    "-inf": (json.dumps(graph(x=float("-inf"))), "'x' must be a number, not '-Infinity'"),
    "10**400": (json.dumps(graph()).replace('"x": 1,', f'"x": {10**400},'),
                "an integer of more than 20 digits"),
    "[5]": (json.dumps(graph(attributes=[5])), "an attribute is a string or has a 'value'"),
    "[null]": (json.dumps(graph(attributes=[None])), "an attribute is a string or has a 'value'"),
    '[["brown"]]': (json.dumps(graph(attributes=[["brown"]])), "an attribute is a string or has a 'value'"),
    "no objects": ('{"width": 1}', "no 'objects' map"),
    "rule": ("object(1). has_attr(1, class, cat). ans(banana).", "ans/1 is not a scene predicate"),
    "interval": ("object(1..20000). has_attr(1, class, cat).", "only ground facts"),
    "non-ASCII": ("object(1). has_attr(1, name, café).", "only ground facts"),
    "2**40": ("object(1099511627776).", "beyond clingo's 32 bits"),
}


@pytest.mark.parametrize("name", sorted(BAD_SCENES))
def test_a_hostile_scene_is_a_located_error(name: str, tmp_path: Path) -> None:
    text, message = BAD_SCENES[name]
    scene = write(tmp_path / "scene", text)
    code, _, err = run("solve", "--scene", scene, "--timeout", "2", input=GOOD)
    assert code == 1 and message in err and f"{scene}:" in err
    assert "PANIC" not in err


GOOD_SCENES = {
    "1e308": json.dumps(graph(x=1e308, w=1e308)),
    "width 1e-320": json.dumps(graph(width=1e-320)),
    "id '²'": json.dumps(graph()).replace('"1"', '"²"'),
    "BOM": "\ufeff" + json.dumps(graph()),
    "quoted non-ASCII": 'object(1). has_attr(1, class, cat). has_attr(1, name, "café").',
}


@pytest.mark.parametrize("name", sorted(GOOD_SCENES))
def test_extreme_but_valid_scenes_are_answered(name: str, tmp_path: Path) -> None:
    scene = write(tmp_path / "scene", GOOD_SCENES[name])
    assert run("solve", "--scene", scene, input=GOOD) == (0, "yes\n", "")


# ----- command lines ---------------------------------------------------------------------------

@pytest.mark.parametrize("timeout", ["inf", "nan", "1e18", "-1"])
def test_timeouts_must_be_finite(timeout: str) -> None:
    code, _, err = run("solve", "--scene", EMMA, "--image-id", "2354786", "--timeout", timeout, input=GOOD)
    assert code == 2 and "--timeout" in err


def test_empty_answers_and_questions_are_usage_errors() -> None:
    code, _, err = run("explain", "--scene", EMMA, "--image-id", "2354786", "--answer", "", input=GOOD)
    assert code == 2 and "--answer needs a word" in err
    code, _, err = run("translate", " ")
    assert code == 2 and "QUESTION is empty" in err


def test_a_model_that_is_no_gguf_is_an_error(tmp_path: Path) -> None:
    model = write(tmp_path / "model.gguf", "hello")
    code, _, err = run("translate", "Is it red?", "--model", model, "--examples", "1")
    assert code == 1 and f"{model}: error: 5 bytes: too short for a GGUF file" in err


# ----- batches ---------------------------------------------------------------------------------

@pytest.mark.parametrize("separator", ["\u2028", "\u0085", "\r"])
def test_json_lines_split_on_newlines_only(separator: str) -> None:
    text = json.dumps({"id": f"a{separator}b", "program": GOOD}, ensure_ascii=False) + "\n" + \
        json.dumps({"id": "c", "program": GOOD})
    code, out, _ = run("check", "--jsonl", "-", input=text.encode())
    assert code == 0 and [r["id"] for r in results(out)] == [f"a{separator}b", "c"]


def test_a_line_that_is_not_utf8_costs_only_itself() -> None:
    text = lines({"id": 1, "program": GOOD}).encode() + b'\n{"id": 2, "program": "\xff"}\n' + \
        lines({"id": 3, "program": GOOD}).encode()
    code, out, _ = run("compile", "--jsonl", "--to", "flat", "-", input=text)
    got = results(out)
    assert code == 1 and [r["id"] for r in got] == [1, None, 3]
    assert got[1]["input_line"] == 2 and "not UTF-8" in got[1]["error"]["message"]


def solve_batch(questions: str, output: Path, *extra: str) -> tuple[int, str, str]:
    return run("solve", "--jsonl", "--program", questions, "--scene", EMMA, "--image-id", "2354786",
               "--output", str(output), *extra)


def test_a_foreign_output_file_is_refused_untouched(tmp_path: Path) -> None:
    questions = write(tmp_path / "q.jsonl", lines({"id": 1, "program": GOOD}))
    foreign = tmp_path / "notes.txt"
    foreign.write_text("abc\ndef")
    code, _, err = solve_batch(questions, foreign)
    assert code == 1 and "notes.txt: error: line 1: not a result line" in err
    assert foreign.read_text() == "abc\ndef"


def test_the_input_file_is_no_output_file(tmp_path: Path) -> None:
    questions = write(tmp_path / "q.jsonl", lines({"id": 1, "program": GOOD}))
    code, _, err = solve_batch(questions, Path(questions))
    assert code == 1 and "the output file is the input file" in err


def test_an_output_file_being_written_is_refused(tmp_path: Path) -> None:
    questions = write(tmp_path / "q.jsonl", lines({"id": 1, "program": GOOD}))
    output = tmp_path / "out.jsonl"
    with open(output, "a") as other_run:
        fcntl.flock(other_run, fcntl.LOCK_EX)
        code, _, err = solve_batch(questions, output)
    assert code == 1 and "another run is writing to it" in err
    assert output.read_text() == ""


def test_duplicate_ids_are_each_answered_once_across_resumes(tmp_path: Path) -> None:
    questions = write(tmp_path / "q.jsonl", lines(
        {"id": 1, "program": GOOD}, {"id": 1, "program": "exist(select(scene(), dog))"},
        {"id": 2, "program": GOOD}))
    output = tmp_path / "out.jsonl"
    solve_batch(questions, output)
    complete = output.read_text()
    output.write_text(complete.split("\n")[0] + "\n")  # interrupted after the first line
    solve_batch(questions, output)
    assert sorted(output.read_text().split("\n")) == sorted(complete.split("\n"))
    solve_batch(questions, output, "--workers", "2")
    assert len(results(output.read_text())) == 3


class _Translator:
    """Stands in for the model: a question longer than its context fails as llama.cpp does."""

    def translate(self, question: str) -> Translation:
        if len(question) > 100:
            raise ValueError("Requested tokens exceed context window of 4096")
        return Translation(question, program=GOOD)


def test_translate_batch_records_failures_and_resumes_records_without_ids(tmp_path: Path) -> None:
    questions = write(tmp_path / "q.jsonl", b"\n".join([
        b'{"question": "Is it red?"}', b'{"question": "' + b"why " * 100 + b'"}',
        b'{"question": "Is it \xff?"}', b"not json", b'{"question": "Is it blue?"}']))
    output = tmp_path / "out.jsonl"
    assert not run_batch(Translating(Settings(), translator=_Translator()), questions, str(output), None)  # type: ignore[arg-type]
    got = results(output.read_text())
    assert [r["input_line"] for r in got] == [1, 2, 3, 4, 5]
    assert [r["program"] for r in got if "error" not in r] == [GOOD, GOOD]
    assert "context window" in got[1]["error"]["message"]
    assert "not JSON" in got[2]["error"]["message"] and "not JSON" in got[3]["error"]["message"]
    output.write_text(output.read_text().split("\n", 1)[0] + "\n")
    run_batch(Translating(Settings(), translator=_Translator()), questions, str(output), None)  # type: ignore[arg-type]
    assert [r["input_line"] for r in results(output.read_text())] == [1, 2, 3, 4, 5]


def test_eval_refuses_a_file_that_is_not_a_question_file(tmp_path: Path) -> None:
    translations = write(tmp_path / "t.jsonl", lines({"id": "x", "program": GOOD}))
    code, _, err = run("eval", translations, "--questions", EMMA)
    assert code == 1 and "not a question file" in err


def test_eval_scores_every_translation_despite_a_deep_one(tmp_path: Path) -> None:
    gold = json.loads(Path(QUESTIONS).read_text())
    ids = list(gold)[:3]
    translations = write(tmp_path / "t.jsonl", lines(
        {"id": ids[0], "program": DEEP["code"]}, {"id": ids[1], "program": GOOD},
        {"id": ids[2], "program": gold[ids[2]]["semanticStr"]}))
    code, out, _ = run("eval", translations, "--questions", QUESTIONS, "--json")
    figures = json.loads(out)
    assert code == 0 and figures["lines"] == 3 and figures["programs"]["total"] == 3


# ----- signals (a real process: the runner has neither pipes nor a terminal) --------------------

QLANGC = [sys.executable, "-c", "from qlang.commands.main import main; main()"]


def test_a_closed_pipe_ends_a_batch_quietly(tmp_path: Path) -> None:
    # more results than a pipe holds (64 KiB): the batch cannot have ended when the pipe closes
    questions = write(tmp_path / "q.jsonl", lines(*({"id": i, "program": GOOD} for i in range(3000))))
    solve = subprocess.Popen([*QLANGC, "solve", "--jsonl", "--program", questions, "--scene", EMMA,
                              "--image-id", "2354786"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert solve.stdout is not None and solve.stderr is not None
    solve.stdout.readline()
    solve.stdout.close()
    err = solve.stderr.read().decode()
    solve.wait(60)
    assert "Error" not in err and "Traceback" not in err and solve.returncode in (0, 1)


def test_ctrl_c_ends_a_parallel_batch_quietly(tmp_path: Path) -> None:
    scene = pigeonhole_scene(tmp_path / "p.json")
    questions = write(tmp_path / "q.jsonl", lines({"id": 0, "program": "exist(select(scene(), cup))"},
                                                  *({"id": i, "program": HOPELESS} for i in range(1, 40))))
    # as from a terminal: a harness started in the background (`make test &`) ignores SIGINT,
    # and its children would inherit that
    solve = subprocess.Popen([*QLANGC, "solve", "--jsonl", "--program", questions, "--scene", scene,
                              "--workers", "2", "--timeout", "60"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert solve.stdout is not None
        assert solve.stdout.readline()  # the workers are answering, and the rest no machine answers
        os.killpg(solve.pid, signal.SIGINT)  # what Ctrl-C does: the whole process group
        _, err = solve.communicate(timeout=60)
    finally:
        if solve.poll() is None:  # the test failed: end the batch, whose questions never end
            os.killpg(solve.pid, signal.SIGKILL)
            solve.wait()
    assert "Traceback" not in err.decode() and "KeyboardInterrupt" not in err.decode()
    assert solve.returncode != 0
