"""Hostile values: numbers, depth and text at the edges.

JSON nested 100,000 deep, an integer of thousands of digits or a lone surrogate, wherever a file
or a line is read; step numbers beyond clingo's 32 bits; an ASP scene spaced or escaped as clingo
does not read.  Each is a located error of its own (exit 1, or one batch line's error record),
never exit 3, a traceback or a crash below Python; and no step number changes a meaning.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import clingo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qlang.errors import QlangError
from tests.conftest import DATA, EMMA, run, write

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = str(DATA / "gqa" / "questions" / "testdev_ood_head.json")
EMMA_QUESTIONS = str(DATA / "gqa" / "scenes" / "emma_questions.json")
GOOD = "exist(select(scene(), cat))"
#: valid JSON, but nested 100,000 deep: Python's decoder would recurse past its limit
DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5000  # past Python's 4,300-digit limit of int()
#: a real question with its scene: "Who wears shorts?" about image 2353884, answer "man"
SHORTS = "041477"
SHORTS_FLAT = ("scene(0). select({0}, 0, shorts). relate({1}, {0}, person, wearing, subject). "
               "unique({2}, {1}). query({3}, {2}, name). end({3}).")


def lines(*records: dict[str, Any] | str) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records)


def results(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.split("\n") if line]


def scene_graph(name: str = "cat", attribute: str = "white", oid: str = "1") -> str:
    """A one-object scene, its words written into the JSON text as they are (escapes too)."""
    graph = {"width": 100, "height": 100, "objects": {"OID": {
        "name": "NAME", "x": 1, "y": 1, "w": 10, "h": 10, "attributes": ["ATTRIBUTE"], "relations": []}}}
    return json.dumps(graph).replace("OID", oid).replace("NAME", name).replace("ATTRIBUTE", attribute)


# ----- JSON nested too deeply, wherever JSON is read ------------------------------------------

def _adapter(folder: Path, config: str) -> str:
    folder.mkdir()
    write(folder / "adapter_config.json", config)
    return str(folder)


#: every reader of a JSON file, with the command that reads it (`{}`: the file, `{good}`: a
#: program file that holds GOOD)
READERS = {
    "program": ["check", "{}"],
    "scene": ["solve", "--program", "{good}", "--scene", "{}"],
    "question file": ["translate", "--translator", "small", "--jsonl", "{}"],
    "translations": ["eval", "{}", "--questions", QUESTIONS],
    "example pool": ["translate", "--translator", "fewshot", "--pool", "{}", "Is there a cat?"],
    "concepts": ["perceive", str(ROOT / "examples" / "truck_tire.json"), "--concepts", "{}"],
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_json_nested_100000_deep_is_a_located_error_in_every_reader(reader: str, tmp_path: Path) -> None:
    path, good = write(tmp_path / "deep.json", DEEP), write(tmp_path / "good.txt", GOOD)
    code, out, err = run(*(a.replace("{}", path).replace("{good}", good) for a in READERS[reader]))
    assert code in (0, 1) and "internal error" not in out + err  # a line of a batch: its record
    assert "nested deeper than 200 levels" in out + err and (path in err or '"input_line": 1' in out)


def test_an_adapter_config_nested_100000_deep_is_a_located_error(tmp_path: Path) -> None:
    code, _, err = run("export", _adapter(tmp_path / "adapter", DEEP), "--out", str(tmp_path / "a.gguf"))
    assert code == 1 and "not a PEFT LoRA adapter" in err and "nested deeper than 200 levels" in err


@pytest.mark.parametrize("command", [["check"], ["compile", "--to", "flat"]])
def test_a_json_line_nested_5000_deep_costs_only_itself(command: list[str], tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", lines({"id": 1, "program": GOOD}, "[" * 5000,
                                             {"id": 3, "program": GOOD}))
    code, out, _ = run(*command, "--jsonl", path)
    got = results(out)
    assert code == 1 and len(got) == 3 and got[1]["input_line"] == 2
    assert "nested deeper than 200 levels" in got[1]["error"]["message"]
    assert "error" not in got[0] and "error" not in got[2]


def test_a_deep_json_scene_error_points_at_the_bracket(tmp_path: Path) -> None:
    path = write(tmp_path / "scene.json", '{"objects": ' + "[" * 300)
    code, _, err = run("solve", "--program", write(tmp_path / "q.txt", GOOD), "--scene", path)
    assert code == 1 and f"{path}:1:212: error: malformed scene JSON: nested deeper than 200" in err


# ----- integers of thousands of digits ----------------------------------------------------------

@pytest.mark.parametrize("command", [["check"], ["compile", "--to", "nested"]])
def test_an_id_of_5000_digits_costs_only_its_line(command: list[str], tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", lines(f'{{"id": {HUGE}, "program": "{GOOD}"}}',
                                             {"id": 2, "program": GOOD}))
    code, out, _ = run(*command, "--jsonl", path)
    got = results(out)
    assert code == 1 and len(got) == 2
    assert got[0]["input_line"] == 1 and "an integer of more than 20 digits" in got[0]["error"]["message"]
    assert got[1]["id"] == 2 and "error" not in got[1]


def test_a_solve_batch_with_an_id_of_5000_digits_resumes(tmp_path: Path) -> None:
    program = write(tmp_path / "q.jsonl", lines(
        f'{{"id": {HUGE}, "program": "{GOOD}", "image_id": "2353884"}}',
        {"id": 2, "program": GOOD, "image_id": "2353884"}))
    output = str(tmp_path / "out.jsonl")
    first = run("solve", "--jsonl", "--program", program, "--scene", EMMA, "--output", output)
    again = run("solve", "--jsonl", "--program", program, "--scene", EMMA, "--output", output)
    got = results(Path(output).read_text())
    assert first[0] == 1 and again[0] == 0 and len(got) == 2  # the resume answers nothing twice
    assert "more than 20 digits" in got[0]["error"]["message"] and got[1]["answers"]


@pytest.mark.parametrize(("program", "column"), [
    (SHORTS_FLAT.format(HUGE, 2, 3, 4), 18),
    (f"select: cat->exist: [{HUGE}]", 22),
    ('[{"operation": "select", "argument": "cat", "dependencies": [' + HUGE + "]}]", 62),
], ids=["flat", "gqa-str", "gqa"])
def test_a_step_number_of_5000_digits_is_a_located_error(program: str, column: int, tmp_path: Path) -> None:
    path = write(tmp_path / "prog.txt", program)
    code, _, err = run("check", path)
    assert code == 1 and "internal error" not in err
    assert err.startswith(f"{path}:1:{column}: error: ") and "more than 20 digits" in err.split("\n")[0]


def test_a_coordinate_of_5000_digits_is_a_located_error(tmp_path: Path) -> None:
    path = write(tmp_path / "scene.json", scene_graph().replace('"x": 1', f'"x": {HUGE}'))
    code, _, err = run("solve", "--program", write(tmp_path / "q.txt", GOOD), "--scene", path)
    assert code == 1 and f"{path}:1:69: error: malformed scene JSON: an integer of more than 20" in err


def test_an_object_id_of_5000_digits_is_just_an_id(tmp_path: Path) -> None:
    path = write(tmp_path / "scene.json", scene_graph(oid=HUGE))
    code, out, err = run("solve", "--program", write(tmp_path / "q.txt", GOOD), "--scene", path)
    assert (code, out.split("\n")[0]) == (0, "yes"), err


def test_an_asp_question_with_an_integer_of_5000_digits_is_a_located_error() -> None:
    from qlang.asp.query import read

    with pytest.raises(QlangError, match=r"q.lp:1:11: error: invalid ASP question: an integer beyond"):
        read(f"scene(0). exist({HUGE}, 0). end({HUGE}).", name="q.lp")


# ----- lone surrogates --------------------------------------------------------------------------

@pytest.mark.parametrize(("graph", "column"), [
    (scene_graph(name="\\ud800"), 58), (scene_graph(attribute="big \\udc80"), 118),
    (scene_graph(oid="\\udbff"), 44)], ids=["name", "attribute", "object id"])
def test_a_lone_surrogate_in_a_scene_is_a_located_error(graph: str, column: int, tmp_path: Path) -> None:
    path = write(tmp_path / "scene.json", graph)
    code, _, err = run("solve", "--program", write(tmp_path / "q.txt", GOOD), "--scene", path)
    assert code == 1 and f"{path}:1:{column}: error: malformed scene JSON: a lone surrogate" in err


def test_a_json_line_with_a_lone_surrogate_costs_only_itself(tmp_path: Path) -> None:
    path = write(tmp_path / "q.jsonl", lines(f'{{"id": "a\\udc80", "program": "{GOOD}"}}',
                                             {"id": 2, "program": GOOD}))
    code, out, _ = run("compile", "--jsonl", "--to", "flat", path)
    got = results(out)
    assert code == 1 and "a lone surrogate (\\udc80)" in got[0]["error"]["message"]
    assert got[1] == {"id": 2, "program": "scene(0).\nselect(1, 0, cat).\nexist(2, 1).\nend(2)."}


def test_an_answer_word_with_a_lone_surrogate_is_refused_not_a_crash(tmp_path: Path) -> None:
    """A command line's undecodable bytes reach Python as lone surrogates."""
    program = write(tmp_path / "q.txt", "query(unique(select(scene(), shorts)), name)")
    code, _, err = run("explain", "--scene", str(ROOT / "examples" / "scene_2353884.json"),
                       "--program", program, "--answer", "m\udcffn")
    assert code == 1 and "internal error" not in err and "a lone surrogate (\\udcff)" in err


