"""`qlangc solve` and `qlangc explain` end to end: answers, clear errors, resumable batches."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import (
    DATA,
    EMMA,
    HOPELESS,
    SCENES,
    WEIGHTED,
    batch_lines,
    emma_questions,
    pigeonhole_scene,
    run,
    write,
)


def run_guarded(*args: str, input: str) -> tuple[int, str, str]:
    """`run` in a process of its own, killed after a minute: over a question that never ends, a
    deadline that fails to fire fails the test instead of hanging it."""
    done = subprocess.run([sys.executable, "-c", "from qlang.commands.main import main; main()", *args],
                          input=input, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("question", emma_questions(), ids=lambda q: q["question"])
def test_solve_answers_a_gqa_program_from_its_semantic_string(question: dict, tmp_path: Path) -> None:
    program = write(tmp_path / "q.txt", question["semanticStr"])
    code, out, _ = run("solve", "--program", program, "--scene", EMMA, "--image-id", question["imageId"],
                       "--from", "gqa-str")
    assert (code, out) == (0, question["answer"] + "\n")


def test_explain_shows_each_step_and_its_objects() -> None:
    question = next(q for q in emma_questions() if q["answer"] == "man")
    code, out, _ = run("explain", "--scene", EMMA, "--image-id", question["imageId"], "--from", "gqa-str",
                       input=question["semanticStr"])
    assert code == 0
    assert out.startswith("answer: man\n")
    assert "relate(#1, person, wearing, subject) -> {2449847 (man)}" in out
    assert "has_rel(2449847,wearing,3576178)" in out
    code, out, _ = run("explain", "--json", "--scene", EMMA, "--image-id", question["imageId"],
                       "--from", "gqa-str", input=question["semanticStr"])
    assert json.loads(out)["answer"] == "man"


def test_an_impossible_answer_is_reported() -> None:
    code, _, err = run("explain", "--scene", EMMA, "--image-id", "2353884", "--answer", "maybe",
                       input="exist(select(scene(), man))")
    assert code == 1 and "'maybe' is not a possible answer in this scene" in err


def test_no_answer_is_a_clear_message(tmp_path: Path) -> None:
    program = write(tmp_path / "q.nested", "query(unique(select(scene(), giraffe)), name)")
    code, out, err = run("solve", "--program", program, "--scene", EMMA, "--image-id", "2353884")
    assert (code, out) == (1, "")
    assert err == f"{program}: error: the question has no answer in this scene\n"


@pytest.mark.parametrize(("program", "why"), [
    ("query(unique(select(scene(), giraffe)), name)", "step #1 select(#0, giraffe) kept no object"),
    ("query(unique(filter(select(scene(), man), color, purple)), name)",
     "step #2 filter(#1, color, purple) kept no object"),
    ("query(unique(select(scene(), frisbee)), material)", "step #3 query(#2, material) found no value"),
])
def test_explain_names_the_first_step_that_kept_nothing(tmp_path: Path, program: str, why: str) -> None:
    """With no answer, explain shows the steps up to the first that kept nothing, and says which."""
    path = write(tmp_path / "q.nested", program)
    code, out, err = run("explain", "--program", path, "--scene", EMMA, "--image-id", "2353884")
    assert code == 1
    assert err == f"{path}: error: the question has no answer in this scene: {why}\n"
    assert out.splitlines()[0] == f"no answer: {why}"
    assert out.splitlines()[-1].endswith("-> {}" if "object" in why else "-> (no value)")
    code, out, _ = run("explain", "--json", "--program", path, "--scene", EMMA, "--image-id", "2353884")
    shown = json.loads(out)
    assert code == 1 and f"step #{shown['step']} {shown['call']} {shown['what']}" == why
    assert [s["step"] for s in shown["steps"]][-1] == shown["step"]


def test_malformed_scene_json_is_located(tmp_path: Path) -> None:
    text = '{"width": 10, "height": 10,\n "objects": {"1": {"name": "cup", "x": }}}'
    scene = write(tmp_path / "s.json", text)
    code, _, err = run("solve", "--scene", scene, input="exist(scene())")
    assert code == 1
    assert err.startswith(f"{scene}:2:40: error: malformed scene JSON: Expecting value\n")
    assert err.splitlines()[2] == " " * 41 + "^"
    assert "Traceback" not in err


def test_batch_options_without_batch_mode_are_a_usage_error() -> None:
    code, _, err = run("solve", "--scene", EMMA, "--workers", "2", input="exist(scene())")
    assert code == 2 and "--workers is for batch mode (--jsonl)" in err


def test_unknown_image_id(tmp_path: Path) -> None:
    code, _, err = run("solve", "--scene", EMMA, "--image-id", "123", input="exist(scene())")
    assert code == 1 and "error: image '123' is not in the scene file" in err


def test_a_program_error_points_into_the_program(tmp_path: Path) -> None:
    program = write(tmp_path / "q.nested", "exist(select(scene(), dgo))")
    code, _, err = run("solve", "--program", program, "--scene", EMMA, "--image-id", "2353884")
    assert code == 1 and f"{program}:1:23: error: 'dgo' is not a known class" in err


def big_scene(path: Path, objects: int, attributes: list[dict]) -> str:
    graph = {"width": 100, "height": 100, "objects": {
        f"o{i}": {"name": "cup", "x": 0, "y": 0, "w": 1, "h": 1, "attributes": attributes, "relations": []}
        for i in range(objects)}}
    return write(path, json.dumps(graph))


def test_the_grounding_guard_refuses_a_blow_up(tmp_path: Path) -> None:
    scene = big_scene(tmp_path / "big.json", 4000, ["white"])
    code, _, err = run("solve", "--scene", scene, input="all_different(select(scene(), cup), color)")
    assert code == 1
    assert "error: the question would ground to about" in err and "above the guard of 5,000,000" in err
    # 4,000 objects to encode and ground in 0.5 s: a generous timeout
    code, out, _ = run("solve", "--timeout", "60", "--scene", scene, input="exist(select(scene(), cup))")
    assert (code, out) == (0, "yes\n")


def test_a_timeout_is_reported_not_waited_out(tmp_path: Path) -> None:
    code, _, err = run_guarded("solve", "--timeout", "0.3", "--scene", pigeonhole_scene(tmp_path / "p.json"),
                               input=HOPELESS)
    assert code == 1 and "error: no answer within the 0.3 s timeout" in err


def test_the_hopeless_question_asks_what_it_says(tmp_path: Path) -> None:
    """With a few colours clingo proves it: no answer with one cup more than colours, the
    table's name with as many."""
    path = pigeonhole_scene(tmp_path / "p.json", colours=4)
    code, _, err = run("solve", "--scene", path, input=HOPELESS)
    assert code == 1 and "the question has no answer in this scene" in err
    scene = json.loads(Path(path).read_text())
    del scene["objects"]["c4"]
    scene["objects"]["table"]["relations"].pop()
    code, out, _ = run("solve", "--scene", write(tmp_path / "fits.json", json.dumps(scene)), input=HOPELESS)
    assert code == 0 and out.split("\t")[0] == "table"  # and its cost


