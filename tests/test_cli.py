"""`qlangc` end to end, through click's runner: outputs, exit codes, batch mode."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest

import qlang
from qlang.executors import BatchError
from qlang.records import output, program_lines
from tests.conftest import FORMS, run

COMMANDS = ["compile", "check", "fmt", "lower", "ops"]


@pytest.mark.parametrize("command", [[], *[[c] for c in COMMANDS]])
def test_every_command_has_help(command: list[str]) -> None:
    code, out, _ = run(*command, "--help")
    assert code == 0 and "Usage:" in out


@pytest.mark.parametrize("to", ["flat", "nested", "code", "gqa", "gqa-str"])
def test_compile_converts_and_infers_the_input_syntax(to: str) -> None:
    code, out, _ = run("compile", "--to", to, "-", input=FORMS["nested"])
    assert code == 0
    assert qlang.parse(out, to) == qlang.parse(FORMS["nested"])


def test_check_passes_a_good_program_and_locates_every_error(tmp_path) -> None:
    assert run("check", "-", input=FORMS["code"])[0] == 0
    bad = tmp_path / "bad.nested"
    bad.write_text("and(exist(select(scene(), dihs)),\n    verify_attr(select(scene(), cat), color, blu))\n")
    code, _, err = run("check", str(bad))
    assert code == 1
    assert f"{bad}:1:27: error: 'dihs' is not a known class (did you mean 'dish'?)" in err
    assert f"{bad}:2:17: error: argument 1 of verify_attr must yield Object" in err
    assert f"{bad}:2:46: error: 'blu' is not a known color value (did you mean 'blue'?)" in err
    assert "                                               ^~~" in err


def test_check_locates_the_words_of_a_gqa_program(tmp_path) -> None:
    """GQA's words at their line and column, in a semanticStr and in JSON, a category in the
    operation's name too."""
    bad = tmp_path / "bad.qg"
    bad.write_text("select: table (12)->filter colour: rde [0]->\n"
                   "  relate: chiar,on top of,s [1]->query: name [2]\n")
    code, _, err = run("check", str(bad))
    assert code == 1
    assert f"{bad}:1:28: error: 'colour' is not a known attribute category" in err
    assert f"{bad}:1:36: error: 'rde' is not a known attribute value" in err
    assert f"{bad}:2:11: error: 'chiar' is not a known class" in err
    assert "            ^~~~~" in err
    steps = tmp_path / "bad.json"
    steps.write_text('[{"operation": "select", "dependencies": [], "argument": "dihs"},\n'
                     ' {"operation": "verify colour", "dependencies": [0], "argument": " red"}]\n')
    err = run("check", str(steps))[2]
    assert f"{steps}:1:59: error: 'dihs' is not a known class" in err
    assert f"{steps}:2:24: error: 'colour' is not a known attribute category" in err


def test_open_vocabulary_turns_vocabulary_errors_into_warnings() -> None:
    program = "exist(select(scene(), spaceship))"
    assert run("check", "-", input=program)[0] == 1
    code, _, err = run("check", "--open-vocabulary", "-", input=program)
    assert code == 0 and "warning: 'spaceship' is not a known class" in err


def test_fmt_is_idempotent_and_keeps_the_syntax() -> None:
    once = run("fmt", "-", input=FORMS["flat"])[1]
    assert once.startswith("scene(0).\n")
    assert run("fmt", "-", input=once)[1] == once


def test_lower_quotes_every_word() -> None:
    code, out, _ = run("lower", "--open-vocabulary", "-",
                       input='exist(select(scene(), "x). p :- q"))')
    assert code == 0
    assert 'select(1, 0, "x). p :- q").' in out


@pytest.mark.parametrize("args, input, status, message", [
    (["check", "-"], b"\xff\xfe", 1, "<stdin>: error: not UTF-8"),
    (["check", "/no/such/file"], None, 1, "/no/such/file: error: No such file"),
    (["compile", "--to", "klingon", "-"], "", 2, "Invalid value for '--to'"),
    (["check", "--from", "flat", "-"], "exist(scene())", 1, "expected"),
    (["check", "-"], "", 1, "error"),
])
def test_bad_input_is_a_message_and_a_status_never_a_traceback(args, input, status, message) -> None:
    code, out, err = run(*args, input=input)
    assert code == status
    assert message in out + err
    assert "Traceback" not in out + err


