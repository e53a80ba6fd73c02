"""Documents: texts bound to a scene's objects or to classes, NeuroQL's reviews and descriptions.

A documents file is JSON lines, one document a line::

    {"about": "cup", "text": "A cup is used for drinking tea or coffee.", "source": "my notes"}
    {"about": "2449847", "text": "The man in shorts is the team's captain."}

``about`` names an object (its id in the scene) or a class (a word as programs write it, any
case, ``_`` a space); ``text`` is the document; ``source``, optional, says where it comes from
(the file's name when left out).  The file is read within `limits.DOCUMENTS`, each line within
`limits.LINE` by qlang's bounded JSON reader, and the first bad line is an error at its line and
column.

>>> [d.text for d in parse(b'{"about": "Cup", "text": "a small open container"}', "d.jsonl")]
['a small open container']
>>> parse(b'{"about": "cup"}', "d.jsonl")
Traceback (most recent call last):
...
qlang.text.documents.DocumentsError: d.jsonl:1:1: error: a document needs "text" (a string)
  {"about": "cup"}
  ^~~~~~~~~~~~~~~~
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from qlang import jsontext, limits
from qlang.errors import Diagnostic, QlangError, Source, Span, error, shown

#: The fields a document line may have, and whether each must be there.
FIELDS = {"about": True, "text": True, "source": False}
#: The longest text a document may hold, in characters (a long review is a few thousand).
MAX_TEXT = 100_000
#: The longest ``about`` (an object id or a class).
MAX_ABOUT = 200


class DocumentsError(QlangError):
    """A documents file is malformed, too large or cannot be read."""


@dataclass(frozen=True, slots=True)
class Passage:
    """A document: a text about an object (by id) or a class (by word), a passage as retrievers
    call what they retrieve."""

    about: str
    text: str
    source: str

    @property
    def key(self) -> str:
        """What it is about as bindings look it up: an id as written, a class as programs spell it."""
        return about_key(self.about)


def about_key(about: str) -> str:
    """An ``about`` as documents are looked up by: lower case, ``_`` a space, single spaces.

    >>> about_key(" Ice_Cream  Cone "), about_key("2449847")
    ('ice cream cone', '2449847')
    """
    return " ".join(about.replace("_", " ").lower().split())


class Documents:
    """Documents, looked up by what they are about."""

    def __init__(self, documents: Iterable[Passage] = ()) -> None:
        self.documents: tuple[Passage, ...] = tuple(documents)

    def __len__(self) -> int:
        return len(self.documents)

    def __add__(self, other: Documents) -> Documents:
        return Documents(self.documents + other.documents)

    @cached_property
    def _by_key(self) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for number, document in enumerate(self.documents):
            found.setdefault(document.key, []).append(number)
        return found

    def marked(self, number: int, start: int, end: int, context: int = 80) -> str:
        """Characters `start` to `end` of document `number` quoted with the span marked [[thus]]
        and at most `context` characters around it, after what the document is about and where
        it comes from.

        >>> Documents([Passage("cup", "A cup is used for drinking.", "notes")]).marked(0, 18, 26)
        'cup (notes, characters 18-26): A cup is used for [[drinking]].'
        """
        passage = self.documents[number]
        text = passage.text
        before, after = text[max(0, start - context):start], text[end:end + context]
        if start > context:  # cut at a space, not in a word
            before = "…" + before[before.find(" ") + 1:]
        if len(text) > end + context:
            after = after[:after.rfind(" ")] + "…"
        return (f"{passage.about} ({passage.source}, characters {start}-{end}): "
                f"{before}[[{text[start:end]}]]{after}")

    def about(self, keys: Iterable[str]) -> list[int]:
        """The numbers of the documents about any of `keys` (ids or classes), each once, in order."""
        numbers = {n for key in keys for n in self._by_key.get(about_key(key), ())}
        return sorted(numbers)


#: The source of the texts a scene's objects show (a photo's words).
PHOTO = "the photo"


def read(path: str | os.PathLike[str]) -> list[Passage]:
    """The documents of the file `path`; raises `DocumentsError` at its first bad line, where it
    cannot be read or is larger than `limits.DOCUMENTS`."""
    try:
        data = limits.read(path, limits.DOCUMENTS)
    except OSError as exc:
        raise error(DocumentsError, "documents", f"cannot be read: {exc.strerror or exc}",
                    path=path) from None
    return parse(data, os.fspath(path))


def parse(data: bytes, name: str) -> list[Passage]:
    """The documents of documents-file `data` read from `name` (which a line without a source
    gets as its source); raises `DocumentsError` at the first bad line."""
    found = []
    for number, raw in enumerate(jsontext.split_lines(data), start=1):
        if raw.strip():
            found.append(_document(raw, number, name))
    return found


def _document(raw: bytes, number: int, name: str) -> Passage:
    if len(raw) > limits.LINE.bytes:
        raise _error(f"a line longer than {limits.LINE.bound()}", "", number, name)
    try:
        text = raw.decode("utf-8").removesuffix("\r")
    except UnicodeDecodeError as exc:
        shown_text = raw.decode("utf-8", "replace")
        column = len(raw[:exc.start].decode("utf-8", "replace")) + 1
        raise _error(f"not UTF-8 text ({exc.reason})", shown_text, number, name, column) from None
    try:
        value = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        raise _error(f"not JSON: {exc.msg}", text, number, name, exc.colno) from None
    if not isinstance(value, dict):
        raise _error("a document is a JSON object {\"about\", \"text\", \"source\"}", text, number, name,
                     1, len(text))
    for key in value:
        if key not in FIELDS:
            raise _error(f"a document has no field {shown(key)}", text, number, name, *_place(text, key),
                         hint=f"its fields are {', '.join(FIELDS)}")
    about = _field(value, "about", text, number, name, MAX_ABOUT)
    body = _field(value, "text", text, number, name, MAX_TEXT)
    source = _field(value, "source", text, number, name, MAX_ABOUT) if "source" in value else name
    return Passage(about.strip(), body, source)


def _field(value: dict[str, object], key: str, text: str, number: int, name: str, most: int) -> str:
    """Field `key` of a document line, a non-empty string of at most `most` characters (an
    integer ``about``, an id, is taken as its digits)."""
    found = value.get(key)
    if key == "about" and isinstance(found, int) and not isinstance(found, bool):
        found = str(found)
    if found is None:
        raise _error(f'a document needs "{key}" (a string)', text, number, name, 1, len(text))
    where = _place(text, key)
    if not isinstance(found, str) or not found.strip():
        raise _error(f'"{key}" must be a non-empty string', text, number, name, *where)
    if len(found) > most:
        raise _error(f'"{key}" holds {len(found):,} characters (at most {most:,})', text, number, name,
                     *where)
    if "\0" in found:  # no solver can be handed it (the JSON reader refuses lone surrogates)
        raise _error(f'"{key}" holds NUL, which is no text', text, number, name, *where)
    return found


def _place(text: str, key: str) -> tuple[int, int]:
    """The column and width of `key` as a field name in a line (1, 1 where it is not found as written)."""
    written = re.search(rf'"{re.escape(key)}"\s*:', text)
    return (written.start() + 1, len(key) + 2) if written else (1, 1)


def _error(message: str, text: str, number: int, name: str, column: int = 1, width: int = 1, *,
           hint: str | None = None) -> DocumentsError:
    span = Span(number, column, number, column + max(1, width))
    return DocumentsError([Diagnostic("documents", message, span, hint)], Source(text, name, number))


def dumps(documents: Sequence[Passage]) -> str:
    """Documents as a documents file's text (what `parse` reads back)."""
    return "".join(json.dumps({"about": d.about, "text": d.text, "source": d.source}, ensure_ascii=False)
                   + "\n" for d in documents)