@pytest.mark.parametrize(("scene", "kind", "timeout"), [
    (pigeonhole_scene, "timeout", "3"),
    # the grounding guard acts before any search, so the timeout is waited out by no question
    (lambda p: big_scene(p, 4000, ["white"]), "grounding", "60")])
def test_batch_reports_timeouts_and_blow_ups_and_goes_on(scene, kind: str, timeout: str,
                                                          tmp_path: Path) -> None:
    """The first question cannot be answered, however fast the machine; the second, over the
    same scene, is answered well inside the timeout (in 0.2 s; over 4,000 objects, in 1 s)."""
    first = HOPELESS if kind == "timeout" else "all_different(select(scene(), cup), color)"
    lines = [json.dumps({"id": 1, "program": first}),
             json.dumps({"id": 2, "program": "exist(select(scene(), cup))"})]
    code, out, _ = run_guarded("solve", "--jsonl", "--timeout", timeout, "--scene",
                               scene(tmp_path / "s.json"), input="\n".join(lines))
    got = results(out)
    assert code == 1
    assert got[1]["error"]["kind"] == kind
    assert got[2]["answers"][0]["answer"] == "yes"


def results(text: str) -> dict[object, dict]:
    parsed = [json.loads(line) for line in text.splitlines()]
    keyed = {r["id"] if r["id"] is not None else r["input_line"]: r for r in parsed}
    assert len(keyed) == len(parsed), "a line was answered twice"
    return keyed


