"""Open-vocabulary words in every syntax: a printed program reads back as itself, or its printing
is refused with an error naming the word and the syntax, so
that no hostile word can change what a program means.

The ASP syntaxes (flat, nested, code) quote any word ASP cannot spell as a constant, so every
word reads back but NUL, which they refuse.  GQA's arguments have no escapes (`qlang.syntax.gqa`),
so its two forms refuse a word that would read back as another one or as another operation.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from qlang.errors import Source, UnsupportedOperation
from qlang.ir import Lit, Node, op
from qlang.syntax import SYNTAXES
from tests.conftest import run, write
from tests.strategies import hostile_words, programs

GQA_FORMS = ("gqa", "gqa-str")


def without_unique(node: Node) -> Node:
    """The program as GQA can say it: its `unique`s are implicit there (reading puts one before
    each operation that needs one object), so they are left out on both sides."""
    if node.op == "unique":
        return without_unique(node.operands[0])
    return Node(node.op, tuple(without_unique(a) if isinstance(a, Node) else Lit(a.value) for a in node.args))


def reads_back(syntax: str, root: Node) -> bool:
    """Whether `root` printed in `syntax` reads back as itself; False where printing refused it
    (any other error fails the caller)."""
    try:
        text = SYNTAXES[syntax].print(root)
    except UnsupportedOperation:
        return False
    back = SYNTAXES[syntax].parse(Source(text))
    if syntax in GQA_FORMS:
        assert without_unique(back) == without_unique(root), text
    else:
        assert back == root, text
    return True


@pytest.mark.parametrize("syntax", sorted(SYNTAXES))
@settings(max_examples=400, deadline=None)
@given(root=programs(4, hostile_words))
def test_a_printed_program_reads_back_as_itself_or_is_refused(syntax: str, root: Node) -> None:
    reads_back(syntax, root)


def cup_filtered(word: str) -> Node:
    return op("exist", op("filter", op("select", op("scene"), "cup"), "color", word))


#: Hostile words (spaces, separators, operation names, ids) and GQA's own, each in a program:
#: every ASP syntax reads them back; GQA would have read another program (or none) and refuses
#: them (gqa-str alone the first two,
#: `test_semantic_str_ends_an_argument_where_gqa_json_does_not`).
HOSTILE = {
    "a->b": cup_filtered("a->b"),
    "x [0]": op("query", op("unique", op("select", op("scene"), "x [0]")), "color"),
    "(1)": op("exist", op("select", op("scene"), "(1)")),
    " lead": op("exist", op("relate", op("select", op("scene"), "cup"), "table", " lead", "subject")),
    "scene": op("exist", op("select", op("scene"), "scene")),
    "not(red)": cup_filtered("not(red)"),
    "same color": op("exist", op("relate", op("select", op("scene"), "cup"), "table", "same color",
                                 "subject")),
    "type": op("all_same", op("select", op("scene"), "cup"), "type"),
    "rel": op("verify_attr", op("unique", op("select", op("scene"), "cup")), "rel", "red"),
    "red|blue": op("choose_attr", op("unique", op("select", op("scene"), "cup")), "color", "red|blue",
                   "green"),
}


@pytest.mark.parametrize("word", sorted(HOSTILE))
def test_a_word_gqa_would_misread_is_refused_by_name(word: str) -> None:
    root = HOSTILE[word]
    for syntax in ("flat", "nested", "code"):
        assert reads_back(syntax, root)
    for syntax in GQA_FORMS if word not in ("a->b", "x [0]") else ["gqa-str"]:
        with pytest.raises(UnsupportedOperation) as refused:
            SYNTAXES[syntax].print(root)
        assert refused.value.diagnostics[0].message.startswith(f"{syntax} cannot write the word {word!r}")


def test_semantic_str_ends_an_argument_where_gqa_json_does_not() -> None:
    """`->`, brackets and a category that is not letters and spaces: gqa-str refuses, the JSON
    form writes them."""
    for root in (cup_filtered("a->b"), HOSTILE["x [0]"], op("exist", op("filter", op(
            "select", op("scene"), "cup"), "colour-2", "red"))):
        assert not reads_back("gqa-str", root)
        assert reads_back("gqa", root)


def test_a_filter_of_the_category_any_stays_one() -> None:
    """`filter(x, any, v)` keeps to attributes of no category; GQA's category-less filter is
    `filter_any` (any category), so the category is written out."""
    root = op("exist", op("filter", op("select", op("scene"), "cup"), "any", "red"))
    assert SYNTAXES["gqa-str"].print(root) == "select: cup->filter any: red [0]->exist: ? [1]"
    assert all(reads_back(syntax, root) for syntax in SYNTAXES)


def test_the_compile_command_refuses_with_an_error_at_the_word(tmp_path: Path) -> None:
    program = write(tmp_path / "p.txt", 'exist(filter(select(scene(), cup), color, "a->b"))\n')
    code, out, err = run("compile", "--open-vocabulary", "--to", "gqa-str", program)
    assert (code, out) == (1, "")
    assert f"{program}:1:43: error: gqa-str cannot write the word 'a->b' of filter" in err
