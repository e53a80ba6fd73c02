"""GQA scene graphs through the encoder: real questions get their gold answers; bad input fails clearly."""

from __future__ import annotations

import json
from functools import cache

import pytest

import qlang
from qlang.asp.query import read
from qlang.asp.scene import SceneError, SceneLibrary, weight
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.passes import lower
from qlang.syntax import gqa
from tests.conftest import SCENES, emma_questions


@cache
def library(name: str = "emma_sceneGraphs.json") -> SceneLibrary:
    path = SCENES / name
    return SceneLibrary(Source(path.read_text(), str(path)))


def test_four_emma_questions_have_their_scene() -> None:
    assert len(emma_questions()) == 4


@pytest.mark.parametrize("question", emma_questions(), ids=lambda q: q["question"])
def test_emma_question_gets_its_gold_answer_from_the_gqa_scene_graph(question: dict) -> None:
    program = gqa.to_ir(gqa.steps_from_json(question["semantic"]))
    qlang.check(program)
    result = solve(lower.facts(program), library().facts(question["imageId"]))
    assert [a.value for a in result.answers] == [question["answer"]]


def test_an_object_gets_its_name_classes_attributes_position_and_relations() -> None:
    graph = json.loads((SCENES / "emma_sceneGraphs.json").read_text())["2353884"]
    facts = set(library().facts("2353884").splitlines())
    assert {"object(2449847).", "has_attr(2449847, name, man).", "has_attr(2449847, class, man).",
            "has_attr(2449847, class, person).", "has_rel(2449847, wearing, 3576178).",
            "has_attr(2493560, color, white).",
            "has_obj_weight(2449847, 0)."} <= facts
    for oid, obj in graph["objects"].items():
        centre = obj["x"] + obj["w"] / 2
        side = "left" if centre < graph["width"] / 3 else "right" if centre >= 2 * graph["width"] / 3 \
            else "middle"
        assert f"has_attr({oid}, hposition, {side})." in facts


def test_an_object_answers_to_its_further_classes_and_what_is_above_them() -> None:
    """A photo's subject is GQA's deictic `this` besides its name: "What is this?" selects it."""
    graph = {"width": 10, "height": 10, "objects": {"o0": {
        "name": "flower", "classes": ["this"], "x": 0, "y": 0, "w": 10, "h": 10}}}
    source = Source(json.dumps(graph), "s.json")
    facts = set(SceneLibrary(source).facts().splitlines())
    assert {"has_attr(o0, name, flower).", "has_attr(o0, class, flower).", "has_attr(o0, class, plant).",
            "has_attr(o0, class, this)."} <= facts
    assert "has_attr(o0, name, this)." not in facts


def test_uncategorised_attributes_fall_under_any() -> None:
    facts = library().facts("2410046")
    assert "has_attr(227327, any, overhead)." in facts


def test_every_graph_of_both_scene_files_encodes_to_clean_asp() -> None:
    for name in ("emma_sceneGraphs.json", "graphvqa_debug_sceneGraphs.json"):
        for image in library(name).image_ids:
            result = solve(read("scene(0). exist(1, 0). end(1)."), library(name).facts(image))
            assert [a.value for a in result.answers] == ["yes"]


def test_words_cannot_inject_rules() -> None:
    evil = {"width": 10, "height": 10, "objects": {"a": {
        "name": "cup). ans(hacked", "x": 0, "y": 0, "w": 1, "h": 1,
        "attributes": ["red). :- object(X"], "relations": [{"name": "on). #false", "object": "a"}]}}}
    facts = SceneLibrary(Source(json.dumps(evil))).facts()
    result = solve(lower.facts(qlang.compile("query(unique(scene()), name)")), facts)
    assert [a.value for a in result.answers] == ["cup). ans(hacked"]


def test_a_scene_given_as_asp_facts_is_used_as_it_is() -> None:
    text = "object(1). has_attr(1, class, cat). has_attr(1, name, cat)."
    assert SceneLibrary(Source(text)).facts("anything") == text


@pytest.mark.parametrize(("text", "where", "message"), [
    ('{"objects": {"7": {"name": "cup",}}}', (1, 34), "malformed scene JSON"),
    ('{"width": 10, "height": 10,\n "objects": {"7": {"name": "cup", "x": 0}}}', (2, 14),
     "object 7: 'y' must be a number"),
    ('{"width": 10, "height": 10, "objects": {"7": {"name": "cup", "x": 0, "y": 0, "w": 1, "h": 1,'
     ' "attributes": [{"value": "red", "confidence": 1.5}]}}}', (1, 41), "a confidence must be"),
    ('{"width": 10, "height": 10, "objects": {"7": {"name": "cup", "x": 0, "y": 0, "w": 1, "h": 1,'
     ' "relations": [{"name": "on", "object": "8"}]}}}', (1, 41), "an 'object' of the scene"),
    ('{"width": 10, "height": 10, "objects": {"7": {"name": "cup", "x": 0, "y": 0, "w": 1, "h": 1,'
     ' "classes": ["this", 3]}}}', (1, 41), "'classes' must be a list of strings"),
    ('{"width": 0, "height": 10, "objects": {}}', None, "'width' must be a positive number"),
])
def test_malformed_scenes_are_located_errors(text: str, where: tuple[int, int] | None, message: str) -> None:
    with pytest.raises(SceneError) as caught:
        SceneLibrary(Source(text, "s.json")).facts()
    diagnostic = caught.value.diagnostics[0]
    assert message in diagnostic.message
    span = diagnostic.span
    assert (span.line, span.column) == where if span else where is None


def test_unknown_image_id_names_the_nearest() -> None:
    with pytest.raises(SceneError) as caught:
        library().facts("2353885")
    assert "image '2353885' is not in the scene file" in str(caught.value)
    assert "2353884" in str(caught.value)


def test_weights_are_minus_thousand_log_p() -> None:
    assert weight(1.0) == 0
    assert weight(0.5) == 693
    assert weight(0.9) < weight(0.1)
