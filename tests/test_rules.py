"""The rules language: rules files read, checked with located errors, lowered
into clingo structures beside the theory, and held to a Python evaluator's meaning on generated
rules and scenes and on the real emma scenes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import clingo
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

import qlang
from qlang.asp import facts, theory
from qlang.asp.query import read as read_question
from qlang.asp.scene import encode
from qlang.asp_names import from_term, relation_symbol, to_symbol
from qlang.errors import CheckError, ParseError, Source, Span
from qlang.interpret.rules import Facts, derive
from qlang.ontology import load
from qlang.passes import lower as lower_program
from qlang.passes.typecheck import check as check_program
from qlang.rules import Rules, read
from qlang.rules.language import Atom, Different, Literal, Rule, Var, Word, show
from qlang.rules.statements import add, lower
from qlang.rules.syntax import GRAMMAR, parse
from tests.conftest import graphs
from tests.rule_strategies import knowledge, rules_files
from tests.strategies import mutated, scene_graphs

EXAMPLE = Path(__file__).parent.parent / "examples" / "athlete.rules"
#: A question that answers on any scene and chooses nothing: the model is the scene's closure.
EXIST = "scene(0). exist(1, 0). end(1)."


def rules(text: str, name: str = "r.rules") -> Rules:
    return read(Source(text, name))


def scene_facts(text: str, known: frozenset[tuple[str, str, str]] = frozenset()) -> Facts:
    """The facts of a scene encoded as ASP (objects by id, words as words)."""
    return as_facts(((name, args) for name, args, _ in facts.read(text, facts.SCENE)), known)


def as_facts(atoms: Iterable[tuple[str, Sequence[str]]],
             known: frozenset[tuple[str, str, str]] = frozenset()) -> Facts:
    """The ``has_attr`` and ``has_rel`` atoms among (predicate, terms as written), as words."""
    found: dict[str, set[tuple[str, str, str]]] = {"has_attr": set(), "has_rel": set()}
    for name, terms in atoms:
        if name in found:
            first, second, third = (from_term(t) for t in terms)
            found[name].add((first, second, third))
    return Facts(frozenset(found["has_attr"]), frozenset(found["has_rel"]), known)


def solved(checked: Rules, scene: str, question: str = EXIST,
           known: frozenset[tuple[str, str, str]] = frozenset()) -> list[list[clingo.Symbol]]:
    """The optimal models of the theory, the scene, the knowledge's facts and the lowered rules:
    what `solve` will ground once it takes rules (see qlang.rules.statements)."""
    ctl = clingo.Control(["--opt-mode=optN", "--models=0"], logger=lambda code, message: None)
    ctl.add("base", [], theory.cut({f.name for f in read_question(question)}, scene))
    ctl.add("base", [], scene)
    ctl.add("base", [], question)
    add(ctl, lower(checked))
    with ctl.backend() as backend:  # the knowledge as `solve` gives it: symbols, one spelling
        for h, r, t in known:
            edge = clingo.Function("knowledge", [to_symbol(h), relation_symbol(r), to_symbol(t)])
            backend.add_rule([backend.add_atom(edge)])
    ctl.ground([("base", [])])
    models: list[list[clingo.Symbol]] = []
    ctl.solve(on_model=lambda m: models.append(list(m.symbols(atoms=True)))
              if m.optimality_proven or not m.cost else None)
    return models


def scene_of(model: list[clingo.Symbol]) -> Facts:
    """The scene facts of a model: the scene's and every derived one."""
    return as_facts((atom.name, [str(t) for t in atom.arguments]) for atom in model)


def scene_part(facts: Facts) -> tuple[frozenset[tuple[str, str, str]], ...]:
    return facts.attrs, facts.rels


# --- reading --------------------------------------------------------------------------------