def test_jsonl_batch_answers_every_line_and_goes_on_after_bad_ones(data_dir) -> None:
    record = json.loads((data_dir / "gqa/questions/testdev_ood_head.json").read_text())
    first_id, first = next(iter(record.items()))
    lines = [
        json.dumps({"id": "a", "program": FORMS["nested"]}),
        "not json at all",
        json.dumps({"id": "b", "program": "exist(select(scene(), car)"}),
        json.dumps({"id": first_id, **first}),
        json.dumps({"id": "c", "semantic": [{"operation": "frobnicate", "dependencies": [],
                                             "argument": "x"}]}),
        json.dumps({"id": "d"}),
    ]
    code, out, _ = run("compile", "--jsonl", "--to", "flat", "-", input="\n".join(lines))
    results = [json.loads(line) for line in out.splitlines()]
    assert code == 1
    assert [r.get("id") for r in results] == ["a", None, "b", first_id, "c", "d"]
    assert results[0]["program"].endswith("end(6).")
    assert results[1]["input_line"] == 2 and results[1]["error"]["kind"] == "input"
    assert results[2]["error"] == {"kind": "syntax", "line": 1, "column": 27,
                                   "message": "unexpected end of input; expected ')', ','"}
    assert qlang.parse(results[3]["program"], "flat") == qlang.parse(first["semanticStr"])
    assert results[4]["error"]["kind"] == "unsupported"
    assert results[5]["error"]["kind"] == "input"


def test_jsonl_check_reports_type_errors_per_line() -> None:
    lines = [json.dumps({"id": 1, "program": "exist(select(scene(), cat))"}),
             json.dumps({"id": 2, "program": "query(select(scene(), cat), color)"})]
    code, out, _ = run("check", "--jsonl", "-", input="\n".join(lines))
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 1
    assert first == {"id": 1, "ok": True}
    assert second["error"]["kind"] == "type" and second["error"]["column"] == 7


def test_jsonl_jobs_answer_every_line_in_input_order(data_dir, monkeypatch) -> None:
    questions = json.loads((data_dir / "gqa/questions/val_balanced_tail.json").read_text())
    lines = [json.dumps({"id": qid, "semantic": q["semantic"]}) for qid, q in list(questions.items())[:40]]
    lines[3:3] = ["not json", json.dumps({"id": "bad", "program": "exist(select(scene(), car)"}), ""]
    lines[20:20] = [json.dumps({"id": "type", "program": "query(select(scene(), cat), color)"})]
    text = "\n".join(lines).encode() + b"\n\xff\n"
    monkeypatch.setattr(program_lines, "CHUNK", 4)  # many tasks for few lines
    for command in (["compile", "--to", "code"], ["check"]):
        alone = run(*command, "--jsonl", "--jobs", "1", "-", input=text)
        assert alone[0] == 1 and len(alone[1].splitlines()) == 44  # the blank line has none
        assert run(*command, "--jsonl", "--jobs", "3", "-", input=text) == alone
        assert run(*command, "--jsonl", "-", input=text) == alone  # all cores


def test_jobs_is_for_batch_mode() -> None:
    code, _, err = run("compile", "--to", "flat", "--jobs", "2", "-", input="exist(scene())")
    assert code == 2 and "--jobs" in err
    assert run("check", "--jsonl", "--jobs", "0", "-", input="")[0] == 2


def _dies_on_seven(record: program_lines.Record) -> dict[str, object]:
    if record.id == 7:
        os._exit(9)
    return {"id": record.id}


def test_a_dead_worker_ends_the_batch_with_what_came_before(capsys) -> None:
    lines = [json.dumps({"id": i, "program": "exist(scene())"}).encode() for i in range(20)]
    out = io.StringIO()
    with pytest.raises(BatchError, match="worker process died"):
        program_lines.run(lines, _dies_on_seven, output.Output(out), jobs=2, chunk=2)
    written = [json.loads(line)["id"] for line in out.getvalue().splitlines()]
    assert written == list(range(len(written))) and len(written) <= 6


def test_a_closed_pipe_ends_a_parallel_batch_quietly() -> None:
    lines = b"\n".join(json.dumps({"id": i, "program": FORMS["nested"]}).encode() for i in range(3000))
    qlangc = [sys.executable, "-c", "from qlang.commands.main import main; main()"]
    compile = subprocess.Popen([*qlangc, "compile", "--jsonl", "--jobs", "2", "--to", "flat", "-"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert compile.stdin is not None and compile.stdout is not None and compile.stderr is not None
    compile.stdin.write(lines)
    compile.stdin.close()
    compile.stdout.readline()
    compile.stdout.close()
    err = compile.stderr.read().decode()
    compile.wait(60)
    assert "Error" not in err and "Traceback" not in err and compile.returncode in (0, 1)