# ----- ASP scenes: only what clingo reads -------------------------------------------------------

def _solve_in_a_process(scene: Path) -> subprocess.CompletedProcess[str]:
    """qlangc solve in a process of its own: clingo, handed a character it does not read, can
    abort the whole process (PANIC) when its message is not UTF-8."""
    main = "from qlang.commands.main import main; main()"
    program = write(scene.parent / "q.txt", GOOD)
    return subprocess.run([sys.executable, "-c", main, "solve", "--program", program, "--scene", str(scene)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize(("text", "where", "message"), [
    ("object(1).\u00a0has_attr(1, class, cat).", 11, "\\xa0 is a space clingo does not read"),
    ("object(1). has_attr(1,\u3000class, cat).", 23, "\\u3000 is a space clingo does not read"),
    ("object(1).\u2028object(2).", 11, "\\u2028 is a space clingo does not read"),
    ("object(1).\x0bobject(2).", 11, "\\x0b is a space clingo does not read"),
    ('object(1). has_attr(1, name, "caf\\\u00e9").', 12, "only ground facts"),
    ('object(1). has_attr(1, name, "tab\\t").', 12, "only ground facts"),
    ("object(007).", 1, "only ground facts"),
    ("object(1). %* %* nested *% object(2).", 12, "only ground facts"),
    ("object(1). %* never closed\nobject(2).", 12, "only ground facts"),
    ("object(1). % a NUL \x00 ends clingo's text\nobject(2).", 20, "a NUL character"),
    (f"object({HUGE}).", 1, "an integer beyond clingo's 32 bits"),
], ids=["nbsp", "ideographic space", "line separator", "vertical tab", "escaped non-ascii",
        "unknown escape", "leading zeros", "nested comment", "open comment", "nul", "huge integer"])
def test_an_asp_scene_holds_only_what_clingo_reads(text: str, where: int, message: str,
                                                   tmp_path: Path) -> None:
    scene = tmp_path / "scene.lp"
    scene.write_text(text, encoding="utf-8")
    done = _solve_in_a_process(scene)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith(f"{scene}:1:{where}: error: invalid ASP scene: {message}")


def test_other_spaces_in_an_asp_scenes_strings_and_comments_are_read_as_clingo_reads_them(
        tmp_path: Path) -> None:
    scene = tmp_path / "scene.lp"
    scene.write_text('object(1). % \u00a0\u3000\r\n%* caf\u00e9 *%\thas_attr(1, class, cat).\r\n'
                     'has_attr(1, name, "caf\u00e9\u00a0\\"x\\"\\n").\n', encoding="utf-8")
    done = _solve_in_a_process(scene)
    assert (done.returncode, done.stdout.split("\n")[0]) == (0, "yes"), done.stderr


def test_an_asp_question_with_another_space_is_a_located_error() -> None:
    from qlang.asp.query import read

    with pytest.raises(QlangError, match=r"q.lp:1:10: error: invalid ASP question: \\u3000 is a space"):
        read("scene(0).\u3000exist(1, 0). end(1).", name="q.lp")


_PIECES = ["object(1).", "has_attr(1, class, cat).", 'has_attr(1, name, "', '").', "(", ")", ",", ".",
           " ", "\t", "\r", "\n", "\u00a0", "\u3000", "\u2028", "\x0b", "\x0c", "\x85", "\ufeff",
           "%", "%*", "*%", '"', "\\", "\\n", "\\q", "\\\u00e9", "\u00e9", "0", "00", "-", "7", "a", "A", "'"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=16).map("".join))
def test_what_the_scene_validator_accepts_clingo_reads_as_it_does(text: str) -> None:
    """Validation lets through only what clingo reads, and clingo reads the same facts from it."""
    from qlang.asp import facts

    if facts.problem(text) is None:
        control = clingo.Control(["--warn=none"])  # its own logger: a message is never decoded
        control.add("base", [], text)  # raises where clingo cannot read the text
        control.ground([("base", [])])
        read = {f"{name}({', '.join(args)})" for name, args, _ in facts.read(text, facts.SCENE)}
        assert {atom.symbol for atom in control.symbolic_atoms} == set(map(clingo.parse_term, read))


# ----- step numbers reach clingo renumbered -----------------------------------------------------

def test_a_flat_translation_numbered_beyond_32_bits_is_judged_as_solve_answers_it(tmp_path: Path) -> None:
    program = SHORTS_FLAT.format(*(2**32 + n for n in range(1, 5)))
    solved = run("solve", "--scene", EMMA, "--image-id", "2353884",
                 "--program", write(tmp_path / "q.txt", program))
    assert solved[0] == 0 and solved[1].startswith("man")
    translations = write(tmp_path / "t.jsonl", lines({"id": SHORTS, "program": program}))
    code, out, err = run("eval", translations, "--questions", EMMA_QUESTIONS, "--scenes", EMMA,
                         "--syntax", "flat", "--json")
    top = next(row for row in json.loads(out)["answers"] if (row["generosity"], row["k"]) == ("strict", 1))
    assert code == 0 and top["accuracy"] == 1.0, err


def test_the_lenient_reader_hands_clingo_only_step_numbers_it_holds() -> None:
    from qlang.asp.facts import INT_RANGE
    from qlang.evaluate import lenient

    written = lenient.lower(SHORTS_FLAT.format(*(2**64 + n for n in (9, 3, 5, 1))), "flat")
    assert " ".join(map(str, written)) == (
        "scene(0). select(4, 0, shorts). relate(2, 4, person, wearing, subject). unique(3, 2). "
        "query(1, 3, name). end(1).")
    assert all(a in INT_RANGE for fact in written for a in fact.args if isinstance(a, int))


def test_the_lenient_reader_refuses_an_operand_step_of_thousands_of_digits() -> None:
    """An operand step no fact defines becomes a scene step, ordered by number: by no int()."""
    from qlang.evaluate import lenient

    with pytest.raises(QlangError, match="a step number of more than 20 digits"):
        lenient.lower(f"select(1, {'9' * 5000}, cat). exist(2, 1). end(2).", "flat")


# ----- the example pool is a question file like any other ---------------------------------------

def test_the_example_pool_reads_as_every_question_file_does(tmp_path: Path) -> None:
    from qlang.translate.examples import read_pool

    records = json.loads((DATA / "gqa" / "questions" / "val_balanced_tail.json").read_text())
    chosen = dict(list(records.items())[:20])
    by_id = write(tmp_path / "pool.json", json.dumps(chosen))
    as_lines = write(tmp_path / "pool.jsonl", lines(*({"id": k, **v} for k, v in chosen.items())))
    assert read_pool(as_lines) == read_pool(by_id) and len(read_pool(by_id).examples) == 20
