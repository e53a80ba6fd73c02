"""Documents files, the bundled glosses and what --docs names (qlang.text.documents, glosses, sources)."""

from __future__ import annotations

from pathlib import Path

import pytest

from qlang.errors import QlangError
from qlang.text import glosses, sources
from qlang.text.documents import Documents, DocumentsError, Passage, about_key, dumps, parse, read


def test_a_documents_file_reads_about_text_and_source() -> None:
    data = (b'{"about": "Cup", "text": "A cup holds tea.", "source": "notes"}\n\n'
            b'{"about": 2449847, "text": "The man is the captain."}\n')
    assert parse(data, "d.jsonl") == [Passage("Cup", "A cup holds tea.", "notes"),
                                      Passage("2449847", "The man is the captain.", "d.jsonl")]


@pytest.mark.parametrize(("line", "column", "message"), [
    ('{"about": "cup", "text": "x"', 29, "not JSON"),
    ('["cup", "x"]', 1, "a document is a JSON object"),
    ('{"about": "cup"}', 1, 'a document needs "text"'),
    ('{"about": "cup", "text": 7}', 18, '"text" must be a non-empty string'),
    ('{"about": "  ", "text": "x"}', 2, '"about" must be a non-empty string'),
    ('{"about": "cup", "text": "x", "url": "y"}', 31, "a document has no field 'url'"),
    ('{"about": "cup", "text": "x", "deep": ' + "[" * 300 + "]" * 300 + "}", 238, "nested deeper"),
    ('{"about": "cup", "text": "a\\u0000b"}', 18, '"text" holds NUL'),
    ('{"about": "\\u0000", "text": "x"}', 2, '"about" holds NUL'),
])
def test_a_bad_line_is_an_error_at_its_line_and_column(line: str, column: int, message: str) -> None:
    data = f'{{"about": "cup", "text": "fine"}}\n{line}\n'.encode()
    with pytest.raises(DocumentsError) as caught:
        parse(data, "docs.jsonl")
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.span is not None and (diagnostic.span.line, diagnostic.span.column) == (2, column)
    assert message in diagnostic.message
    assert caught.value.render().startswith(f"docs.jsonl:2:{column}: error: ")


def test_a_line_that_is_not_utf8_is_located() -> None:
    with pytest.raises(DocumentsError, match=r"d.jsonl:1:16: error: not UTF-8"):
        parse(b'{"about": "caf\xc3\xa9\xff", "text": "x"}', "d.jsonl")


def test_a_file_too_large_or_unreadable_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"about": "cup", "text": "' + "x" * 3000 + '"}\n')
    monkeypatch.setenv("QLANG_MAX_DOCUMENTS_MB", "0.001")
    with pytest.raises(QlangError, match="QLANG_MAX_DOCUMENTS_MB"):
        read(path)
    with pytest.raises(DocumentsError, match="cannot be read"):
        read(tmp_path / "missing.jsonl")


def test_documents_are_found_by_id_or_class_as_programs_spell_it() -> None:
    docs = Documents([Passage("Ice_Cream", "cold", "s"), Passage("7", "seven", "s"),
                      Passage("ice cream", "sweet", "s")])
    assert docs.about(["ice cream"]) == [0, 2]
    assert docs.about(["7", "dog"]) == [1]
    assert about_key("  Ice  CREAM ") == "ice cream"


def test_written_documents_read_back() -> None:
    docs = [Passage("cup", 'a "cup"\nof tea', "me"), Passage("42", "ünïcode ☕", "you")]
    assert parse(dumps(docs).encode(), "x") == docs


def test_the_glosses_give_each_class_its_sense_the_bundled_base_chose() -> None:
    by_class = {d.about: d for d in glosses.glosses()}
    assert "used for drinking" in by_class["cup"].text
    assert by_class["cup"].source == "WordNet 3.0 cup.n.01"
    assert "appliance" in by_class["toaster"].text  # the appliance, not one who proposes a toast
    assert len(by_class) > 1000


def test_the_glosses_are_cached_as_a_documents_file() -> None:
    glosses.glosses()
    assert tuple(read(glosses.TABLE)) == glosses.glosses()


def test_docs_names_default_none_and_files(tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text('{"about": "cup", "text": "Mine is blue."}\n')
    assert len(sources.documents([sources.NONE])) == 0
    assert len(sources.documents()) == len(glosses.glosses())
    mine = sources.documents([str(path)])
    assert [d.text for d in mine.documents] == ["Mine is blue."]
    both = sources.documents([str(path), sources.DEFAULT])
    assert len(both) == len(glosses.glosses()) + 1
