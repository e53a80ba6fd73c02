"""The text operations answered: what retrieval and extraction find before solving (`gather`),
as the theory ranks it (`--top-k` by the retriever's and extractor's weights) and as the
interpreter reads the same evidence, over the bundled glosses and a documents file."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qlang import api
from qlang.asp.background import Background
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.interpret import Membership, Scene, evaluate
from qlang.passes.lower import facts
from qlang.text.documents import Documents, Passage
from qlang.text.evidence import NOTHING
from qlang.text.extract import Lexical
from qlang.text.gather import Asked, Texts, gather
from qlang.text.retrieve import BM25


def thing(name: str, relations: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {"name": name, "x": 10, "y": 10, "w": 20, "h": 20, "attributes": [], "relations": relations or []}


#: a speaker, two headphones (one with a review of its own), and a sign with words lying on it
GRAPH = {"width": 300, "height": 300, "objects": {
    "1": thing("speaker"), "2": thing("headphones"), "3": thing("headphones"), "4": thing("sign"),
    "5": thing("words", [{"name": "on", "object": "4"}])}}
DOCUMENTS = Documents([
    Passage("2", "Waterproof and light; the bass is deep and punchy.", "reviews"),
    Passage("3", "The bass is weak, but the battery lasts forty hours.", "reviews"),
    Passage("speaker", "A loud speaker for parties, used for playing music outdoors.", "notes"),
    Passage("5", "NO PARKING", "the photo"),
])
TEXTS = Texts(DOCUMENTS)


def answers(program: str, texts: Texts = TEXTS, top_k: int = 5) -> list[tuple[str, tuple[int, ...]]]:
    scene = SceneLibrary(Source(json.dumps(GRAPH))).facts()
    found = solve(facts(api.compile(program)), scene,
                  SolveOptions(top_k=top_k, distinct=True, background=Background(texts=texts)))
    return [(a.value, a.cost) for a in found.answers]


def interpreted(program: str) -> frozenset[str]:
    root = api.compile(program)
    names = {oid: [o["name"]] for oid, o in GRAPH["objects"].items()}
    asked = Asked.of((n.op, n.literals) for n in _nodes(root))
    evidence = TEXTS.evidence(names, asked)
    return evaluate(root, Scene.from_json(GRAPH), Membership(wordnet=False), text=evidence).answers


def _nodes(root: Any) -> list[Any]:
    from qlang.ir import postorder

    return postorder(root)


def test_gather_finds_each_object_s_documents_by_id_or_name() -> None:
    names = {oid: [o["name"]] for oid, o in GRAPH["objects"].items()}
    battery = "How long does the battery last?"
    asked = Asked(frozenset({"deep bass"}), frozenset({battery}), True)
    found = gather(DOCUMENTS, names, asked, retriever=lambda: BM25(DOCUMENTS), extractor=Lexical)
    costs = found.matches["deep bass"]
    assert set(costs) == {"1", "2", "3", "5"} and costs["2"] == 0 < costs["3"] < costs["1"]
    (answer,) = found.answers[battery].values()  # only 3's documents say
    quote = answer.quote
    assert answer.text == "forty hours" and quote is not None
    assert DOCUMENTS.documents[quote.document].text[quote.start:quote.end] == "forty hours"
    assert [f.text for f in found.shown["5"]] == ["NO PARKING"]
    assert "1" not in found.shown  # a class's document is not what an object shows
    assert gather(DOCUMENTS, names, Asked(), retriever=pytest.fail, extractor=pytest.fail) is NOTHING


def test_match_keeps_the_k_best_and_unique_prefers_the_best() -> None:
    program = 'query(unique(match(select(scene(), headphones), "waterproof deep bass", "1")), name)'
    assert answers(program) == [("headphones", (0,))]
    assert interpreted(program) == {"headphones"}
    best = 'exist(match(select(scene(), speaker), "waterproof", "1"))'  # the speaker's notes don't say
    assert answers(best) == [("yes", ())]
    assert answers('exist(match(select(scene(), sign), "waterproof", "3"))') == [("no", ())]


def test_extract_answers_from_the_input_s_documents_best_first() -> None:
    program = 'extract(select(scene(), headphones), "How long does the battery last?")'
    assert [a for a, _ in answers(program)] == ["forty hours"]
    assert interpreted(program) == {"forty hours"}
    assert answers('extract(select(scene(), sign), "How long does the battery last?")') == []


def test_read_answers_with_the_words_lying_on_an_object() -> None:
    for program in ("read(unique(select(scene(), sign)))", "read(unique(select(scene(), words)))"):
        assert answers(program) == [("NO PARKING", (0,))]
        assert interpreted(program) == {"NO PARKING"}
    assert answers("read(unique(select(scene(), speaker)))") == []


def test_the_bundled_glosses_answer_what_a_cup_is_used_for() -> None:
    """No documents given: WordNet's gloss of the cup's sense is its document."""
    GRAPH["objects"]["6"] = thing("cup")
    try:
        found = answers('extract(select(scene(), cup), "What is it used for?")', texts=Texts())
    finally:
        del GRAPH["objects"]["6"]
    assert found and found[0][0] == "drinking"


def test_a_photo_s_words_are_documents_of_their_objects() -> None:
    """Asked about a photo, the words read from it are what the sign shows, and documents to
    match and extract from besides the glosses."""
    from qlang.pipeline import Subject, answer
    from qlang.vision.reading import Reading
    from tests.sign_photo import SIGN, Panel

    class Open(Panel):
        name = "owlvit"  # an open-vocabulary perceiver's sight: any class may be seen

    about = Subject(image=SIGN, perceiver=Reading(Open()))
    shown = answer(api.compile("read(unique(select(scene(), sign)))"), about)
    assert [a.value for a in shown.answers] == ["COFFEE SHOP"]  # the words in the panel's box
    shown = answer(api.compile("read(unique(select(scene(), number)))"), about)
    assert [a.value for a in shown.answers] == ["1984"]
    matched = answer(api.compile('read(unique(match(select(scene(), words), "coffee", "1")))'), about)
    assert [a.value for a in matched.answers] == ["COFFEE SHOP"]


def test_the_web_page_shows_the_quoted_span_under_the_answer() -> None:
    from qlang.asp.explain import explain
    from qlang.web import report

    scene = SceneLibrary(Source(json.dumps(GRAPH))).facts()
    program = facts(api.compile('extract(select(scene(), headphones), "How long does the battery last?")'))
    explanation = explain(program, scene, options=SolveOptions(background=Background(texts=TEXTS)))
    assert report.quoted(explanation) == [
        "3 (reviews, characters 40-51): The bass is weak, but the battery lasts [[forty hours]]."]


def test_extraction_reads_only_the_documents_of_what_the_input_may_hold() -> None:
    """The extractor is the slow part: it runs over the headphones' documents, not the speaker's."""
    read: list[list[int]] = []

    class Counting(Lexical):
        def __call__(self, documents: Documents, numbers: Any, question: str) -> Any:
            read.append(list(numbers))
            return super().__call__(documents, numbers, question)

    texts = Texts(DOCUMENTS, extractor=Counting)
    assert [a for a, _ in answers('extract(select(scene(), headphones), "How long does the battery last?")',
                                  texts)] == ["forty hours"]
    assert sorted(read) == [[0], [1]]  # objects 2 and 3; not the speaker's notes (2)
