"""Prompt versions, example rendering, chat and completion forms, repair turns."""

from __future__ import annotations

import csv
import doctest
import re
from pathlib import Path

import pytest

import qlang
from qlang.translate import prompts
from qlang.translate.examples import Example
from qlang.translate.prompts import (
    CHAT_TEMPLATES,
    CUE,
    DEFAULT_VERSION,
    VERSIONS,
    Prompt,
    build_prompt,
    render_examples,
    with_repair,
)
from tests.conftest import DATA

THESIS = DATA.parent / "seeds" / "000_e2c1124daf190cff.txt"
QUESTION = "Is there a green car?"


def _example(qid: str, question: str, nested: str) -> Example:
    return Example(qid, question, qlang.canonicalize(qlang.parse(nested, "nested")))


EXAMPLES = (
    _example("1", "What is the dish inside of?",
             "query(unique(relate_any(select(scene(), dish), inside, object)), name)"),
    _example("2", "Does the truck tire look round and black?",
             "and(verify_attr(unique(relate(select(scene(), truck), tire, of, subject)), color, black), "
             "verify_attr(unique(relate(select(scene(), truck), tire, of, subject)), shape, round))"),
)


def _appendix() -> dict[str, tuple[str, str]]:
    """The thesis's Appendix 7.1, whitespace-normalised: version -> (preprompt, template)."""
    if not THESIS.is_file():
        pytest.skip(f"the seed thesis is not here: {THESIS}")
    text = THESIS.read_text(encoding="utf-8")
    text = text[text.index("7.1 Prompt Templates\n"):text.index("7.2 ASP Theory\n")]
    blocks = re.split(r"^(GQA|ASP v\d+):$", text, flags=re.MULTILINE)[1:]
    result = {}
    for header, body in zip(blocks[::2], blocks[1::2], strict=True):
        preprompt, template = body.split("preprompt:")[1].split("template:")
        result[header.replace("ASP ", "").lower()] = (_words(preprompt), _words(template))
    return result


def _words(text: str) -> str:
    return " ".join(text.split())


def test_the_versions_are_the_thesis_appendix_verbatim() -> None:
    appendix = _appendix()
    assert set(appendix) == set(VERSIONS) == {"gqa", *(f"v{i}" for i in range(1, 11))}
    for name, version in VERSIONS.items():
        assert (_words(version.system), _words(version.template)) == appendix[name], name


def test_the_defaults_are_gqa_and_the_version_of_the_real_gpt4o_runs(data_dir: Path) -> None:
    with open(DATA / "llm_outputs" / "gpt4o_nested_val_eval.csv", newline="") as handle:
        used = {row["prompt_version"] for row in csv.DictReader(handle) if row["agent"] == "gpt-4o_raw"}
    assert used == {"v6"}
    assert DEFAULT_VERSION == {"gqa": "gqa", "gqa-str": "gqa", "flat": "v6", "nested": "v6", "code": "v6"}


@pytest.mark.parametrize("syntax", sorted(qlang.SYNTAXES))
@pytest.mark.parametrize("version", sorted(VERSIONS))
def test_every_version_renders_for_every_syntax(version: str, syntax: str) -> None:
    prompt = build_prompt(version, syntax, EXAMPLES, QUESTION)
    (system_role, system), (user_role, user) = prompt.messages
    assert (system_role, system, user_role) == ("system", VERSIONS[version].system, "user")
    assert "{" not in user.replace(render_examples(EXAMPLES, syntax), "")  # no placeholder left
    assert render_examples(EXAMPLES, syntax) in user
    assert user.endswith(f"\n{QUESTION}")


@pytest.mark.parametrize("syntax", sorted(qlang.SYNTAXES))
def test_examples_are_the_question_then_the_program_in_the_syntax(syntax: str) -> None:
    rendered = render_examples(EXAMPLES, syntax)
    expected = "\n".join(f"{e.question}\n{qlang.SYNTAXES[syntax].print(e.root)}" for e in EXAMPLES)
    assert rendered == expected
    for example in EXAMPLES:  # and each program reads back as the example's
        program = qlang.SYNTAXES[syntax].print(example.root)
        assert qlang.canonicalize(qlang.parse(program, syntax)) == example.root