def test_a_rule_reads_as_written() -> None:
    parsed = parse(Source('attr(X, temperature, hot) :- class(X, cup), rel(X, on, Y), '
                          'class(Y, "stove"), not attr(X, color, white), X != Y.'))
    x, y = Var("X"), Var("Y")
    assert parsed.rules == (Rule(Atom("attr", (x, Word("temperature"), Word("hot"))), (
        Literal(Atom("class", (x, Word("cup")))),
        Literal(Atom("rel", (x, Word("on"), y))),
        Literal(Atom("class", (y, Word("stove")))),
        Literal(Atom("attr", (x, Word("color"), Word("white"))), negated=True),
        Different(x, y))),)
    assert parse(Source("rel r, to_the_left_of. # a comment\nattr t: hot.")).declarations[0].words \
        == (Word("r"), Word("to the left of"))


@pytest.mark.parametrize(("text", "message"), [
    ("class(X, cup) :- class(X, mug)\nclass(X, a) :- class(X, b).",
     "r.rules:2:1: error: unexpected 'class'; expected ',', '.', ':-'\n"
     "  class(X, a) :- class(X, b).\n"
     "  ^"),
    ("class(X, cup).",
     "r.rules:1:14: error: unexpected '.'; expected ':-'\n"
     "  class(X, cup).\n"
     "               ^"),
    ("class(X, cup) :- class(x y).",
     "r.rules:1:26: error: unexpected 'y'; expected ')', ',', '.', ':'\n"
     "  class(X, cup) :- class(x y).\n"
     "                           ^"),
])
def test_a_syntax_error_is_located(text: str, message: str) -> None:
    with pytest.raises(ParseError) as caught:
        rules(text)
    assert str(caught.value) == message


@settings(max_examples=100, deadline=None)
@given(rules_files())
def test_the_fast_parser_reads_as_the_reference_does(text: str) -> None:
    source = Source(text)
    fast = GRAMMAR.parse_fast(source)
    reference = GRAMMAR.parse_reference(source)
    assert fast == reference
    assert [spans(r) for r in fast.rules] == [spans(r) for r in reference.rules]


def spans(rule: Rule) -> list[Span | None]:
    """Every span of a rule: its own, its atoms', its terms'."""
    atoms = [rule.head, *(c.atom for c in rule.body if isinstance(c, Literal))]
    terms = [t for a in atoms for t in a.args] + [t for c in rule.body if isinstance(c, Different)
                                                  for t in (c.left, c.right)]
    return [rule.span, *(a.span for a in atoms), *(t.span for t in terms)]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_broken_file_is_a_located_error_and_nothing_else(data: st.DataObject) -> None:
    text = data.draw(mutated(EXAMPLE.read_text()))
    try:
        rules(text)
    except (ParseError, CheckError) as exc:
        assert all(d.span is not None for d in exc.diagnostics)
        assert str(exc).startswith("r.rules:")


# --- checking -------------------------------------------------------------------------------

#: A sound file over emma's scene 2353884 (a man wearing shorts), and ways to break it: each
#: error with its location, message and caret.
SOUND = ("attr style: sporty, formal.\n"
         "class(X, athlete) :- class(X, person), rel(X, wearing, Y), class(Y, shorts).\n"
         "attr(Y, style, formal) :- class(Y, clothing), not attr(Y, style, sporty).\n")


