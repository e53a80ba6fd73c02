"""Questions that ask for what no operation computes ("how many") are answered "cannot tell",
never with the answer of whatever program a translator wrote for them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from qlang.api import parse
from qlang.translate import inexpressible as module
from qlang.translate.inexpressible import Form, inexpressible
from qlang.translate.translator import Translation
from tests.conftest import DATA, graphs, run, write

SCENE = "examples/scene_2353884.json"
COUNT = "'How many' asks for a count or an amount, which qlang's language cannot express"


def test_a_count_is_found_where_the_question_asks_for_it() -> None:
    [found] = inexpressible("How many cups are there?")
    assert (found.phrase, found.span.column, found.span.end_column) == ("How many", 1, 9)
    assert [f.phrase for f in inexpressible("And how  much milk is in it?")] == ["how  much"]
    for question in ("Is the cup red?", "Show many cups.", "What is the manager holding?"):
        assert inexpressible(question) == ()


def test_no_gqa_question_asks_for_what_the_language_cannot_express() -> None:
    for name in ("testdev_ood_head.json", "val_balanced_tail.json"):
        questions = json.loads((DATA / "gqa" / "questions" / name).read_text())
        assert not [q["question"] for q in questions.values() if inexpressible(q["question"])]


def test_a_form_stands_only_while_the_language_lacks_its_operation(monkeypatch) -> None:
    said = re.compile(r"\bis there\b", re.IGNORECASE)
    monkeypatch.setattr(module, "FORMS", (Form(said, "exist", "existence"), Form(said, "tally", "a tally")))
    assert [f.asks for f in inexpressible("Is there a cat?")] == ["a tally"]


def test_a_translation_carries_it_and_translate_warns() -> None:
    program = "query(unique(select(scene(), cup)), size)"
    translation = Translation("How many cups are there?", program, parse(program))
    assert translation.to_json()["inexpressible"] == [
        {"phrase": "How many", "column": 1, "message": f"{COUNT}; the program answers another question"}]
    status, out, err = run("translate", "--translator", "small", "How many cups are there?")
    assert status == 0 and out.strip() and f"<question>:1:1: warning: {COUNT}" in err


def test_ask_cannot_tell_and_seek_refuses_the_program(tmp_path: Path) -> None:
    status, out, _ = run("ask", "How many men are there?", "--scene", SCENE, "--translator", "small")
    assert status == 4 and out.startswith(f"answer:  cannot tell ({COUNT}")
    status, out, _ = run("ask", "How many men are there?", "--scene", SCENE, "--translator", "small",
                         "--seek")
    assert status == 4 and f"answer:  cannot tell ({COUNT}" in out
    from qlang.seek import Context, seek

    sought = seek("How many men are there?", Context(), scene=graphs("emma")["2353884"])
    assert sought.answer is None and sought.reason.startswith(COUNT)
    # a batch records it and goes on
    questions = write(tmp_path / "q.jsonl", '{"id": "a", "question": "How many men are there?"}\n'
                                            '{"id": "b", "question": "Is there a man?"}\n')
    status, _, _ = run("translate", "--translator", "small", "--jsonl", questions,
                       "--output", str(tmp_path / "out.jsonl"))
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert status == 0 and [bool(r.get("inexpressible")) for r in records] == [True, False]


@pytest.mark.parametrize("question", ["How many cups are there?", "how much water is there?"])
def test_the_message_points_at_the_phrase(question: str) -> None:
    [found] = inexpressible(question)
    assert question[found.span.column - 1:found.span.end_column - 1] == found.phrase
