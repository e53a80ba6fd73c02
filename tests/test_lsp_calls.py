"""The language server's reading of texts being written (`qlang.lsp.calls`), in process: it
agrees with the parsers on every real program, and no text, however broken, makes a request
fail."""

from __future__ import annotations

from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from qlang import api
from qlang.asp_names import from_term, to_literal, to_term
from qlang.ir import Lit, Node, postorder
from qlang.lsp import completion, hover, navigation
from qlang.lsp.calls import Role, read
from qlang.lsp.documents import Document
from qlang.ontology import load
from qlang.passes.vocabulary import words
from qlang.signatures import SIGNATURES, Kind, Type
from qlang.syntax import SYNTAXES
from tests import strategies
from tests.conftest import all_questions

#: The call-shaped syntaxes and their files' extensions, as their records say.
CALL_SHAPED = {name: syntax.extension for name, syntax in SYNTAXES.items() if syntax.calls is not None}


@cache
def real_programs() -> list[Node]:
    return [api.parse(str(q["semantic"]).replace("'", '"'), "gqa") for q in all_questions().values()]


def literals(root: Node) -> set[tuple[str, int, str]]:
    """Each literal of a program: its operation, argument position and word."""
    return {(node.op, position, arg.value) for node in postorder(root)
            for position, arg in enumerate(node.args) if isinstance(arg, Lit)}


def test_the_words_read_are_the_literals_the_parser_reads_in_every_real_program() -> None:
    for root in real_programs():
        for syntax in CALL_SHAPED:
            text = SYNTAXES[syntax].print(root)
            calls = read(syntax, text)
            words = {(w.call.name.value, w.position, from_term(w.token.value))
                     for w in calls.words if w.role is Role.WORD and w.call is not None}
            assert words == literals(root), text
            defined = [w for w in calls.words if w.role is Role.DEFINITION]
            used = [w for w in calls.words if w.role is Role.REFERENCE]
            steps = {"nested": 0, "code": text.count("\n"), "flat": text.count("\n")}[syntax]
            assert len(defined) == steps == len(calls.defined), text
            assert all(w.token.value in calls.defined for w in used), text


def document(text: str, syntax: str) -> Document:
    return Document(f"file:///tmp/t{CALL_SHAPED[syntax]}", text, 1, PositionCodec())


def answer_everything(doc: Document, position: types.Position) -> None:
    completion.complete(doc, position, load())
    completion.complete(doc, position, load(), edit_range_default=True)
    hover.hover(doc, position, load())
    navigation.definition(doc, position)
    navigation.references(doc, position, True)
    navigation.symbols(doc)


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from(sorted(CALL_SHAPED)))
def test_no_text_and_no_position_makes_a_request_fail(data: st.DataObject, syntax: str) -> None:
    text = data.draw(st.one_of(
        strategies.programs(max_depth=4).map(SYNTAXES[syntax].print).flatmap(strategies.mutated),
        st.text(alphabet="(),.=\n %\"'_ab01" + "\u00e9\U0001f600", max_size=60)))
    doc = document(text, syntax)
    line = data.draw(st.integers(0, len(doc.lines)))
    answer_everything(doc, types.Position(line, data.draw(st.integers(0, 80))))


def test_every_cut_of_a_real_program_gets_answers() -> None:
    """Typing a program character by character: completion and hover at the end of each prefix
    answer, and once typing reaches a literal position its words are offered."""
    classes_offered = 0
    for root in real_programs()[:6]:
        for syntax in CALL_SHAPED:
            text = SYNTAXES[syntax].print(root)
            for cut in range(len(text) + 1):
                doc = document(text[:cut], syntax)
                end = types.Position(len(doc.lines) - 1, len(doc.lines[-1]))
                offered = completion.complete(doc, end, load())
                hover.hover(doc, end, load())
                if text[:cut].endswith("select(scene(), "):
                    assert len(offered.items) == len(load().classes)
                    classes_offered += 1
    assert classes_offered >= 6


def test_every_literal_kind_of_the_table_is_completed_with_its_words() -> None:
    """Each operation's each literal position (knowledge relations included) offers the words
    of its kind: nothing in the server names an operation or a kind."""
    for signature in SIGNATURES.values():
        operands = ", ".join(["scene()" if t is not Type.OBJECT else "unique(scene())"
                              for t in signature.operands])
        for index, kind in enumerate(signature.literals):
            if kind is Kind.VALUE and Kind.ATTR in signature.literals[:index]:
                continue  # narrowed by the category before it (tested over the protocol)
            text = f"{signature.name}({operands}, " + "".join(  # free text lists no words: any will do
                f"{to_literal(min(words(k), default='some text'), k)}, " for k in signature.literals[:index])
            doc = document(text, "nested")
            offered = completion.complete(doc, types.Position(0, len(text)), load())
            assert {i.label for i in offered.items} == {to_term(w) for w in words(kind)}, text