@pytest.mark.parametrize(("broken", "message"), [
    # unsafe: a variable of the head, of a negated literal, of a comparison
    (SOUND + "class(Z, athlete) :- class(X, man).",
     "r.rules:4:7: error: Z of the head is not bound by a positive literal of the body\n"
     "  class(Z, athlete) :- class(X, man).\n"
     "        ^"),
    (SOUND + "class(X, athlete) :- class(X, man), not rel(X, wearing, Y).",
     "r.rules:4:57: error: Y of a negated literal is not bound by a positive literal of the body\n"
     "  class(X, athlete) :- class(X, man), not rel(X, wearing, Y).\n"
     "                                                          ^"),
    (SOUND + "class(X, athlete) :- class(X, man), X != Y.",
     "r.rules:4:42: error: Y of a comparison is not bound by a positive literal of the body\n"
     "  class(X, athlete) :- class(X, man), X != Y.\n"
     "                                           ^"),
    (SOUND + "class(X, athlete) :- class(X, man), rel(X, _, _), attr(_, style, sporty).\n"
             "rel(X, near, _) :- class(X, man).",
     "r.rules:5:14: error: '_' cannot stand in a head: what would the rule derive?\n"
     "  rel(X, near, _) :- class(X, man).\n"
     "               ^"),
    # unstratified: the cycle through `not`, named rule by rule
    (SOUND + "attr(Y, style, sporty) :- class(X, athlete), rel(X, wearing, Y).\n"
             "class(X, athlete) :- class(X, man), attr(X, style, formal).",
     "r.rules:3:51: error: attr(Y, style, formal) (line 3) depends on not attr(Y, style, sporty) "
     "(line 4), which depends on class(X, athlete) (line 5), which depends on attr(Y, style, formal) "
     "(line 3): negation in a cycle has no stratified meaning (a rule may negate only what does not depend "
     "on its own head)\n"
     "  attr(Y, style, formal) :- class(Y, clothing), not attr(Y, style, sporty).\n"
     "                                                    ^~~~~~~~~~~~~~~~~~~~~~"),
    # unknown words: did you mean, or declare it
    (SOUND.replace("shorts", "shortz"),
     "r.rules:2:69: error: 'shortz' is not a known class (did you mean 'shorts'? "
     "or declare it: class shortz.)\n"
     "  class(X, athlete) :- class(X, person), rel(X, wearing, Y), class(Y, shortz).\n"
     "                                                                      ^~~~~~"),
    (SOUND.replace("wearing", "waering"),
     "r.rules:2:47: error: 'waering' is not a known relation (did you mean 'wearing'? or declare it: "
     "rel waering.)\n"
     "  class(X, athlete) :- class(X, person), rel(X, waering, Y), class(Y, shorts).\n"
     "                                                ^~~~~~~"),
    (SOUND.replace("style, formal)", "style, formel)"),
     "r.rules:3:16: error: 'formel' is not a known style value (did you mean 'formal'? or declare it: "
     "attr style: formel.)\n"
     "  attr(Y, style, formel) :- class(Y, clothing), not attr(Y, style, sporty).\n"
     "                 ^~~~~~"),
    # predicates, arities, sorts
    (SOUND + "class(X, athlete) :- clas(X, man).",
     "r.rules:4:22: error: unknown predicate 'clas' (did you mean 'class'?)\n"
     "  class(X, athlete) :- clas(X, man).\n"
     "                       ^~~~~~~~~~~~"),
    (SOUND + "class(X, athlete) :- attr(X, man).",
     "r.rules:4:22: error: attr takes 3 arguments (object, attribute category, attribute value), got 2\n"
     "  class(X, athlete) :- attr(X, man).\n"
     "                       ^~~~~~~~~~~~"),
    (SOUND + "class(X, athlete) :- rel(X, wearing, shorts).",
     "r.rules:4:38: error: an object is a variable, not the word 'shorts': rules hold in every scene, "
     "and cannot name its objects\n"
     "  class(X, athlete) :- rel(X, wearing, shorts).\n"
     "                                       ^~~~~~"),
    (SOUND + "class(X, athlete) :- rel(X, wearing, Y), class(X, Y).",
     "r.rules:4:51: error: Y is a class here but an object (line 4, column 38)\n"
     "  class(X, athlete) :- rel(X, wearing, Y), class(X, Y).\n"
     "                                                    ^"),
    (SOUND + "know(C, used_for, running) :- class(X, C).",
     "r.rules:4:1: error: a rule cannot derive know: knowledge comes from knowledge bases "
     "(a rule derives class, attr or rel)\n"
     "  know(C, used_for, running) :- class(X, C).\n"
     "  ^~~~~~~~~~~~~~~~~~~~~~~~~~"),
    (SOUND + "class(X, athlete) :- class(X, man), know(man, usedfor, C), class(X, C).",
     "r.rules:4:47: error: 'usedfor' is not a known knowledge relation (did you mean 'used_for'?)\n"
     "  class(X, athlete) :- class(X, man), know(man, usedfor, C), class(X, C).\n"
     "                                                ^~~~~~~"),
    # declarations
    ("atr style: sporty.\n" + SOUND,
     "r.rules:1:1: error: 'atr' declares nothing (did you mean 'attr'?)\n"
     "  atr style: sporty.\n"
     "  ^~~"),
    ("class runner: fast.\n" + SOUND,
     "r.rules:1:1: error: class declares words, without ':' (e.g. class runner.)\n"
     "  class runner: fast.\n"
     "  ^~~~~~~~~~~~~~~~~~~"),
])
def test_a_checker_error_is_located(broken: str, message: str) -> None:
    assert rules(SOUND).rules  # the file it breaks is sound
    with pytest.raises(CheckError) as caught:
        rules(broken)
    assert str(caught.value) == message


