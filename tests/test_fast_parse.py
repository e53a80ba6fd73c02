"""Differential test: the fast parser (lark_cython, no propagated positions) and Lark's plain
pure-Python parser, built from the same grammar, read every text the same.

For every Lark-based syntax, on hypothesis-generated programs printed in it, on those programs
mutated, on token soup and on all real GQA programs, three readings are compared:

* the reference (`Grammar.parse_reference`): Lark's own parser, as qlang always parsed;
* the fast parser alone (`Grammar.parse_fast`: the recursive descent of `descent` for nested,
  code and flat, lark_cython for gqa-str), and lark_cython for every grammar: each must accept
  exactly what the reference accepts, and build the same result, every node's and literal's
  span included;
* what qlang uses (`Grammar.parse`): the same result, or the same error (type, kind, message,
  span, rendering), as the reference.

End to end, `qlang.parse` + `qlang.check` must give the same IR, warnings and errors with the
fast path as with the reference alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

import qlang
from qlang.errors import QlangError, Source, Span
from qlang.ir import MAX_DEPTH, Lit, Node
from qlang.syntax import SYNTAXES, code, flat, gqa, nested, parsing
from qlang.syntax.parsing import Grammar
from tests.conftest import all_questions
from tests.strategies import MUTATION_ALPHABET, mutated, programs

#: Each Lark reading: syntax name (for printing), grammar and builder.
READERS: dict[str, tuple[str, Grammar]] = {
    "nested": ("nested", nested.GRAMMAR),
    "flat": ("flat", flat.GRAMMAR),
    "flat-as-written": ("flat", flat._AS_WRITTEN),
    "code": ("code", code.GRAMMAR),
    "gqa-str": ("gqa-str", gqa.GRAMMAR),
}


def located(value: Any) -> Any:
    """A parse result with every span made part of it (IR equality ignores spans)."""
    if isinstance(value, Node):
        return ("node", value.op, value.span, tuple(located(a) for a in value.args))
    if isinstance(value, Lit):
        return ("lit", value.value, value.span)
    if isinstance(value, list):
        return [located(v) for v in value]
    return value  # gqa Steps (their span compares) and flat Facts (no span)


def outcome(read: Callable[[], Any]) -> tuple[Any, ...]:
    try:
        return ("ok", located(read()))
    except QlangError as exc:
        return ("error", type(exc).__name__, exc.diagnostics, exc.render())


def assert_same_reading(reader: str, text: str) -> None:
    _, grammar = READERS[reader]
    source = Source(text, "<test>")
    reference = outcome(lambda: grammar.parse_reference(source))
    assert outcome(lambda: grammar.parse(source)) == reference
    for fast_parse in (Grammar.parse_fast, _cython):
        try:
            fast = ("ok", located(fast_parse(grammar, source)))
        except Exception:  # the fast parser refuses; how does not matter, the reference says
            fast = ("refused",)
        if reference[0] == "ok":
            assert fast == reference
        else:
            assert fast == ("refused",), f"{fast_parse.__name__} accepts what the reference refuses"


def _cython(grammar: Grammar, source: Source) -> Any:
    """lark_cython's LALR loop over the grammar's tables (the fast path of gqa-str)."""
    parsing._check_nesting(source)
    return parsing.cython_parse(grammar)(source.text)


def printed(root: Node, reader: str) -> str | None:
    try:
        return SYNTAXES[READERS[reader][0]].print(root)
    except QlangError:  # GQA cannot say every program
        return None




def test_the_fast_parser_is_compiled() -> None:
    assert parsing.PLUGINS, "lark_cython is a dependency: without it the fast path is pure Python"
    assert type(parsing.fast_parser(gqa.GRAMMAR).parser.parser).__module__.startswith(
        "lark_cython")


@settings(max_examples=300, deadline=None)
@given(programs(), st.sampled_from(sorted(READERS)))
def test_generated_programs_read_the_same(root: Node, reader: str) -> None:
    text = printed(root, reader)
    if text is not None:
        assert_same_reading(reader, text)


@settings(max_examples=1500, deadline=None)
@given(st.data(), programs(), st.sampled_from(sorted(READERS)))
def test_mutated_programs_read_the_same(data: st.DataObject, root: Node, reader: str) -> None:
    text = printed(root, reader)
    if text is not None:
        assert_same_reading(reader, data.draw(mutated(text)))


_REAL = [q["semanticStr"] for q in all_questions().values()]


@settings(max_examples=600, deadline=None)
@given(st.data(), st.sampled_from(_REAL[:200]), st.sampled_from(sorted(READERS)))
def test_mutated_real_programs_read_the_same(data: st.DataObject, real: str, reader: str) -> None:
    text = real if reader == "gqa-str" else qlang.convert(real, READERS[reader][0])
    assert_same_reading(reader, data.draw(mutated(text)))


@settings(max_examples=400, deadline=None)
@given(st.text(MUTATION_ALPHABET, max_size=120) | st.text(max_size=60), st.sampled_from(sorted(READERS)))
def test_token_soup_reads_the_same(text: str, reader: str) -> None:
    assert_same_reading(reader, text)


def test_every_real_program_reads_the_same_in_every_syntax() -> None:
    for real in _REAL:
        root = qlang.parse(real, "gqa-str")
        for reader in READERS:
            text = printed(root, reader)
            assert text is not None
            assert_same_reading(reader, text)


def test_nesting_and_positions_at_the_edges() -> None:
    deep = "exist(" * (MAX_DEPTH + 5) + "scene()" + ")" * (MAX_DEPTH + 5)
    for text in (deep, f'exist(select(scene(), "{"(" * 300}"))', "exist(\n  select(scene(),\n cat))",
                 "\n\n  exist(select(scene(), cat)) % a comment\n", "exist(select(scene(), café))",
                 "exist(select(scene(), \"a\\\"b\"))", "", "   ", "x" * 10_000):
        for reader in READERS:
            assert_same_reading(reader, text)
    assert qlang.parse("\n  exist(select(scene(), cat))").args[0].span == Span(2, 9, 2, 29)


# ----- end to end: parse + check, fast path vs the reference alone -------------------------------

@contextmanager
def reference_only() -> Iterator[None]:
    with mock.patch.object(Grammar, "parse", Grammar.parse_reference):
        yield


def compiled(text: str, syntax: str | None) -> tuple[Any, ...]:
    try:
        root = qlang.parse(text, syntax, name="<test>")
        return ("ok", located(root), qlang.check(root, open_vocabulary=True))
    except QlangError as exc:
        return ("error", type(exc).__name__, exc.diagnostics, exc.render())


@settings(max_examples=400, deadline=None)
@given(st.data(), programs(), st.sampled_from(["nested", "flat", "code", "gqa-str"]), st.booleans())
def test_parse_and_check_agree_end_to_end(data: st.DataObject, root: Node, syntax: str,
                                          guess: bool) -> None:
    text = printed(root, syntax)
    if text is None:
        return
    if data.draw(st.booleans()):
        text = data.draw(mutated(text))
    fast = compiled(text, None if guess else syntax)
    with reference_only():
        assert compiled(text, None if guess else syntax) == fast
