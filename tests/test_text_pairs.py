"""Text template pairs (`qlang.train.text_pairs`): programs that check, words the questions say,
phrasings held out per family, programs the small parser can write, and what the shipped small
parser learnt from them (the model card's figures)."""

from __future__ import annotations

import json
import statistics

import pytest

from qlang.api import check, parse
from qlang.errors import QlangError
from qlang.ir import Lit, Node
from qlang.passes.canonical import equivalent
from qlang.small.parser import SMALL_MODEL, SmallParser
from qlang.small.tokens import (
    EOS,
    PAD,
    QUESTION,
    said_question,
)
from qlang.syntax import SYNTAXES
from qlang.train.pairs import read_pairs
from qlang.train.text_pairs import DESCRIPTIONS, FAMILIES, text_pairs
from qlang.words import normal_question, plural
from tests.conftest import all_questions, assert_held_out, run, template_programs

#: the shipped small parser's exact match, alone, on the held-out phrasings of the card's text
#: pairs (measured: the model card), with a margin of a few questions for numpy and BLAS
HELD_OUT_EXACT, MARGIN = 0.942, 0.02


@pytest.fixture(scope="module")
def pairs():
    return text_pairs(120, seed=0)


def _roots(pairs) -> list[Node]:
    return [parse(p.program, "nested") for p in pairs]


def test_every_template_program_checks_and_prints_back_in_every_syntax(pairs) -> None:
    assert len(pairs) == 120
    for pair, root in zip(pairs, _roots(pairs), strict=True):
        assert not [d for d in check(root) if not d.warning], pair
        assert SYNTAXES["nested"].print(root) == pair.program
        for name in ("code", "flat"):
            assert parse(SYNTAXES[name].print(root), name) == root
        with pytest.raises(QlangError):
            SYNTAXES["gqa"].print(root)


def _literals(root: Node) -> list[str]:
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found += [a.value for a in node.args if isinstance(a, Lit)]
        stack.extend(a for a in node.args if isinstance(a, Node))
    return found


def test_the_questions_say_what_the_programs_read(pairs) -> None:
    """`read` and `extract` select the class the question names, `extract`'s text is the
    question itself, and `match`'s is the description's word the question says."""
    for pair, root in zip(pairs, _roots(pairs), strict=True):
        question, literals = pair.question.lower(), _literals(root)
        if root.op == "query":
            word = next(w for w in literals if w in DESCRIPTIONS)
            assert word in question.split() or f"{word}?" in question.split(), pair
            continue
        cls = next(w for w in literals if w != pair.question)
        assert cls.replace("_", " ") in question or plural(cls) in question, pair
        assert (root.op == "extract") == (pair.question in literals), pair


def test_the_split_holds_out_one_phrasing_a_family_whatever_the_seed(pairs) -> None:
    assert text_pairs(120, seed=0) == pairs  # stable
    other = text_pairs(120, seed=1)
    assert {p.question for p in other} != {p.question for p in pairs}
    assert_held_out(FAMILIES, pairs, other)


def test_no_template_question_is_one_gqa_asks(pairs) -> None:
    asked = {normal_question(r["question"]) for r in all_questions().values()}
    assert not [p.question for p in pairs if normal_question(p.question) in asked]


def test_the_small_parser_can_write_every_template_program(pairs) -> None:
    """Each program token is one the automaton allows, or, where a text operation takes free
    text, the question itself or a word it offers to copy; and reads back as the program."""
    vocabularies, automaton, written = template_programs(pairs)
    target, questions = vocabularies.target, 0
    for pair, ids in written:
        texts = set(vocabularies.row(pair.question)[1]) - {target.id(PAD)}
        if said_question(pair.question) is not None:
            texts.add(target.id(QUESTION))
        state = automaton.start()
        for token in [*ids, target.id(EOS)]:
            if automaton.takes_question_text(state):
                assert token in texts, pair
            else:
                assert token in automaton.allowed(state), pair
            questions += token == target.id(QUESTION)
            state = state if token == target.id(EOS) else automaton.advance(state, token)
        assert state.done
    assert questions == sum(p.record["family"].startswith("extract") for p in pairs)


def test_qlangc_data_keeps_the_held_out_phrasings_apart(tmp_path) -> None:
    code, _, err = run("data", "--out", str(tmp_path), "--text", "40", "--seed", "3")
    assert code == 0, err
    summary = json.loads((tmp_path / "data.json").read_text())
    held_out = [json.loads(line) for line in (tmp_path / "text-dev.jsonl").read_text().splitlines()]
    train = [json.loads(line) for line in (tmp_path / "train.jsonl").read_text().splitlines()]
    made = [r for r in train if r["id"].startswith("text-")]
    assert summary["text"] == 40 and len(made) + len(held_out) == 40
    assert summary["text-train"] == len(made) and summary["text-dev"] == len(held_out)
    assert {r["split"] for r in held_out} == {"dev"} and {r["split"] for r in made} == {"train"}


def test_the_shipped_parser_writes_text_operations_for_held_out_phrasings() -> None:
    """On the card's held-out text questions, shipped beside the model."""
    held_out = list(read_pairs(SMALL_MODEL / "text-dev.jsonl"))
    phrasings = {f.name: f.held_out for f in FAMILIES}
    assert all(p.record["template"] == phrasings[p.record["family"]] for p in held_out)
    parser = SmallParser.load()
    questions, golds = [p.question for p in held_out], _roots(held_out)
    parsed = [r for i in range(0, len(questions), 64) for r in parser.parse(questions[i:i + 64])]
    exact = statistics.mean(r.root is not None and equivalent(r.root, gold)
                            for r, gold in zip(parsed, golds, strict=True))
    assert exact >= HELD_OUT_EXACT - MARGIN
