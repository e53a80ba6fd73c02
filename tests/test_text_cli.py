"""`qlangc text match | extract | read`: the text half from the command line."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import FIXTURES, run

DESCRIPTIONS = str(Path(__file__).resolve().parents[1] / "qlang" / "data" / "text" / "descriptions.jsonl")


def test_match_ranks_the_objects_whose_documents_answer() -> None:
    code, out, _ = run("text", "match", "Who treats the injured players?", "--docs", DESCRIPTIONS, "-k", "2")
    assert code == 0
    first = out.splitlines()[0].split("\t")
    assert first[:2] == ["1.000", "2752960"] and "nurses" in first[2]
    assert len(out.splitlines()) == 2


def test_the_glosses_are_the_default_documents() -> None:
    code, out, _ = run("text", "match", "a small container used for drinking", "-k", "1")
    assert code == 0 and out.split("\t")[1] in {"cup", "cups"}


def test_extract_quotes_the_span_in_its_document() -> None:
    code, out, _ = run("text", "extract", "What is a cup used for?", "--about", "cup",
                       "--extractor", "lexical")
    assert code == 0
    assert out.splitlines() == ["drinking", "  cup (WordNet 3.0 cup.n.01, characters 40-48): a small open "
                                "container usually used for [[drinking]]; usually has a handle"]


def test_no_answer_exits_1() -> None:
    code, out, _ = run("text", "extract", "Who made it?", "--about", "kettle", "--docs", DESCRIPTIONS,
                       "--extractor", "lexical")
    assert (code, out) == (1, "no answer\n")


def test_a_bad_documents_file_is_a_located_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"about": "cup", "text": "fine"}\n{"about": "cup", "txt": "typo"}\n')
    code, _, errors = run("text", "match", "cup", "--docs", str(bad))
    assert code == 1
    assert errors.startswith(f"{bad}:2:18: error: a document has no field 'txt'")


def test_read_lists_the_regions_of_a_photo() -> None:
    code, out, _ = run("text", "read", str(FIXTURES / "text" / "sign.png"))
    assert code == 0
    assert [line.split("\t")[1] for line in out.splitlines()] == ["words", "words", "number"]
    assert out.splitlines()[-1].endswith("\t1984")
