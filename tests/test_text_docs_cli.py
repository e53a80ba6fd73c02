"""`--docs` where questions are answered: `solve`, its batch, `explain`, `ask` and `serve` read
documents files (repeatable; the bundled glosses by default), and a bad documents line stops
each of them before it answers anything, at its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run, write

EXAMPLE = Path(__file__).parent.parent / "examples"
SCENE = str(EXAMPLE / "scene_2353884.json")
DOCS = str(EXAMPLE / "frisbee.docs.jsonl")
LEXICAL = ("--extractor", "lexical")


def solve(tmp_path: Path, program: str, *options: str) -> tuple[int, str, str]:
    return run("solve", "--program", write(tmp_path / "q.txt", program), "--scene", SCENE, *options)


@pytest.mark.parametrize(("program", "answer"), [
    ('extract(select(scene(), man), "How long has he played?")', "ultimate frisbee for ten years"),
    ('query(unique(match(select(scene(), man), "coach", "1")), name)', "man"),
    ('verify_rel(unique(match(select(scene(), man), "the team\'s captain", "1")), shorts, wearing, '
     'object)', "yes"),
    ("read(unique(select(scene(), sign)))", "FINALS TODAY"),
])
def test_solve_and_its_batch_answer_from_a_documents_file(program: str, answer: str, tmp_path: Path) -> None:
    code, out, _ = solve(tmp_path, program, "--docs", DOCS, *LEXICAL)
    assert (code, out.split("\t")[0].strip()) == (0, answer)  # then its cost, where it has one
    lines = write(tmp_path / "q.jsonl", json.dumps({"id": 1, "program": program}) + "\n")
    code, out, _ = run("solve", "--jsonl", "--program", lines, "--scene", SCENE, "--docs", DOCS, *LEXICAL,
                       "--workers", "1")
    assert code == 0 and json.loads(out)["answers"][0]["answer"] == answer


def test_without_the_file_only_the_glosses_are_read(tmp_path: Path) -> None:
    program = 'extract(select(scene(), frisbee), "How much does it weigh?")'
    assert solve(tmp_path, program, "--docs", DOCS, *LEXICAL)[1].split("\t")[0] == "175 grams"
    assert solve(tmp_path, program, *LEXICAL)[0] == 1  # the gloss of a frisbee gives no weight
    assert solve(tmp_path, program, "--docs", "none", *LEXICAL)[0] == 1
    code, out, _ = solve(tmp_path, 'extract(select(scene(), shorts), "Where do they end?")', *LEXICAL)
    assert (code, out.split("\t")[0]) == (0, "above the knee")  # the gloss of shorts says


def test_match_ranks_by_the_retriever_s_weights(tmp_path: Path) -> None:
    program = 'query(unique(match(select(scene(), man), "captain of the team", "2")), name)'
    for retriever in ("bm25", "dense"):
        code, out, _ = solve(tmp_path, program, "--docs", DOCS, "--retriever", retriever, "--bindings",
                             "--json", "--timeout", "120")  # the first question loads the model
        assert code == 0
        bound = json.loads(out)["bindings"]
        assert [o["id"] for o in bound[3]["objects"]] == ["2449847"], retriever  # the captain first


def test_a_bad_documents_line_stops_every_command_at_its_line(tmp_path: Path) -> None:
    docs = write(tmp_path / "bad.jsonl", '{"about": "2449847", "text": "fine"}\n{"about": "sign"}\n')
    program = write(tmp_path / "q.txt", "read(unique(select(scene(), sign)))")
    line = json.dumps({"id": 1, "program": "exist(select(scene(), man))"})
    lines = write(tmp_path / "q.jsonl", line + "\n")
    for args in (("solve", "--program", program), ("explain", "--program", program),
                 ("solve", "--jsonl", "--program", lines),
                 ("ask", "What does the sign say?", "--translator", "small"), ("serve", "--port", "1")):
        scene = () if args[0] == "serve" else ("--scene", SCENE)
        code, stdout, err = run(*args, *scene, "--docs", docs)
        assert (code, stdout) == (1, ""), args
        assert err.startswith(f'{docs}:2:1: error: a document needs "text" (a string)'), (args, err)
        assert "\n  " in err and "^" in err


def test_explain_quotes_the_document_and_marks_the_span(tmp_path: Path) -> None:
    program = write(tmp_path / "q.txt", 'extract(select(scene(), man), "How long has he played?")')
    code, out, _ = run("explain", "--program", program, "--scene", SCENE, "--docs", DOCS, *LEXICAL)
    assert code == 0
    assert '  #2 extract(#1, "How long has he played?") -> ultimate frisbee for ten years' in out.splitlines()
    assert ("      quoted: 2449847 (team notes, characters 60-90): The man in gray shorts is the team's "
            "captain. He has played [[ultimate frisbee for ten years]].") in out.splitlines()
    sign = write(tmp_path / "r.txt", "read(unique(select(scene(), sign)))")
    code, out, _ = run("explain", "--program", sign, "--scene", SCENE, "--docs", DOCS, "--json")
    assert code == 0
    assert json.loads(out)["steps"][-1]["quotes"] == [
        "2747168 (what the sign says, characters 0-12): [[FINALS TODAY]]"]


def test_a_scene_s_texts_are_what_its_objects_show(tmp_path: Path) -> None:
    """A photo's weighted scene (`qlangc perceive`) keeps the words read: solve reads them as
    documents about their objects, and explain quotes them."""
    words = {"name": "words", "text": "COFFEE SHOP", "confidence": 0.98, "x": 42, "y": 40, "w": 240, "h": 30,
             "relations": [{"name": "in", "object": "o1"}]}
    sign = {"name": "sign", "confidence": 0.9, "x": 20, "y": 20, "w": 280, "h": 70}
    scene = write(tmp_path / "photo.json", json.dumps({"width": 320, "height": 200,
                                                      "objects": {"o0": words, "o1": sign}}))
    program = write(tmp_path / "q.txt", "read(unique(select(scene(), sign)))")
    code, out, _ = run("solve", "--program", program, "--scene", scene)
    assert code == 0 and out.split("\t")[0] == "COFFEE SHOP"
    program = write(tmp_path / "m.txt", 'query(unique(match(scene(), "coffee", "1")), name)')
    assert run("solve", "--program", program, "--scene", scene)[1].split("\t")[0] == "words"
    code, out, _ = run("explain", "--program", program.replace("m.txt", "q.txt"), "--scene", scene)
    assert "      quoted: o0 (the photo, characters 0-11): [[COFFEE SHOP]]" in out.splitlines()
    broken = {"width": 320, "height": 200, "objects": {"o0": {**words, "text": 3}, "o1": sign}}
    bad = write(tmp_path / "bad.json", json.dumps(broken))
    code, _, err = run("solve", "--program", program, "--scene", bad)
    assert code == 1 and "object o0: 'text' must be a string" in err