def test_every_problem_is_reported_at_once_in_file_order() -> None:
    with pytest.raises(CheckError) as caught:
        rules("rel(X, near, Y) :- rel(X, naer, Y).\n"
              "class(X, athlete) :- clas(X, man), not class(Z, man).\n"
              "clas runner.")
    assert [(d.kind, d.span.line if d.span else 0) for d in caught.value.diagnostics] == [
        ("vocabulary", 1), ("predicate", 2), ("unsafe", 2), ("declaration", 3)]


def test_declared_words_extend_the_ontology_for_programs_over_the_rules() -> None:
    checked = rules("class runner.\nattr style: sporty.\nrel cheers.\n"
                    "class(X, runner) :- class(X, athlete).")
    program = ("and(exist(filter(select(scene(), runner), style, sporty)), "
               "exist(relate_any(scene(), cheers, subject)))")
    root = qlang.parse(program)
    assert {d.kind for d in check_program(root)} == {"vocabulary"}
    assert check_program(root, ontology=checked.declared.extend(load())) == []


def test_a_derived_class_brings_its_ontology_ancestors() -> None:
    """As the scene lists a class's ancestors (a table is furniture), so does a rule."""
    checked = rules("class(X, table) :- class(X, crate).")
    scene = encode({"width": 9, "height": 9, "objects": {
        "1": {"name": "crate", "x": 1, "y": 1, "w": 1, "h": 1}}}, "desk")
    derived = scene_of(solved(checked, scene)[0]).attrs - scene_facts(scene).attrs
    assert {(o, c, v) for o, c, v in derived if c == "class"} == {("1", "class", "table"),
                                                                  ("1", "class", "furniture")}


