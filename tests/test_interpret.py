"""The Python interpreter over real GQA scene graphs: gold answers, failure classes, WordNet."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from qlang import wordnet as wn
from qlang.interpret import (
    AmbiguousAnswer,
    EmptyChoice,
    EmptyQuery,
    IncompleteMetadata,
    InterpretError,
    Membership,
    MissingEdge,
    NonTrivialCategory,
    NotInWordnet,
    Scene,
    answerable,
    evaluate,
    interpret,
    sanitize,
)
from qlang.ir import Node, op
from qlang.syntax import gqa
from tests.conftest import EXAMPLE, SCENES, asp_example, emma_questions, graphs, scene

MODES = {"metadata": Membership(), "ontology": Membership(wordnet=False), "pure": Membership(ontology=False)}


# GraphVQA's debug programs: "[id]=op([deps], argument)"; relate_inv finds the relation's subject.
_GRAPHVQA = re.compile(r"^(?:\[[0-9, ]*\]|\?)=(\w+)\(([^)]*)\)$")
_GRAPHVQA_STEPS = {"select": "select", "filter": "filter", "verify": "verify", "query_n": "query"}


def graphvqa_steps(program: list[str]) -> list[gqa.GqaStep]:
    steps = []
    for text in program:
        match = _GRAPHVQA.match(text)
        assert match, text
        name, args = match.groups()
        deps = tuple(int(d) for d in re.findall(r"\[(\d+)\]", args))
        word = args.split(",")[-1].strip() if deps else args.strip()
        if name in ("relate", "relate_inv"):
            steps.append(gqa.GqaStep("relate", f"_,{word},{'s' if name == 'relate_inv' else 'o'}", deps))
        else:
            steps.append(gqa.GqaStep(_GRAPHVQA_STEPS[name], "name" if name == "query_n" else word, deps))
    return steps


def graphvqa_questions() -> list[tuple[str, str, list[gqa.GqaStep], str]]:
    programs = json.loads((SCENES / "graphvqa_debug_programs.json").read_text())
    return [(image, question, graphvqa_steps(program), answer)
            for image, question, program, _, answer, *_ in programs]


# ----- gold answers -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("question", emma_questions(), ids=lambda q: q["question"])
def test_emma_questions_give_their_gold_answers(question: dict[str, Any], mode: str) -> None:
    root = gqa.to_ir(gqa.steps_from_json(question["semantic"]))
    assert interpret(root, scene("emma", question["imageId"]), MODES[mode]) == question["answer"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("item", graphvqa_questions(), ids=lambda item: item[1])
def test_graphvqa_debug_programs_give_their_gold_answers(item: tuple[str, str, list[gqa.GqaStep], str],
                                                         mode: str) -> None:
    image, _, steps, answer = item
    assert interpret(gqa.to_ir(steps), scene("graphvqa_debug", image), MODES[mode]) == answer


def test_how_many_available_questions_are_answerable() -> None:
    emma = json.loads((SCENES / "emma_questions.json").read_text()).values()
    with_scene = [q for q in emma if q["imageId"] in graphs("emma")]
    counts = {mode: sum(answerable(q, scene("emma", q["imageId"]), k) for q in with_scene)
              + sum(interpret(gqa.to_ir(steps), scene("graphvqa_debug", image), k) == answer
                    for image, _, steps, answer in graphvqa_questions())
              for mode, k in MODES.items()}
    total = len(with_scene) + len(graphvqa_questions())
    print(f"\nanswerable questions with a scene graph ({total} of {len(emma) + 2}): {counts}")
    assert counts == dict.fromkeys(MODES, total)


def answer_or_failure(root: Node, where: Scene, membership: Membership) -> str:
    try:
        return interpret(root, where, membership)
    except InterpretError as failure:
        return type(failure).__name__


@pytest.mark.parametrize("mode", ["metadata", "ontology"])
def test_real_yes_no_examples_give_their_gold_answers(data_dir: Any, mode: str) -> None:
    text = (data_dir / "asp" / "gqa_yesno_examples_dev.pl").read_text()
    outcomes = [(answer_or_failure(*asp_example(body), MODES[mode]), gold)
                for gold, body in EXAMPLE.findall(text)]
    print(f"\nreal yes/no examples answered as gold ({mode}): "
          f"{sum(a == gold for a, gold in outcomes)} of {len(outcomes)}")
    assert len(outcomes) == 50
    assert all(a == gold for a, gold in outcomes)


@pytest.mark.parametrize("mode", ["metadata", "ontology"])
def test_gs_vqa_encoded_questions_answer_as_their_full_answer_says(data_dir: Any, mode: str) -> None:
    """One person lies in two thirds (middle and right): its side is ambiguous, right among them."""
    answers = {}
    for path in sorted((data_dir / "asp" / "encoded_questions").glob("*.lp")):
        text = path.read_text()
        full = text.split("Full answer")[1]
        answers[path.stem] = evaluate(*asp_example(text), MODES[mode]).answers
        assert any(re.search(rf"\b{re.escape(a)}", full, re.I) for a in answers[path.stem]), path.stem
    print(f"\nGS-VQA encoded questions with one answer, in the full answer ({mode}): "
          f"{sum(len(a) == 1 for a in answers.values())} of {len(answers)}")
    assert [stem for stem, a in answers.items() if len(a) > 1] == ["08607019"]


def test_unanswerable_question_is_not_answerable() -> None:
    question = json.loads((SCENES / "emma_questions.json").read_text())["142457"]
    assert not answerable(question | {"answer": "right"}, scene("emma", question["imageId"]))
    assert not answerable(question | {"semantic": [{"operation": "select", "argument": "unicorn",
                                                    "dependencies": []},
                                                   {"operation": "query", "argument": "color",
                                                    "dependencies": [0]}]},
                          scene("emma", question["imageId"]))


# ----- failure classes, from real scenes ---------------------------------------------------------

def the(cls: str) -> Node:
    return op("unique", op("select", op("scene"), cls))


MAN_AND_SHORTS = scene("emma", "2353884")
HORSE_AND_WALL = scene("graphvqa_debug", "2375429")
FAILURES = [
    (EmptyQuery, op("query", the("nose"), "color"), MAN_AND_SHORTS, MODES["metadata"]),
    (EmptyQuery, op("query", the("unicorn"), "color"), MAN_AND_SHORTS, MODES["metadata"]),
    (AmbiguousAnswer, op("query", the("leg"), "hposition"), HORSE_AND_WALL, MODES["metadata"]),
    (MissingEdge, op("query", op("unique", op("relate", op("select", op("scene"), "shorts"), "person",
                                              "eating", "subject")), "name"),
     MAN_AND_SHORTS, MODES["metadata"]),
    (MissingEdge, op("choose_rel", the("shorts"), "person", "eating", "holding", "subject"),
     MAN_AND_SHORTS, MODES["metadata"]),
    (EmptyChoice, op("choose_attr", the("nose"), "color", "red", "blue"), MAN_AND_SHORTS,
     MODES["metadata"]),
    (NonTrivialCategory, op("query", op("unique", op("scene")), "place"), MAN_AND_SHORTS,
     MODES["metadata"]),
    (NonTrivialCategory, op("two_same", op("select", op("scene"), "man"),
                            op("select", op("scene"), "audience"), "gender"),
     MAN_AND_SHORTS, MODES["metadata"]),
    (NotInWordnet, op("query", the("socks"), "sportActivity"), MAN_AND_SHORTS, MODES["pure"]),
    (IncompleteMetadata, op("query", the("horse"), "shape"), HORSE_AND_WALL, MODES["ontology"]),
]


@pytest.mark.parametrize(("error", "root", "where", "membership"), FAILURES,
                         ids=[f"{e.__name__}:{r}" for e, r, *_ in FAILURES])
def test_failure_classes(error: type[InterpretError], root: Node, where: Scene,
                         membership: Membership) -> None:
    with pytest.raises(error):
        interpret(root, where, membership)


def test_ambiguity_lists_the_candidates_and_a_shared_unique_chooses_once() -> None:
    with pytest.raises(AmbiguousAnswer) as caught:
        interpret(op("query", the("leg"), "hposition"), HORSE_AND_WALL, MODES["ontology"])
    assert caught.value.candidates == {"middle", "right"}
    leg = the("leg")
    same_leg = op("and", op("verify_attr", leg, "hposition", "middle"),
                  op("verify_attr", leg, "hposition", "right"))
    assert interpret(same_leg, HORSE_AND_WALL, MODES["ontology"]) == "no"


def test_scene_wide_location_answers_for_every_object() -> None:
    indoors = scene("emma", "2410046")
    root = op("choose_attr", op("unique", op("scene")), "location", "indoors", "outdoors")
    assert interpret(root, indoors) == indoors.context["location"]


@pytest.mark.parametrize(("answer", "expected"), [(True, "yes"), (False, "no"), ("to the left of", "left"),
                                                  ("in front of", "front"), ("to the right", "right"),
                                                  ("on top of", "on top of"), ("white", "white")])
def test_sanitize(answer: object, expected: str) -> None:
    assert sanitize(answer) == expected


# ----- WordNet ----------------------------------------------------------------------------------

def test_select_finds_a_horse_as_an_animal_by_hyponymy() -> None:
    animals = op("query", the("animal"), "name")
    assert interpret(animals, HORSE_AND_WALL, MODES["pure"]) == "horse"
    assert interpret(op("query", the("equine"), "name"), HORSE_AND_WALL, MODES["pure"]) == "horse"
    with pytest.raises(EmptyQuery):  # "equine" is no class category of the ontology
        interpret(op("query", the("equine"), "name"), HORSE_AND_WALL, MODES["ontology"])


def test_equal_or_hyponym() -> None:
    assert wn.equal_or_hyponym("man", "person")
    assert wn.equal_or_hyponym("shorts", "clothing")
    assert wn.equal_or_hyponym("tennis racket", "_")
    assert not wn.equal_or_hyponym("person", "man")
    assert not wn.equal_or_hyponym("horse", "vehicle")


@pytest.mark.parametrize(("value", "category", "expected"), [
    ("grey", "color", True),      # the seed's exception: grey.n.01 is a writer
    ("white", "color", True),
    ("wooden", "material", True),  # an adjective, nounified through "wood"
    ("white", "material", False),
])
def test_category_membership_by_wordnet(value: str, category: str, expected: bool) -> None:
    assert MODES["pure"].member(value, category) is expected


def test_grey_is_a_colour_only_through_the_exception() -> None:
    color = wn.sense("color")
    assert color is not None
    assert not any(color in wn.hypernyms(s) for s in wn.reader().synsets("grey", "n")[:1])


def test_missing_wordnet_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv(wn.ENV_VAR, str(tmp_path))
    wn.reader.cache_clear()
    try:
        with pytest.raises(wn.WordNetMissing, match="make install"):
            wn.reader()
    finally:
        monkeypatch.undo()
        wn.reader.cache_clear()


# ----- the seed thesis's semantics (§4.1) ----------------------------------------------------------

def test_thesis_relate_raises_missing_edge_where_qlang_finds_an_empty_set() -> None:
    nobody_eats = op("exist", op("relate", op("select", op("scene"), "shorts"), "person", "eating",
                                 "subject"))
    assert interpret(nobody_eats, MAN_AND_SHORTS) == "no"
    with pytest.raises(MissingEdge):
        interpret(nobody_eats, MAN_AND_SHORTS, semantics="thesis")
    wearer = op("exist", op("relate", op("select", op("scene"), "shorts"), "person", "wearing", "subject"))
    assert interpret(wearer, MAN_AND_SHORTS, semantics="thesis") == "yes"


def test_thesis_choose_answers_with_the_first_option_that_holds() -> None:
    striped = Scene.from_json({"width": 9, "height": 9, "objects": {"1": {
        "name": "zebra", "attributes": ["white", "black"], "relations": [], "x": 1, "y": 1, "w": 1, "h": 1}}})
    black_or_white = op("choose_attr", the("zebra"), "color", "black", "white")
    white_or_black = op("choose_attr", the("zebra"), "color", "white", "black")
    assert interpret(black_or_white, striped, semantics="thesis") == "black"
    assert interpret(white_or_black, striped, semantics="thesis") == "white"
    with pytest.raises(AmbiguousAnswer):
        interpret(black_or_white, striped)


@pytest.mark.parametrize("question", emma_questions(), ids=lambda q: q["question"])
def test_emma_questions_are_answerable_under_the_thesis_semantics(question: dict[str, Any]) -> None:
    assert answerable(question, scene("emma", question["imageId"]), semantics="thesis")
