"""`qlangc serve --kb --rules`: the page answers with the knowledge and rules it was started
with, as `ask` and `solve` do with the same options, and says which they are; a bad file ends
the server before it listens.  One server for the module, on a free port of the loopback
interface, over the real scene of GQA image 2353884 (docs/knowledge.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import qlangc_process, run, serving, write

EXAMPLES = Path(__file__).parent.parent / "examples"
SCENE = str(EXAMPLES / "scene_2353884.json")
RULES = str(EXAMPLES / "athlete.rules")
#: A use of the scene's frisbee that the bundled base does not know.
USE = "playing catch"


@dataclass(frozen=True)
class Server:
    url: str
    #: the page's settings (the script element `config`)
    config: dict[str, Any]
    #: the key of the scene on the page
    scene: str

    def post(self, path: str, fields: dict[str, str]) -> dict[str, Any]:
        """POST a form about the scene as the page does: the JSON of a 200 reply."""
        form = {k: (None, v) for k, v in {**fields, "source": "scene", "scene": self.scene}.items()}
        reply = requests.post(self.url + path, files=form, timeout=120)
        assert reply.status_code == 200, reply.text
        result: dict[str, Any] = reply.json()
        return result


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A knowledge file of one edge about an object of the scene."""
    names = {o["name"] for o in json.loads(Path(SCENE).read_text())["2353884"]["objects"].values()}
    assert "frisbee" in names
    return write(tmp_path_factory.mktemp("kb") / "frisbee.tsv", f"frisbee\tused_for\t{USE}\n")


@pytest.fixture(scope="module")
def server(kb: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("server-log") / "stderr.txt"
    with serving(["--scenes", SCENE, "--rules", RULES, "--kb", kb], log) as (url, _):
        page = requests.get(url + "/", timeout=60).text
        found = re.search(r'<script id="config" type="application/json">(.*?)</script>', page, re.S)
        assert found is not None
        config = json.loads(found.group(1))
        yield Server(url, config, config["scenes"][0]["key"])


def _asked(*args: str) -> tuple[list[str], str]:
    """`qlangc ask`'s answers (none: an empty list) and program about the scene."""
    code, out, _ = run("ask", *args, "--scene", SCENE)
    assert code in (0, 1), out
    fields = dict(line.split(":  " if line.startswith("answer") else ": ", 1)
                  for line in out.splitlines())
    answers = [] if fields["answer"] == "(no answer)" else fields["answer"].split(", ")
    return answers, fields["program"]


def test_the_page_says_which_knowledge_and_rules_answer(server: Server, kb: str) -> None:
    assert [s["key"] for s in server.config["scenes"]] == [server.scene]
    line = server.config["background"]
    assert f"knowledge: {Path(kb).resolve()}" in line
    assert f"rules: {RULES} (5 rules)" in line


@pytest.mark.parametrize(("question", "option", "expected"), [
    ("Is there an athlete?", "--rules", ["yes"]),  # the rules make the man in shorts one
    ("What is the frisbee used for?", "--kb", [USE])])
def test_a_question_answers_as_ask_does_with_the_same_background(
        server: Server, kb: str, question: str, option: str, expected: list[str]) -> None:
    """Each question needs one of the two: ask without it answers otherwise."""
    answers, program = _asked(question, "--rules", RULES, "--kb", kb)
    assert answers == expected
    without = ["--kb", kb] if option == "--rules" else ["--rules", RULES]
    assert _asked(question, *without)[0] != answers
    report = server.post("/api/ask", {"question": question, "top_k": "3"})
    assert [a["answer"] for a in report["answers"]] == answers
    assert report["translation"]["program"] == program


def test_an_edited_program_in_the_rules_words_solves_as_solve_does(
        server: Server, kb: str, tmp_path: Path) -> None:
    """The page's program editor checks against the rules' own words (``style``, ``sporty``) and
    its steps show what the rules derived."""
    text = "exist(filter(relate_any(select(scene(), athlete), wearing, object), style, sporty))"
    program = write(tmp_path / "sporty.txt", text)
    code, out, _ = run("solve", "--program", program, "--scene", SCENE, "--rules", RULES, "--kb", kb)
    assert code == 0
    report = server.post("/api/solve", {"program": text, "top_k": "1"})
    assert [a["answer"] for a in report["answers"]] == out.split()
    athletes = next(step for step in report["steps"] if step["call"].startswith("select("))
    assert [(d["rule"], d["where"]) for d in athletes["derivations"]] == [(1, f"{RULES}:10")]


@pytest.mark.parametrize(("option", "text", "where"), [
    ("--kb", f"frisbee\tused_for\t{USE}\nfrisbee\tflies_to\tsky\n", ":2:9: error: 'flies_to'"),
    ("--rules", "class(X, athlete) :- class(X, persn).\n", ":1:31: error: 'persn'")])
def test_a_bad_file_ends_serve_before_it_listens(tmp_path: Path, option: str, text: str, where: str) -> None:
    bad = write(tmp_path / "bad.txt", text)
    code, out = qlangc_process("serve", "--port", "0", option, bad, timeout=120)
    assert code == 1
    assert f"{bad}{where}" in out
    assert "serving" not in out and "Traceback" not in out
