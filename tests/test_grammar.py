"""The decoding grammars accept every real program and refuse ill-typed or unknown ones.

Each grammar is tried twice: its Lark form with Lark (Earley), and its GBNF form through
llama.cpp's own grammar engine, token by token with SmolLM2's vocabulary
(`tests.grammar_check`), exactly as constrained decoding would feed it.  Programs are
the canonical prints of the dev set's 1,733 gold programs; mutants change one thing the checker
refuses: a colour position given a material, a literal dropped, a set where one object is
needed, a class nobody knows.  Flat step numbers and code-like variable names are numbered by
the grammar itself: references only go back, and ``end`` names the last step.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest
from hypothesis import HealthCheck, assume, given, settings
from lark import Lark
from lark.exceptions import UnexpectedInput

import qlang
from qlang.asp_names import to_term
from qlang.ir import Lit, Node, postorder
from qlang.ontology import load
from qlang.signatures import Kind, Type
from qlang.syntax import SYNTAXES, gqa
from qlang.translate.grammar import (
    FORMATS,
    GRAMMAR_SYNTAXES,
    MAX_DEPTH,
    MAX_STEPS,
    MAX_VARIABLES,
    Group,
    Repeat,
    Text,
    generate,
    model,
    trie,
)
from tests.conftest import all_questions, questions
from tests.strategies import programs

llama_cpp = pytest.importorskip("llama_cpp")
from tests.grammar_check import GrammarChecker  # noqa: E402  (needs llama_cpp)

_ONTOLOGY = load()
#: A material that no colour position admits.
MATERIAL = min(_ONTOLOGY.categories["material"] - _ONTOLOGY.admissible["color"])
UNKNOWN = "flurble"
MUTANTS_PER_KIND = 25


@cache
def gold() -> list[Node]:
    return [qlang.canonicalize(gqa.to_ir(gqa.steps_from_json(q["semantic"])))
            for q in questions("testdev_ood_head.json").values()]


@cache
def lark(syntax: str, vocabulary: bool = True) -> Lark:
    return Lark(generate(syntax, "lark", vocabulary), parser="earley")


@cache
def gbnf(syntax: str, vocabulary: bool = True, factor: bool = True) -> GrammarChecker:
    return GrammarChecker(generate(syntax, "gbnf", vocabulary, factor=factor))


def lark_accepts(syntax: str, text: str, vocabulary: bool = True) -> bool:
    try:
        lark(syntax, vocabulary).parse(text)
    except UnexpectedInput:
        return False
    return True


# --- mutants: one node changed, found on the gold programs ---------------------------------------

def _substitute(node: Node, old: Node, new: Node) -> Node:
    if node == old:
        return new
    args = tuple(_substitute(a, old, new) if isinstance(a, Node) else a for a in node.args)
    return Node(node.op, args)


def _colour_as_material(node: Node) -> Node | None:
    attr_value = (Lit("color"), Lit(MATERIAL))
    if node.op in ("filter", "verify_attr") and node.args[-2] == Lit("color"):
        return Node(node.op, (*node.args[:-2], *attr_value))
    return None


def _literal_dropped(node: Node) -> Node | None:
    return Node(node.op, node.args[:-1]) if node.literals else None


def _set_for_object(node: Node) -> Node | None:
    sig = node.signature
    assert sig is not None
    for index, (expected, arg) in enumerate(zip(sig.operands, node.args, strict=False)):
        if expected is Type.OBJECT and isinstance(arg, Node) and arg.op == "unique":
            return Node(node.op, (*node.args[:index], arg.args[0], *node.args[index + 1:]))
    return None


def _unknown_class(node: Node) -> Node | None:
    sig = node.signature
    assert sig is not None
    if Kind.CLASS not in sig.literals:
        return None
    position = len(sig.operands) + sig.literals.index(Kind.CLASS)
    return Node(node.op, (*node.args[:position], Lit(UNKNOWN), *node.args[position + 1:]))


MUTATIONS: dict[str, Callable[[Node], Node | None]] = {
    "colour as material": _colour_as_material,
    "literal dropped": _literal_dropped,
    "set for object": _set_for_object,
    "unknown class": _unknown_class,
}


@cache
def mutants(kind: str) -> list[Node]:
    """The first gold programs the mutation applies to, mutated at its first site."""
    found = []
    for root in gold():
        site = next(((n, m) for n in postorder(root) if (m := MUTATIONS[kind](n)) is not None), None)
        if site is not None:
            found.append(_substitute(root, *site))
        if len(found) == MUTANTS_PER_KIND:
            return found
    raise AssertionError(f"only {len(found)} gold programs to mutate for {kind!r}")


def refusable(syntax: str, kind: str) -> list[str]:
    """The mutants' prints a context-free grammar can refuse.

    An operand's type is beyond one when it is a flat step number or a code-like variable:
    which step or variable holds what is context (see `qlang.translate.grammar`).
    """
    texts = [SYNTAXES[syntax].print(m) for m in mutants(kind)]
    if kind != "set for object":
        return texts
    return [t for t in texts if syntax == "nested" or (syntax == "code" and "var" not in t)]


# --- the tests ---------------------------------------------------------------------------------

@pytest.mark.parametrize("syntax", GRAMMAR_SYNTAXES)
def test_lark_form_accepts_every_gold_program(syntax: str) -> None:
    refused = [t for t in (SYNTAXES[syntax].print(r) for r in gold()) if not lark_accepts(syntax, t)]
    assert not refused, refused[:3]


@pytest.mark.parametrize("syntax", GRAMMAR_SYNTAXES)
def test_gbnf_form_accepts_every_gold_program_in_llama_cpp(syntax: str) -> None:
    checker = gbnf(syntax)
    refused = [(t, why) for t in (SYNTAXES[syntax].print(r) for r in gold())
               if (why := checker.rejection(t)) is not None]
    assert not refused, refused[:3]


@pytest.mark.parametrize("kind", MUTATIONS)
@pytest.mark.parametrize("syntax", GRAMMAR_SYNTAXES)
def test_both_forms_refuse_mutants(syntax: str, kind: str) -> None:
    for mutant in mutants(kind):
        with pytest.raises(qlang.CheckError):  # a mutant must be a wrong program
            qlang.check(mutant)
    texts = refusable(syntax, kind)
    if syntax == "flat" and kind == "set for object":
        assert not texts
        pytest.skip("flat operands are untyped step numbers")
    assert len(texts) >= 10
    for text in texts:
        assert not lark_accepts(syntax, text), text
        assert gbnf(syntax).rejection(text) is not None, text


def test_colour_position_admits_colours_only() -> None:
    """`choose_attr` narrows both values; a material in the second one is refused too."""
    base = "choose_attr(unique(select(scene(), car)), color, red, {})"
    for text, ok in [(base.format("blue"), True), (base.format(to_term(MATERIAL)), False)]:
        assert lark_accepts("nested", text) is ok
        assert gbnf("nested").accepts(text) is ok


@pytest.mark.parametrize("syntax", GRAMMAR_SYNTAXES)
def test_vocabulary_free_grammars_keep_syntax_and_types_only(syntax: str) -> None:
    for root in gold()[:200]:
        text = SYNTAXES[syntax].print(root)
        assert lark_accepts(syntax, text, vocabulary=False)
        assert gbnf(syntax, vocabulary=False).accepts(text)
    for mutant in mutants("unknown class"):
        assert gbnf(syntax, vocabulary=False).accepts(SYNTAXES[syntax].print(mutant))
    quoted = SYNTAXES[syntax].print(Node("exist", (Node("select", (Node("scene", ()), Lit("odd-one"))),)))
    assert '"odd-one"' in quoted and lark_accepts(syntax, quoted, vocabulary=False)
    assert gbnf(syntax, vocabulary=False).accepts(quoted)
    for text in refusable(syntax, "literal dropped") + refusable(syntax, "set for object"):
        assert not gbnf(syntax, vocabulary=False).accepts(text)


@pytest.mark.parametrize("syntax", GRAMMAR_SYNTAXES)
def test_unfactored_gbnf_accepts_the_same_programs(syntax: str) -> None:
    """Plain word alternations (the benchmark's baseline) describe the same language."""
    plain = gbnf(syntax, factor=False)
    for root in gold()[:100]:
        assert plain.accepts(SYNTAXES[syntax].print(root))
    for mutant in mutants("colour as material")[:5]:
        assert not plain.accepts(SYNTAXES[syntax].print(mutant))


@pytest.mark.parametrize("syntax", GRAMMAR_SYNTAXES)
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(root=programs())
def test_random_well_typed_programs_are_accepted(syntax: str, root: Node) -> None:
    assume(not _nests_connectives(root))  # the restrictions beyond types and depth
    text = SYNTAXES[syntax].print(root)
    assume(_numbered(syntax, text) <= {"flat": MAX_STEPS, "code": MAX_VARIABLES}.get(syntax, 0))
    assert lark_accepts(syntax, text), text
    assert gbnf(syntax).rejection(text) is None, text


def _depth(node: Node) -> int:
    """Operations nested, as the nested syntax writes them: `scene()` is 1."""
    return 1 + max((_depth(a) for a in node.args if isinstance(a, Node)), default=0)


def _filters(depth: int) -> Node:
    """``exist(filter(...(select(scene(), car))...))``, `depth` operations deep."""
    node = Node("select", (Node("scene", ()), Lit("car")))
    for _ in range(depth - 3):
        node = Node("filter", (node, Lit("color"), Lit("red")))
    return Node("exist", (node,))


@pytest.mark.parametrize("syntax", ["nested", "code"])
def test_nesting_is_bounded_above_the_deepest_real_program(syntax: str) -> None:
    """Every real program fits (the deepest nests 7), the bound fits, one level more does not."""
    roots = [gqa.to_ir(gqa.steps_from_json(q["semantic"])) for q in all_questions().values()]
    deepest = max(roots, key=_depth)
    assert _depth(deepest) == 7 < MAX_DEPTH < 20
    for root, ok in [(deepest, True), (_filters(MAX_DEPTH), True), (_filters(MAX_DEPTH + 1), False)]:
        text = SYNTAXES[syntax].print(qlang.canonicalize(root))
        assert lark_accepts(syntax, text) is ok, text
        assert gbnf(syntax).accepts(text) is ok, text


def _nests_connectives(root: Node) -> bool:
    return any(n.op in ("and", "or") and any(o.op in ("and", "or") for o in n.operands)
               for n in postorder(root))


@pytest.mark.parametrize("syntax", ["nested", "code"])
def test_connectives_never_nest(syntax: str) -> None:
    """No real program nests `and`/`or`; a model that may loops ``and(and(and(...``."""
    roots = [gqa.to_ir(gqa.steps_from_json(q["semantic"])) for q in all_questions().values()]
    assert not any(map(_nests_connectives, roots))
    cat = qlang.parse("exist(select(scene(), cat))")
    for text, ok in [("and(exist(select(scene(), cat)), exist(select(scene(), dog)))", True),
                     (f"or(and({cat}, {cat}), {cat})", False), (f"and({cat}, or({cat}, {cat}))", False)]:
        printed = SYNTAXES[syntax].print(qlang.canonicalize(qlang.parse(text)))
        assert lark_accepts(syntax, printed) is ok, printed
        assert gbnf(syntax).accepts(printed) is ok, printed


def _numbered(syntax: str, text: str) -> int:
    """Flat facts (``end`` not counted) or code-like assignments in a printed program."""
    lines = text.splitlines()
    return {"flat": len(lines) - 1, "code": sum(" = " in line for line in lines)}.get(syntax, 0)


@pytest.mark.parametrize("syntax", ["flat", "code"])
def test_every_real_program_is_numbered_within_the_bound(syntax: str) -> None:
    """All 3,091 real programs, as converted (not canonicalized), pass the numbered grammar."""
    texts = [SYNTAXES[syntax].print(gqa.to_ir(gqa.steps_from_json(q["semantic"])))
             for q in all_questions().values()]
    assert max(_numbered(syntax, t) for t in texts) == {"flat": 8, "code": 2}[syntax]
    refused = [t for t in texts if not lark_accepts(syntax, t)]
    assert not refused, refused[:3]


def _chain(facts: int) -> str:
    """A flat program of `facts` steps, each referring to the one before."""
    lines = ["scene(0).", *(f"filter({i}, {i - 1}, color, red)." for i in range(1, facts - 1))]
    return "\n".join([*lines, f"exist({facts - 1}, {facts - 2}).", f"end({facts - 1})."])


def _assignments(count: int) -> str:
    """A code-like program of `count` assignments, each using the one before."""
    lines = ["var1 = select(scene(), car)",
             *(f"var{k} = filter(var{k - 1}, color, red)" for k in range(2, count + 1))]
    return "\n".join([*lines, f"exist(var{count})"])


@pytest.mark.parametrize(("syntax", "program", "bound"),
                         [("flat", _chain, MAX_STEPS), ("code", _assignments, MAX_VARIABLES)])
def test_numbering_is_bounded_above_the_longest_real_program(
        syntax: str, program: Callable[[int], str], bound: int) -> None:
    qlang.check(qlang.parse(program(bound), syntax))  # a well-typed program
    for text, ok in [(program(bound), True), (program(bound + 1), False)]:
        assert lark_accepts(syntax, text) is ok, text
        assert gbnf(syntax).accepts(text) is ok, text


FLAT = "scene(0).\nselect(1, 0, car).\nfilter(2, 1, color, red).\nexist(3, 2).\nend(3)."
CODE = ("var1 = filter(select(scene(), car), color, red)\n"
        "and(exist(var1), exist(relate(var1, dog, near, subject)))")
#: (base, replaced, replacement): each a program the printer never writes
MISNUMBERED = {
    "flat forward reference": (FLAT, "select(1, 0,", "select(1, 2,"),
    "flat self reference": (FLAT, "filter(2, 1,", "filter(2, 2,"),
    "flat skipped step": (FLAT, "exist(3, 2).\nend(3)", "exist(4, 2).\nend(4)"),
    "flat repeated step": (FLAT, "exist(3, 2).\nend(3)", "exist(2, 1).\nend(2)"),
    "flat first step not 0": (FLAT, "scene(0).\nselect(1, 0,", "scene(1).\nselect(2, 1,"),
    "flat end before the last step": (FLAT, "end(3)", "end(2)"),
    "flat end after the last step": (FLAT, "end(3)", "end(4)"),
    "code variable used before it is defined":
        (CODE, "var1 = filter(select(scene(), car)", "var1 = filter(var1"),
    "code undefined variable": (CODE, "exist(var1), exist", "exist(var2), exist"),
    "code first variable not var1": (CODE, "var1", "var2"),
    "code skipped variable":
        (CODE, "var1 = filter", "var1 = select(scene(), dog)\nvar3 = filter"),
}


@pytest.mark.parametrize("case", MISNUMBERED)
def test_both_forms_refuse_misnumbered_programs(case: str) -> None:
    base, old, new = MISNUMBERED[case]
    syntax = case.split()[0]
    text = base.replace(old, new)
    assert text != base
    assert lark_accepts(syntax, base) and gbnf(syntax).accepts(base)
    assert not lark_accepts(syntax, text), text
    assert gbnf(syntax).rejection(text) is not None, text


def test_prefixes_are_incomplete() -> None:
    """A grammar accepts whole programs: llama.cpp refuses to stop after a prefix."""
    text = SYNTAXES["flat"].print(gold()[0])
    assert gbnf("flat").rejection(text.rsplit("\n", 1)[0]) is not None
    assert not lark_accepts("flat", text.rsplit("\n", 1)[0])


def test_trie_branches_once_per_character() -> None:
    assert trie(["red", "rest", "blue", "black", "black_and_white"]) == (
        (Text("bl"), Group(((Text("ack"), Repeat(Text("_and_white"), 0, 1)), (Text("ue"),)))),
        (Text("re"), Group(((Text("d"),), (Text("st"),)))),
    )


def test_every_format_and_syntax_generates() -> None:
    for syntax in GRAMMAR_SYNTAXES:
        assert model(syntax)["root"].name == "root"
        for format_ in FORMATS:
            assert generate(syntax, format_).strip()
    with pytest.raises(ValueError, match="no decoding grammar"):
        generate("gqa", "gbnf")


def test_llama_cpp_refuses_a_broken_grammar() -> None:
    with pytest.raises(qlang.QlangError):
        GrammarChecker("root ::= undefined-rule")


@pytest.mark.parametrize("vocabulary", [True, False])
@pytest.mark.parametrize("syntax", GRAMMAR_SYNTAXES)
def test_llguidance_compiles_the_lark_form(syntax: str, vocabulary: bool) -> None:
    llguidance = pytest.importorskip("llguidance")
    grammar = llguidance.LLMatcher.grammar_from_lark(generate(syntax, "lark", vocabulary))
    assert llguidance.LLMatcher.validate_grammar_with_warnings(grammar) == (False, [])


def test_masking_is_timed_once_per_token() -> None:
    text = SYNTAXES["nested"].print(gold()[0])
    checker = gbnf("nested")
    assert len(checker.mask_seconds(text)) == len(checker.tokens(text))