def test_the_nested_prompt_reads_like_listing_7() -> None:
    user = build_prompt(None, "nested", EXAMPLES[:1], QUESTION).messages[1][1]
    assert user.splitlines()[1:] == [
        "What is the dish inside of?",
        "query(unique(relate_any(select(scene(), dish), inside, object)), name)",
        "Now, translate the following question into an ASP program:",
        QUESTION,
    ]


@pytest.mark.parametrize("syntax", sorted(qlang.SYNTAXES))
def test_the_completion_prompt_is_the_examples_then_the_question_and_the_cue(syntax: str) -> None:
    completion = build_prompt(None, syntax, EXAMPLES, QUESTION).completion
    assert completion.endswith(f"Question: {QUESTION}\n{CUE}")
    printer = qlang.SYNTAXES[syntax].print
    for example in EXAMPLES:
        assert f"Question: {example.question}\n{CUE} {printer(example.root)}\n" in completion
    assert "ASP" not in completion and "translate" not in completion, "no role, no instructions"


def test_no_examples_is_still_a_prompt() -> None:
    prompt = build_prompt("v3", "flat", [], QUESTION)
    assert prompt.completion == f"Question: {QUESTION}\n{CUE}"
    assert prompt.messages[1][1].endswith(f"ASP programs:\n\nBased on these examples, translate the "
                                          f"following question into an ASP program:\n{QUESTION}")


def test_an_unknown_version_is_refused() -> None:
    with pytest.raises(ValueError, match="v11"):
        build_prompt("v11", "nested", EXAMPLES, QUESTION)


def test_a_repair_shows_the_failed_answer_and_the_checkers_message() -> None:
    prompt = build_prompt(None, "nested", EXAMPLES, QUESTION)
    answer = "exist(filter(select(scene(), car), colour, green))"
    message = "<model output>:1:36: error: 'colour' is not a known attribute category"
    repaired = with_repair(prompt, answer, message)
    assert repaired.messages[:2] == prompt.messages
    assert repaired.messages[2] == ("assistant", answer)
    role, retry = repaired.messages[3]
    assert role == "user" and f"Your previous answer failed: {message}\n" in retry
    assert retry.endswith(f"\n{QUESTION}")
    assert repaired.completion.startswith(f"{prompt.completion} {answer}\n")
    assert message in repaired.completion
    assert repaired.completion.endswith(f"Question: {QUESTION}\n{CUE}")
    again = with_repair(repaired, "exist(select(scene(), car))", "second")
    assert again.messages[:4] == repaired.messages and len(again.messages) == 6
    assert isinstance(again, Prompt) and again.question == QUESTION


def test_gemma_puts_the_system_prompt_in_the_first_user_turn_and_answers_as_model() -> None:
    """Gemma 3's own template, repair turns included; the prompt opens the model's turn."""
    pytest.importorskip("llama_cpp")
    from qlang.translate.backends.llama import chat_formatter

    prompt = with_repair(build_prompt(None, "nested", EXAMPLES[:1], QUESTION), "exist(car)", "bad")
    (_, system), (_, user), (_, answer), (_, retry) = prompt.messages
    text = chat_formatter(CHAT_TEMPLATES["gemma3"], "<bos>", "<eos>")(prompt.messages)
    assert text == (f"<bos><start_of_turn>user\n{system}\n\n{user}<end_of_turn>\n"
                    f"<start_of_turn>model\n{answer}<end_of_turn>\n"
                    f"<start_of_turn>user\n{retry}<end_of_turn>\n"
                    "<start_of_turn>model\n")
    assert chat_formatter(CHAT_TEMPLATES["gemma3"], "<bos>", "<eos>")([("user", " hi \n")]) == (
        "<bos><start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n")


def test_doctests() -> None:
    assert doctest.testmod(prompts, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
