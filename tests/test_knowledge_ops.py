"""The knowledge operations: know, verify_know and infer, checked against the
knowledge in use, printed in every syntax, answered by the theory (best first, with the path
behind the answer) and by the interpreter alike, over small graphs and the bundled base."""

from __future__ import annotations

import json

import pytest

from qlang import api
from qlang.asp import knowledge_facts
from qlang.asp.explain import explain
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary, weight
from qlang.asp.solve import solve
from qlang.errors import CheckError, Source, UnsupportedOperation
from qlang.interpret import Membership as Ontological
from qlang.interpret import Scene, evaluate
from qlang.ir import Node
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.index import build
from qlang.knowledge.triples import Triple
from qlang.ontology import load
from qlang.passes.lower import facts
from qlang.syntax import SYNTAXES
from tests.conftest import graphs

CUP = Triple("cup", "used_for", "drinking", 0.9)
#: "sipping" and "refreshment" are words of no GQA vocabulary
EDGES = [CUP, Triple("cup", "used_for", "holding", 0.5), Triple("cup", "used_for", "sipping", 0.3),
         Triple("tableware", "used_for", "serving", 0.7), Triple("drinking", "related_to", "water", 0.8),
         Triple("water", "is_a", "refreshment", 1.0), Triple("cup", "made_of", "porcelain", 0.6)]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Knowledge:
    return Knowledge([build(EDGES, tmp_path_factory.mktemp("kb") / "small.sqlite", {})])


def one_object(name: str) -> dict[str, object]:
    obj = {"name": name, "x": 10, "y": 10, "w": 20, "h": 20, "attributes": [], "relations": []}
    return {"width": 300, "height": 300, "objects": {"1": obj}}


def classes(graph: dict[str, object]) -> set[str]:
    objects = graph["objects"]
    assert isinstance(objects, dict)
    return {c for o in objects.values() for c in (o["name"], *load().ancestors(o["name"]))}


def answers(text: str, graph: dict[str, object], knowledge: Knowledge, top_k: int = 10
            ) -> list[tuple[str, tuple[int, ...]]]:
    """The best `top_k` distinct answers and their costs, the knowledge facts appended to the scene."""
    question = facts(api.compile(text, knowledge=knowledge))
    scene = "\n".join([SceneLibrary(Source(json.dumps(graph))).facts(),
                       *(f"{s}." for s in knowledge_facts.facts(knowledge, question, classes(graph)))])
    found = solve(question, scene, SolveOptions(top_k=top_k, distinct=True))
    return [(a.value, a.cost) for a in found.answers]


# --- checking ----------------------------------------------------------------------------------

def test_an_unknown_knowledge_relation_is_a_located_error_with_did_you_mean(small: Knowledge) -> None:
    with pytest.raises(CheckError) as caught:
        api.compile("know(unique(select(scene(), cup)), usedfor)", knowledge=small)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message == "'usedfor' is not a known knowledge relation"
    assert diagnostic.hint == "did you mean 'used for'?"
    assert diagnostic.span is not None and (diagnostic.span.line, diagnostic.span.column) == (1, 36)
    assert "1:36: error" in str(caught.value)


def test_a_knowledge_word_is_accepted_only_where_a_loaded_base_knows_it(small: Knowledge) -> None:
    program = "verify_know(unique(select(scene(), cup)), used_for, sipping)"
    assert api.compile(program, knowledge=small).op == "verify_know"
    assert api.compile("infer(select(scene(), cup), refreshment)", knowledge=small).op == "infer"
    with pytest.raises(CheckError) as caught:
        api.compile(program, knowledge=Knowledge(()))
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.message == \
        "'sipping' is not a known attribute value, nor a word of the knowledge in use"
    assert diagnostic.span is not None and diagnostic.span.column == 53
    with pytest.raises(CheckError, match="'refreshments' is not a known class, nor a word of the knowledge"):
        api.compile("infer(select(scene(), cup), refreshments)", knowledge=small)
    # only an operation that reads knowledge takes its words
    with pytest.raises(CheckError, match=r"'sipping' is not a known color value \(did"):
        api.compile("verify_attr(unique(select(scene(), cup)), color, sipping)", knowledge=small)


def test_the_knowledge_is_opened_only_for_a_word_outside_the_ontology(
        monkeypatch: pytest.MonkeyPatch, small: Knowledge) -> None:
    opened: list[object] = []

    def opening(specs: list[str]) -> Knowledge:
        opened.append(specs)
        return small

    monkeypatch.setattr(sources, "knowledge", opening)
    api.compile("exist(select(scene(), cup))")
    api.compile("verify_know(unique(select(scene(), cup)), made_of, metal)")
    api.compile("infer(select(scene(), cup), vehicle)")
    assert opened == []
    api.compile("verify_know(unique(select(scene(), cup)), used_for, sipping)")
    assert opened == [[]]  # the bundled base, as `--kb` given nothing


@pytest.mark.parametrize("text", ["know(unique(select(scene(), cup)), used_for)",
                                  "and(verify_know(unique(select(scene(), cup)), made_of, metal), "
                                  "exist(select(scene(), cup)))",
                                  "infer(relate_any(select(scene(), table), on, subject), tableware)"])
