"""The text operations in the language: match, extract and read in the operation table, their
free-text literal (quoted in every call-shaped syntax, escaped, bounded, never ASP of its own),
refused by GQA's syntaxes at the operation, in the decoding grammars, the small parser's
automaton and the editor's hover."""

from __future__ import annotations

import clingo
import pytest
from hypothesis import given, settings

from qlang import api
from qlang.asp_names import to_literal
from qlang.errors import CheckError, Source, UnsupportedOperation
from qlang.ir import Lit, Node, op
from qlang.passes.lower import facts
from qlang.signatures import CLOSED_KINDS, MAX_TEXT, SIGNATURES, Kind
from qlang.small.automaton import Automaton
from qlang.small.tokens import QUESTION, Vocabularies, prefix, source_vocabulary, target_vocabulary
from qlang.syntax import SYNTAXES
from tests.strategies import texts

CALL_SHAPED = ("flat", "nested", "code")
CUPS = op("select", op("scene"), "cup")


def programs_with(text: str) -> list[Node]:
    """A program of each text operation taking `text`."""
    return [Node("extract", (CUPS, Lit(text))),
            op("query", op("unique", Node("match", (CUPS, Lit(text), Lit("3")))), "name"),
            op("read", op("unique", CUPS))]


@settings(max_examples=200, deadline=None)
@given(text=texts())
def test_free_text_round_trips_in_every_call_shaped_syntax(text: str) -> None:
    for program in programs_with(text):
        for syntax in CALL_SHAPED:
            printed = SYNTAXES[syntax].print(program)
            assert api.compile(printed, syntax) == program, printed


@settings(max_examples=200, deadline=None)
@given(text=texts())
def test_free_text_injects_nothing_into_asp(text: str) -> None:
    """Lowered, a program is exactly its facts: the text one string argument, whatever it holds."""
    program = programs_with(text)[1]
    lowered = facts(program)
    ctl = clingo.Control(logger=lambda code, message: None)
    ctl.add("base", [], "\n".join(str(f) for f in lowered))
    ctl.ground([("base", [])])
    atoms = [a.symbol for a in ctl.symbolic_atoms]
    assert len(atoms) == len(lowered)
    (matched,) = [a for a in atoms if a.name == "match"]
    assert matched.arguments[2] == clingo.String(text)


def test_free_text_is_quoted_even_when_one_word_and_read_back_bare_too() -> None:
    program = Node("extract", (CUPS, Lit("handle")))
    assert SYNTAXES["nested"].print(program) == 'extract(select(scene(), cup), "handle")'
    assert api.compile("extract(select(scene(), cup), handle)") == program
    assert to_literal("a b", Kind.TEXT) == '"a b"' and to_literal("a b", Kind.CLASS) == "a_b"


@pytest.mark.parametrize(("text", "message"), [
    ('""', "must be non-empty text of printable characters"),
    ('"   "', "must be non-empty text of printable characters"),
    ('"a\\nb"', "must be non-empty text of printable characters (no line breaks)"),
    ('"' + "x" * (MAX_TEXT + 1) + '"', f"must be text of at most {MAX_TEXT} characters, not 201"),
])
def test_bad_free_text_is_a_located_error(text: str, message: str) -> None:
    with pytest.raises(CheckError) as caught:
        api.compile(f"extract(select(scene(), cup), {text})")
    (diagnostic,) = caught.value.diagnostics
    assert message in diagnostic.message
    assert diagnostic.span is not None and (diagnostic.span.line, diagnostic.span.column) == (1, 31)


def test_a_count_is_one_of_the_closed_numbers() -> None:
    assert CLOSED_KINDS[Kind.COUNT] == tuple(str(k) for k in range(1, 21))
    assert api.compile('exist(match(select(scene(), cup), "handle", "20"))').op == "exist"
    with pytest.raises(CheckError, match=r"argument 3 of match must be one of 1, 2, .*, not '0'"):
        api.compile('exist(match(select(scene(), cup), "handle", "0"))')


def test_the_text_operations_are_typed_as_the_table_says() -> None:
    assert [SIGNATURES[name].documents for name in ("match", "extract", "read", "know")] == \
        [True, True, True, False]
    with pytest.raises(CheckError, match="argument 1 of read must yield Object, but select yields Objects"):
        api.compile("read(select(scene(), sign))")
    with pytest.raises(CheckError, match="the program must end in an answer"):
        api.compile('match(select(scene(), sign), "stop", "1")')


@pytest.mark.parametrize("syntax", ["gqa", "gqa-str"])
def test_gqa_refuses_them_at_the_operation(syntax: str) -> None:
    source = "extract(select(scene(), cup), \"What is it for?\")"
    program = SYNTAXES["nested"].parse(Source(source))
    with pytest.raises(UnsupportedOperation) as caught:
        SYNTAXES[syntax].print(program)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message == "GQA cannot express extract: GQA has no such operation"
    assert diagnostic.span is not None and diagnostic.span.column == 1


def test_gqa_str_reading_a_text_operation_is_a_located_error() -> None:
    with pytest.raises(Exception) as caught:
        SYNTAXES["gqa-str"].parse(Source("select: cup (1)->read: [0]"))
    assert "read" in str(caught.value)


@pytest.mark.parametrize("syntax", ["flat", "nested", "code"])
@pytest.mark.parametrize("form", ["gbnf", "lark"])
def test_the_decoding_grammars_admit_the_text_operations(syntax: str, form: str) -> None:
    from lark import Lark

    from qlang.translate.grammar import generate

    if form == "gbnf":
        grammar = generate(syntax, "gbnf")
        assert 'text ::= "\\"" ([^\\n"\\\\] | "\\\\" ["\\\\])+ "\\""' in grammar
        return
    parser = Lark(generate(syntax, "lark"), parser="earley")
    for text in ('say "hi"\\ now', "What is the cup used for?"):
        for program in programs_with(text):
            parser.parse(SYNTAXES[syntax].print(program))


def test_the_small_parser_writes_free_text_as_the_question_or_a_word_of_it() -> None:
    question = "What is the cup used for,  according to its description?"
    vocabularies = Vocabularies(source_vocabulary([question]), target_vocabulary())
    automaton = Automaton(vocabularies.target)
    state = automaton.start()
    for token in prefix(Node("extract", (CUPS, Lit("x"))))[:-1]:
        state = automaton.advance(state, vocabularies.target.id(token))
    assert automaton.takes_question_text(state) and not automaton.takes_question_words(state)
    assert automaton.allowed(state) == [vocabularies.target.id(QUESTION)]
    said = vocabularies.said(question, ["extract(", "select(", "scene(", "cup", QUESTION])
    assert said[-1] == "What is the cup used for, according to its description?"
    ids = vocabularies.program_ids(question, list(said))
    assert ids[-1] == vocabularies.target.id(QUESTION)
    assert QUESTION not in vocabularies.words


def test_hover_on_free_text_says_what_it_is() -> None:
    from lsprotocol import types
    from pygls.workspace import PositionCodec

    from qlang.lsp import hover
    from qlang.lsp.documents import Document
    from qlang.ontology import load

    text = 'extract(select(scene(), cup), "What is it for?")'
    document = Document("file:///tmp/q.qn", text, 1, PositionCodec())
    shown = hover.hover(document, types.Position(0, 33), load())
    assert shown is not None and isinstance(shown.contents, types.MarkupContent)
    assert "free text" in shown.contents.value and "documents" in shown.contents.value
