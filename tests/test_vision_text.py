"""The perceiver reads the photo's text: each region an object of class words or number in the
weighted scene, with its string, related to the objects around it (qlang.vision.reading)."""

from __future__ import annotations

import pytest

from qlang.timing import Stages
from qlang.vision.concepts import Concepts, mentioned
from qlang.vision.perceiving import Options, make_perceiver, perceive
from qlang.vision.perception import Thresholds
from qlang.vision.reading import Reading, needs_text
from tests.sign_photo import SIGN, Panel


def test_text_regions_become_objects_with_their_string_on_what_they_lie_on() -> None:
    perceived = perceive(SIGN, None, Reading(Panel()), Thresholds(), Stages())
    objects = perceived.graph["objects"]
    read = {o["text"]: (oid, o) for oid, o in objects.items() if "text" in o}
    assert set(read) == {"COFFEE SHOP", "opendaily", "1984"}
    oid, coffee = read["COFFEE SHOP"]
    assert coffee["name"] == "words" and 0.5 <= coffee["confidence"] <= 1
    assert read["1984"][1]["name"] == "number"
    assert any(r["object"] == "o0" for r in coffee["relations"]), "the words relate to the panel"
    assert f"has_attr({oid}, name, words)." in perceived.facts.splitlines()
    assert f"has_attr({oid}, class, letters)." in perceived.facts.splitlines(), "words are letters"
    assert f"has_attr({read['1984'][0]}, class, letters)." not in perceived.facts.splitlines()


def test_the_page_labels_a_photo_s_words_by_what_they_say() -> None:
    from qlang.web import report

    perceived = perceive(SIGN, None, Reading(Panel()), Thresholds(), Stages())
    shown = report.objects(perceived.graph)
    assert shown is not None
    labelled = {o["name"]: o["label"]["text"] for o in shown["objects"] if o["name"] == "number"}
    assert labelled["number"].startswith("number \u201c1984\u201d")
    assert [o["label"]["text"] for o in shown["objects"] if o["name"] == "sign"] == ["sign 0.90"]


def test_reading_is_on_by_default_and_a_setting_turns_it_off() -> None:
    pytest.importorskip("cv2")
    assert isinstance(make_perceiver(Options()), Reading)
    assert isinstance(make_perceiver(Options(text=True)), Reading)
    assert not isinstance(make_perceiver(Options(text=False)), Reading)


def test_text_is_read_only_where_the_question_needs_it_unless_always() -> None:
    def read(concepts: Concepts | None, always: bool = False) -> set[str]:
        perceived = perceive(SIGN, concepts, Reading(Panel(), always), Thresholds(), Stages())
        return {o["text"] for o in perceived.graph["objects"].values() if "text" in o}

    assert read(Concepts(classes=frozenset({"cat"}))) == set()
    assert read(Concepts(classes=frozenset({"cat"})), always=True) == {"COFFEE SHOP", "opendaily", "1984"}
    assert "1984" in read(Concepts(classes=frozenset({"number"})))
    assert "1984" in read(Concepts(classes=frozenset({"stop sign"}))), "a kind of sign"
    assert "1984" in read(None), "no question: everything is looked for"
    assert needs_text(mentioned("What does the sign say?")) and not needs_text(mentioned("Is there a cat?"))


def test_a_photo_is_read_once_however_often_it_is_looked_at() -> None:
    """Seek looks at a photo again, closer or refined: the text, most of a look's time, is
    read the first time only, and the second look finds the same words."""
    reading = Reading(Panel())
    first, second = Stages(), Stages()
    seen = [perceive(SIGN, None, reading, Thresholds(), stages) for stages in (first, second)]
    assert "read text" in first.seconds and "read text" not in second.seconds
    assert [{o.get("text") for o in p.graph["objects"].values()} for p in seen] == \
        [{None, "COFFEE SHOP", "opendaily", "1984"}] * 2
