"""Property tests: every conversion round-trips, `fmt` is idempotent, errors are located."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import qlang
from qlang.asp_names import from_term, to_term
from qlang.errors import Source, UnsupportedOperation
from qlang.ir import Lit, Node, postorder
from qlang.passes.canonical import canonicalize, equivalent, normalize
from qlang.signatures import SIGNATURES, Kind, Type
from qlang.syntax import SYNTAXES, gqa
from tests.strategies import programs

ASP_SYNTAXES = ("flat", "nested", "code")


@given(programs())
def test_generated_programs_check_clean(root: Node) -> None:
    assert qlang.check(root) == []


@pytest.mark.parametrize("syntax", ASP_SYNTAXES)
@given(root=programs())
def test_print_then_parse_is_identity(syntax: str, root: Node) -> None:
    text = SYNTAXES[syntax].print(root)
    assert SYNTAXES[syntax].parse(Source(text)) == root


@pytest.mark.parametrize("syntax", ["gqa", "gqa-str"])
@given(root=programs())
def test_gqa_round_trip_where_gqa_can_express_it(syntax: str, root: Node) -> None:
    """GQA is coarser than the IR; where it can say a program, reading it back is exact.

    It cannot say it where two different nodes print as the same step (`unique` is implicit in
    GQA, so ``filter(unique(x), ...)`` and ``filter(x, ...)`` are one step): reading merges them.
    """
    try:
        text = SYNTAXES[syntax].print(root)
    except UnsupportedOperation:
        assume(False)
    steps = text.split("->") if syntax == "gqa-str" else [json.dumps(s) for s in json.loads(text)]
    assume(len(set(steps)) == len(steps))
    back = SYNTAXES[syntax].parse(Source(text))
    assert SYNTAXES[syntax].print(back) == text


@given(programs())
def test_flat_nested_code_cycle_is_identity_up_to_canonicalisation(root: Node) -> None:
    text = qlang.SYNTAXES["flat"].print(root)
    for target in ("nested", "code", "flat"):
        text = qlang.convert(text, target)
    assert text == qlang.SYNTAXES["flat"].print(canonicalize(root))
    assert qlang.parse(text, "flat") == root


def unshared(node: Node) -> Node:
    """The same program with every occurrence of a subtree a node of its own."""
    return Node(node.op, tuple(unshared(a) if isinstance(a, Node) else Lit(a.value) for a in node.args))


@pytest.mark.parametrize("syntax", sorted(SYNTAXES))
@given(root=programs())
def test_printing_needs_no_canonical_form(syntax: str, root: Node) -> None:
    """Printers find equal steps by equality, not identity, so `compile` prints a parsed program
    as it would print its canonical DAG (here: with a repeated subtree, as `and` makes)."""
    boolean = root.signature is not None and root.signature.result is Type.BOOL
    twice = Node("and", (unshared(root), unshared(root))) if boolean else unshared(root)
    try:
        expected = SYNTAXES[syntax].print(canonicalize(twice))
    except UnsupportedOperation:
        assume(False)
    assert SYNTAXES[syntax].print(twice) == expected


@pytest.mark.parametrize("syntax", [*ASP_SYNTAXES, "gqa-str"])
@given(root=programs())
def test_fmt_is_idempotent(syntax: str, root: Node) -> None:
    try:
        once = qlang.format(SYNTAXES[syntax].print(root), syntax)
    except UnsupportedOperation:
        assume(False)
    assert qlang.format(once, syntax) == once


def test_a_word_asp_cannot_spell_is_an_error_not_a_crash() -> None:
    with pytest.raises(UnsupportedOperation, match="NUL"):
        qlang.convert('exist(select(scene(), "a\x00b"))', "flat")


@given(st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",))))
def test_any_word_survives_asp_quoting(word: str) -> None:
    assert from_term(to_term(word)) == word
    root = Node("exist", (Node("select", (Node("scene"), Lit(word))),))
    assert qlang.parse(qlang.SYNTAXES["nested"].print(root), "nested") == root


MARKER = "zzqx"


def _inject(root: Node, data: st.DataObject) -> tuple[Node, bool]:
    """Replace one argument of one node by the marker word: a wrong word, or a word where an
    operation must be (never in free text, which any word is).  Also says which of the two it was."""
    def wrong(node: Node) -> list[int]:
        return [i for i in range(len(node.args)) if SIGNATURES[node.op].kind(i) is not Kind.TEXT]

    target = data.draw(st.sampled_from([n for n in postorder(root) if wrong(n)]))
    position = data.draw(st.sampled_from(wrong(target)))
    args = list(target.args)
    args[position] = Lit(MARKER)

    def rebuild(node: Node) -> Node:
        if node == target:
            return Node(node.op, tuple(args))
        return Node(node.op, tuple(rebuild(a) if isinstance(a, Node) else a for a in node.args))

    return rebuild(root), position < len(SIGNATURES[target.op].operands)


@pytest.mark.parametrize("syntax", ASP_SYNTAXES)
@given(root=programs(), data=st.data())
def test_injected_errors_are_reported_where_they_are(syntax: str, root: Node,
                                                    data: st.DataObject) -> None:
    broken, in_operand_position = _inject(root, data)
    text = SYNTAXES[syntax].print(broken)
    offset = text.find(MARKER)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    error: type[qlang.QlangError] = qlang.CheckError
    if syntax == "code" and in_operand_position:
        error = qlang.ParseError  # in code-like, a name in operand position names a variable
    with pytest.raises(error) as caught:
        qlang.check(qlang.parse(text, syntax))
    located = [(d.span.line, d.span.column) for d in caught.value.diagnostics if d.span]
    assert (line, column) in located, (text, caught.value.diagnostics)


def test_gqa_printer_inverts_the_reader_on_the_thesis_example() -> None:
    text = ("select: truck->relate: tire,of,s [0]->verify color: black [1]->verify shape: round [1]"
            "->and: [2, 3]")
    assert gqa.print_semantic_str(qlang.parse(text)) == text


def _shuffled(root: Node, flips: st.DataObject) -> Node:
    """`root` with the operands of symmetric operations and a choice's alternatives swapped at
    random: the order the operation table says means nothing."""
    rebuilt: dict[Node, Node] = {}
    for node in postorder(root):
        args = [rebuilt[a] if isinstance(a, Node) else a for a in node.args]
        sig = SIGNATURES[node.op]
        if sig.symmetric and flips.draw(st.booleans()):
            args[0], args[1] = args[1], args[0]
        if sig.alternatives and flips.draw(st.booleans()):
            i, j = (len(sig.operands) + k for k in sig.alternatives)
            args[i], args[j] = args[j], args[i]
        rebuilt[node] = Node(node.op, tuple(args))
    return rebuilt[root]


@given(root=programs(), flips=st.data())
def test_meaningless_order_is_normalised_away(root: Node, flips: st.DataObject) -> None:
    shuffled = _shuffled(root, flips)
    assert equivalent(root, shuffled)
    assert normalize(normalize(root)) == normalize(root)
    assert qlang.check(normalize(root)) == []
    for syntax in ASP_SYNTAXES:  # the normal form prints and reads back as itself
        assert normalize(qlang.parse(SYNTAXES[syntax].print(normalize(shuffled)), syntax)) == normalize(root)
