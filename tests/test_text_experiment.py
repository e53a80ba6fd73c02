"""qlang's labelled text set and `qlangc experiment text` (qlang.evaluate.text)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qlang.evaluate import text
from qlang.text.extract import NO_ANSWER
from tests.conftest import run


def test_answers_are_scored_as_squad_scores_them() -> None:
    assert text.normal("The Home-team!") == "hometeam"
    assert text.scores("the fouls", ["fouls"]) == (1.0, 1.0)
    assert text.scores("polyester mesh that dries", ["a light polyester mesh"]) == (0.0, pytest.approx(4 / 7))
    assert text.scores(None, []) == (1.0, 1.0)
    assert text.scores(None, ["x"]) == (0.0, 0.0)
    assert text.scores("x", []) == (0.0, 0.0)


def test_ocr_word_accuracy_ignores_case_spaces_and_punctuation() -> None:
    assert text.words_read("Open daily", "OPENDAILY 9am") == 1.0
    assert text.words_read("Baker Street", "Baker Str.") == 0.5
    assert text.words_read("$2.99", "Apples $2.99") == 1.0


def test_the_labelled_set_is_large_enough_and_its_spans_are_real() -> None:
    asked = text.questions()
    assert len(asked) >= 100 and len({q.id for q in asked}) == len(asked)
    assert {q.set for q in asked} == {"descriptions", "glosses"}
    docs = text.documents()
    for q in asked:
        about = [docs.documents[n].text for n in docs.about([q.about])]
        assert about, f"{q.id}: no documents about {q.about}"
        for answer in q.answers:
            assert any(answer in body for body in about), f"{q.id}: {answer!r} is no span of its documents"
        assert NO_ANSWER not in q.answers


def test_every_photo_question_has_its_photo() -> None:
    photos = text.photo_questions()
    assert len(photos) >= 30
    for q in photos:
        assert q.photo.startswith("skimage:") or (text.SET / q.photo).is_file()


def test_the_experiment_writes_its_report_and_plot(tmp_path: Path) -> None:
    code, _, errors = run("experiment", "text", "--out", str(tmp_path), "--limit", "3", "--baseline-only")
    assert code == 0, errors
    report = (tmp_path / "report.md").read_text()
    for heading in ("## match: recall@k", "| bm25 |", "| dense |", "| lexical | all | 3 |", "word accuracy"):
        assert heading in report
    assert (tmp_path / "text.png").stat().st_size > 1000
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == 3 + 3 + 3 + 3