def test_knowledge_operations_read_back_in_every_asp_syntax_and_gqa_refuses_them(text: str) -> None:
    root = api.compile(text)
    for name in ("nested", "code", "flat"):
        printed = SYNTAXES[name].print(root)
        assert SYNTAXES[name].parse(Source(printed)) == root, (name, printed)
    assert "used_for" in SYNTAXES["nested"].print(root) or "used" not in text
    for name in ("gqa", "gqa-str"):
        with pytest.raises(UnsupportedOperation, match=r"GQA cannot express (know|verify_know|infer): "
                                                        "GQA has no such operation"):
            SYNTAXES[name].print(root)


# --- answering ---------------------------------------------------------------------------------

def test_know_lists_the_tails_best_first_by_weight(small: Knowledge) -> None:
    """cup's own edges and tableware's (its GQA category), each costing -1000 ln w."""
    found = answers("know(unique(select(scene(), cup)), used_for)", one_object("cup"), small)
    assert found == [(word, (weight(w),)) for word, w in
                     [("drinking", 0.9), ("serving", 0.7), ("holding", 0.5), ("sipping", 0.3)]]


def test_verify_know_holds_exactly_for_an_edge_of_the_objects_classes(small: Knowledge) -> None:
    cup = one_object("cup")
    verify = "verify_know(unique(select(scene(), cup)), {}, {})"
    assert answers(verify.format("used_for", "serving"), cup, small) == [("yes", (0,))]
    assert answers(verify.format("made_of", "porcelain"), cup, small) == [("yes", (0,))]
    assert answers(verify.format("used_for", "porcelain"), cup, small) == [("no", (0,))]
    assert answers(verify.format("is_a", "tableware"), cup, small) == [("yes", (0,))]  # GQA's hierarchy


def test_infer_answers_by_a_path_and_explain_shows_it(small: Knowledge) -> None:
    graph = one_object("cup")
    text = "infer(select(scene(), cup), refreshment)"
    assert answers(text, graph, small) == [("water", (weight(0.9) + weight(0.8), 2))]
    question = facts(api.compile(text, knowledge=small))
    scene = "\n".join([SceneLibrary(Source(json.dumps(graph))).facts(),
                       *(f"{s}." for s in knowledge_facts.facts(small, question, classes(graph)))])
    explanation = explain(question, scene)
    assert explanation is not None
    (step,) = [s for s in explanation.steps if s.op == "infer"]
    paths = ("cup -used_for-> drinking -related_to-> water", "water -is_a-> refreshment")
    assert step.paths == paths  # the walk, then why water is a refreshment
    assert explanation.render().splitlines()[-2:] == [f"      {path}" for path in paths]
    assert step.to_json()["paths"] == list(paths)


def test_an_objects_own_class_is_an_answer_of_infer_at_no_hops(small: Knowledge) -> None:
    """"What vehicle is this?" over a car: car, by GQA's hierarchy, with no knowledge edge."""
    found = answers("infer(select(scene(), car), vehicle)", one_object("car"), Knowledge(()))
    assert found[0] == ("car", (0, 0))


def test_the_interpreter_agrees_on_the_small_graph(small: Knowledge) -> None:
    graph = one_object("cup")
    for text in ("know(unique(select(scene(), cup)), used_for)", "infer(select(scene(), cup), refreshment)",
                 "verify_know(unique(select(scene(), cup)), used_for, water)"):
        root = api.compile(text, knowledge=small)
        outcome = evaluate(root, Scene.from_json(graph), Ontological(wordnet=False), knowledge=small)
        assert outcome.answers == {a for a, _ in answers(text, graph, small)}, text


# --- the bundled base over real scenes --------------------------------------------------------

@pytest.fixture(scope="module")
def bundled() -> Knowledge:
    return sources.knowledge([])


@pytest.mark.parametrize(("image", "text", "expected"), [
    # "What is the man like?": Pattern's commonsense, two sources (0.86) above one (0.63)
    ("2353884", "know(unique(select(scene(), man)), has_property)", ["masculine", "dominant"]),
    ("2353884", "verify_know(unique(select(scene(), woman)), has_property, feminine)", ["yes"]),
    # "What are the trees made of?": WordNet's substance meronyms, equally strong
    ("2410046", "know(unique(select(scene(), trees)), made_of)", ["heartwood", "sapwood"]),
    # "What clothing is there?": the shorts themselves, no edge walked
    ("2353884", "infer(select(scene(), shorts), clothing)", ["shorts"]),
])
def test_real_answers_over_a_real_scene_with_the_bundled_base(bundled: Knowledge, image: str, text: str,
                                                              expected: list[str]) -> None:
    graph = graphs("emma")[image]
    found = [word for word, _ in answers(text, graph, bundled, top_k=len(expected))]
    assert sorted(found) == sorted(expected) if text.startswith("know(unique(select(scene(), trees))") \
        else found == expected
    root: Node = api.compile(text, knowledge=bundled)
    outcome = evaluate(root, Scene.from_json(graph), Ontological(wordnet=False), knowledge=bundled)
    assert set(expected) <= outcome.answers