def test_a_long_file_checks_without_recursion(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tarjan's components without recursion: a chain of 5,000 rules each reading the next
    (past the conditions a rules file may have by default)."""
    monkeypatch.setenv("QLANG_MAX_RULE_CONDITIONS", "5000")
    n = 5000
    text = "class " + ", ".join(f"c{i}" for i in range(n + 1)) + ".\n"
    text += "\n".join(f"class(X, c{i}) :- class(X, c{i + 1})." for i in range(n))
    checked = rules(text)
    assert len(checked.strata) == n and checked.strata[0] == (n - 1,)


# --- lowering -------------------------------------------------------------------------------

def test_the_example_lowers_into_its_own_predicates() -> None:
    lowered = [str(s) for s in lower(rules(EXAMPLE.read_text(), str(EXAMPLE)))]
    assert lowered == [
        "has_attr(O,A,V) :- derived_attr(_,O,A,V).",
        "has_rel(O,A,V) :- derived_rel(_,O,A,V).",
        "derived_attr(1,X,class,athlete) :- has_attr(X,class,person); has_rel(X,wearing,Y); "
        "has_attr(Y,class,shorts).",
        "derived_attr(1,X,class,person) :- has_attr(X,class,person); has_rel(X,wearing,Y); "
        "has_attr(Y,class,shorts).",
        "derived_rel(2,X,wearing,Y) :- has_rel(Y,of,X); has_attr(Y,class,footwear); "
        "has_attr(X,class,person).",
        "derived_attr(3,Y,style,sporty) :- has_attr(X,class,athlete); has_rel(X,wearing,Y).",
        "derived_attr(4,Y,style,formal) :- has_attr(Y,class,clothing); not has_attr(Y,style,sporty).",
        "derived_attr(5,Y,style,formal) :- has_attr(Y,class,footwear); not has_attr(Y,style,sporty).",
    ]


def test_a_hostile_word_stays_a_word() -> None:
    """A word that spells ASP (a rule, a directive) is a string to clingo; it derives the
    class and nothing else, and a word no text can hold is a located error."""
    hostile = 'x). ans(yes). #show ans/1. p(x'
    checked = rules(f'class {json.dumps(hostile)}.\nclass(X, {json.dumps(hostile)}) :- class(X, man).')
    scene = encode(graphs("emma")["2353884"], "emma")
    (model,) = solved(checked, scene)
    assert [str(a) for a in model if a.name == "ans"] == ["ans(yes)"]  # exist's own answer
    (unruled,) = solved(rules(""), scene)
    derived = scene_of(model).attrs - scene_of(unruled).attrs
    assert {(c, v) for _, c, v in derived} == {("class", hostile)}
    assert str(lower(checked)[1]).startswith(f'derived_attr(1,X,class,{json.dumps(hostile)})')
    with pytest.raises(CheckError, match=r"r.rules:1:7: error: a word is non-empty and printable"):
        rules('class "a\\u0000b", "".'.replace("\\u0000", "\0"))


# --- meaning: clingo against the Python evaluator -------------------------------------------

@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(scene_graphs(), rules_files(), knowledge())
def test_clingo_derives_what_the_python_evaluator_does(graph: dict, text: str,
                                                       known: frozenset[tuple[str, str, str]]) -> None:
    try:
        checked = rules(text)
    except CheckError as exc:  # generated rules are safe and well sorted, not always stratified
        assert {d.kind for d in exc.diagnostics} == {"unstratified"}, str(exc)
        reject()
    scene = encode(graph, "generated")
    models = solved(checked, scene, known=known)
    assert len(models) == 1  # stratified rules over a certain scene: one model
    assert scene_part(scene_of(models[0])) == scene_part(derive(checked, scene_facts(scene, known)))


@pytest.mark.parametrize("image", sorted(graphs("emma")))
def test_the_example_means_the_same_to_both_on_the_real_scenes(image: str) -> None:
    checked = rules(EXAMPLE.read_text(), str(EXAMPLE))
    scene = encode(graphs("emma")[image], f"emma {image}")
    (model,) = solved(checked, scene)
    assert scene_part(scene_of(model)) == scene_part(derive(checked, scene_facts(scene)))


@pytest.mark.parametrize(("question", "answer"), [
    ("query(unique(select(scene(), athlete)), name)", "man"),
    ("query(unique(filter(select(scene(), clothing), style, sporty)), name)", "shorts"),
    ("verify_attr(unique(select(scene(), shoe)), style, formal)", "no"),
    ("query(unique(relate(select(scene(), shoe), person, wearing, subject)), name)", "man"),
])
def test_programs_use_derived_facts_as_the_scenes(question: str, answer: str) -> None:
    """The example over image 2353884: "Who is the athlete?", "Which clothing is sporty?" (the
    socks are no clothing in GQA's ontology), the shoes are sporty, and the man wears them."""
    checked = rules(EXAMPLE.read_text(), str(EXAMPLE))
    root = qlang.parse(question)
    assert check_program(root, ontology=checked.declared.extend(load())) == []
    asked = "\n".join(str(f) for f in lower_program.facts(root))
    models = solved(checked, encode(graphs("emma")["2353884"], "emma"), asked)
    assert {from_term(str(a.arguments[0])) for m in models for a in m if a.name == "ans"} == {answer}


def test_a_knowledge_relation_shows_by_its_name() -> None:
    """Shown as a rules file writes it (explain shows the rule behind a derived fact so), not as
    ASP spells the word ``used_for`` (a quoted string)."""
    atom = Atom("know", (Var("C"), Word("used_for"), Word("t-shirt")))
    assert show(atom) == 'know(C, used_for, "t-shirt")'