def test_batch_goes_on_after_bad_lines(tmp_path: Path) -> None:
    questions = json.loads((SCENES / "emma_questions.json").read_text())
    code, out, _ = run("solve", "--jsonl", "--scene", EMMA, input="\n".join(batch_lines()))
    assert code == 1
    got = results(out)
    assert len(got) == len(batch_lines())
    for qid, record in questions.items():
        if record["imageId"] in {q["imageId"] for q in emma_questions()}:
            assert got[qid]["answers"][0]["answer"] == record["answer"]
        else:
            assert got[qid]["error"]["kind"] == "scene"
    assert got["nested"]["answers"] == [{"answer": "yes", "cost": [], "rank": 1}]
    assert got["typo"]["error"]["column"] == 23
    assert got[len(questions) + 3]["error"]["kind"] == "input"
    assert "999" in got["noscene"]["error"]["message"]


def test_batch_resumes_without_losing_or_repeating_work(tmp_path: Path) -> None:
    lines = batch_lines()
    questions = write(tmp_path / "q.jsonl", "\n".join(lines))
    output = tmp_path / "out.jsonl"
    run("solve", "--jsonl", "--program", questions, "--scene", EMMA, "--output", str(output))
    complete = results(output.read_text())
    # an interrupted run: three lines written, the fourth torn mid-line
    kept = output.read_text().splitlines(keepends=True)
    output.write_text("".join(kept[:3]) + kept[3][:10])
    code, out, _ = run("solve", "--jsonl", "--program", questions, "--scene", EMMA, "--output", str(output),
                       "--workers", "2")
    assert (code, out) == (1, "")
    assert results(output.read_text()) == complete
    run("solve", "--jsonl", "--program", questions, "--scene", EMMA, "--output", str(output))
    assert results(output.read_text()) == complete


def test_resuming_into_a_foreign_file_or_nowhere_is_refused(tmp_path: Path) -> None:
    foreign = write(tmp_path / "notes.txt", "my notes\n")
    code, _, err = run("solve", "--jsonl", "--scene", EMMA, "--output", foreign, input=batch_lines()[0])
    assert code == 1 and "notes.txt: error: line 1: not a result line of an earlier run" in err
    code, _, err = run("solve", "--jsonl", "--scene", EMMA, "--output", str(tmp_path / "no" / "out.jsonl"),
                       input=batch_lines()[0])
    assert code == 1 and f"the output folder {tmp_path / 'no'} does not exist" in err


def test_batch_with_workers_matches_one_process() -> None:
    one = results(run("solve", "--jsonl", "--scene", EMMA, input="\n".join(batch_lines()))[1])
    many = results(run("solve", "--jsonl", "--scene", EMMA, "--workers", "3",
                       input="\n".join(batch_lines()))[1])
    assert one == many


def test_batch_over_asp_scene(tmp_path: Path) -> None:
    scene = "\n".join(line for line in (DATA / "asp" / "encoded_questions" / "03127831.lp").read_text()
                      .split("% ------ question encoding")[0].splitlines())
    path = write(tmp_path / "scene.lp", scene)
    line = json.dumps({"id": 1, "program": "query(unique(relate(select(scene(), grass), animal, eating, "
                                            "subject)), name)"})
    code, out, _ = run("solve", "--jsonl", "--scene", path, "--top-k", "2", input=line)
    assert code == 0 and json.loads(out)["answers"][0]["answer"] == "goat"


def test_top_k_distinct_prints_answers_with_their_costs_best_first(tmp_path: Path) -> None:
    scene = write(tmp_path / "weighted.json", json.dumps(WEIGHTED))
    code, out, _ = run("solve", "--top-k", "3", "--distinct", "--scene", scene,
                       input="query(unique(filter(select(scene(), cup), color, green)), material)")
    assert code == 0
    (first, first_cost), (second, second_cost) = (line.split("\t") for line in out.splitlines())
    assert (first, second) == ("plastic", "glass") and int(first_cost) < int(second_cost)
