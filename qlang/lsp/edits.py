"""Formatting (`qlangc fmt`: idempotent; a text it cannot format says why) and code actions
converting a document to each other syntax (`qlangc compile --to`), each through `qlang.api`.

A conversion writes the file beside the document with the target syntax's extension
(``q.qc`` -> ``q.qf``), so that each file stays in the language its name says; a document with
no file (an untitled buffer) is converted in place; an open target is replaced whole, the
client asking first; an existing one is left alone for a new name (`_written`).  A program
the target cannot express gets the action disabled, with the reason.  A first-line marker is
kept by formatting.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from urllib.parse import urlparse

from lsprotocol import types
from pygls.uris import to_fs_path

from qlang import api
from qlang.errors import QlangError, error
from qlang.lsp import languages
from qlang.lsp.documents import Document
from qlang.passes.typecheck import check
from qlang.syntax import SYNTAXES

#: The code action kind of converting to syntax X is this, then ".X".
CONVERT = f"{types.CodeActionKind.Source.value}.convert"


class Unformatted(Exception):
    """Why a document is not formatted, in a line the editor shows."""


def formatting(document: Document) -> list[types.TextEdit]:
    """The edit that formats the document (none when it is formatted); raises `Unformatted`
    for a text that is no program, or one with errors (the first said, located)."""
    if document.language not in SYNTAXES:
        raise Unformatted(f"not formatted: formatting is for programs, this is a {document.language} file")
    try:
        if isinstance(document.program, QlangError):
            raise document.program
        text = api.format(document.text, document.language, name=document.source.name) + "\n"
    except QlangError as exc:  # or a program its own syntax cannot print (too large to write out nested)
        raise Unformatted(_first(exc)) from None
    if languages.marker(document.text) is not None:
        text = document.lines[0] + "\n" + text
    return [types.TextEdit(document.whole, text)] if text != document.text else []


def _first(exc: QlangError) -> str:
    """The first of an error's diagnostics, where it is, and how many more there are."""
    first, more = exc.diagnostics[0], len(exc.diagnostics) - 1
    where = f" (line {first.span.line}, column {first.span.column})" if first.span else ""
    also = f", and {more} more" if more else ""
    return f"not formatted: {first.full_message}{where}{also}"


#: Finds the document the client has open at a URI (None: not open).
Opened = Callable[[str], Document | None]
#: The most new names tried beside a file that exists (``q-2.qf`` .. ``q-9.qf``).
NAMES = 9
#: The change annotation of an edit that replaces an open document's text: the client asks first.
REPLACES = "qlang.replaces"


def conversions(document: Document, only: list[str] | None, opened: Opened) -> list[types.CodeAction]:
    """An action per other syntax, of the kinds the client asked for (`only`), for a program
    that type-checks (as `qlangc compile` converts only those; unknown words are no obstacle)."""
    if document.language not in SYNTAXES:
        return []
    program = document.program
    if isinstance(program, QlangError) or any(not d.warning for d in check(program, open_vocabulary=True)):
        return []
    actions = []
    for target in SYNTAXES:
        kind = f"{CONVERT}.{target}"
        if target == document.language or (only and not any(kind.startswith(k) for k in only)):
            continue
        title = f"Convert to {target}"
        try:
            text = api.convert(document.text, target, from_=document.language, name=document.source.name)
            where, edit = _written(document, target, text + "\n", opened)
        except QlangError as exc:
            actions.append(types.CodeAction(title=title, kind=kind,
                                            disabled=types.CodeActionDisabled(exc.diagnostics[0].full_message)))
            continue
        actions.append(types.CodeAction(title=title + where, kind=kind, edit=edit))
    return actions


def _written(document: Document, target: str, text: str, opened: Opened) -> tuple[str, types.WorkspaceEdit]:
    """Where `text` goes (for the action's title) and the edit writing it there, which never
    leaves old and new text together: in place for a document with no file (an untitled
    buffer); over the whole text of the target file where the client has it open, the client
    asking first; else in a new file, beside the document or, where that file exists, under the
    first free name after it (whether a file exists is all the server learns of the disk)."""
    beside = languages.path_for(document.uri, target)
    if beside is None or beside == document.uri:
        return "", types.WorkspaceEdit(changes={document.uri: [types.TextEdit(document.whole, text)]})
    shown = posixpath.basename(urlparse(beside).path)
    open_target = opened(beside)
    if open_target is not None:
        return f" (replacing open {shown})", _replaced(open_target, text, shown)
    free = next((uri for uri in _names(beside) if opened(uri) is None and not _exists(uri)), None)
    if free is None:
        raise error(QlangError, "convert", f"{shown} and the {NAMES - 1} names after it exist: "
                    "convert an untitled buffer, or move them")
    start = types.Range(types.Position(0, 0), types.Position(0, 0))
    edit = types.WorkspaceEdit(document_changes=[
        types.CreateFile(uri=free, options=types.CreateFileOptions(ignore_if_exists=True)),
        types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(uri=free, version=None),
                               [types.TextEdit(start, text)]),
    ])
    named = posixpath.basename(urlparse(free).path)
    return ("" if free == beside else f" (as {named}: {shown} exists)"), edit


def _replaced(target: Document, text: str, shown: str) -> types.WorkspaceEdit:
    """The edit replacing the whole text of the open document `target`, at the version the
    server has (a client whose buffer moved on refuses it), annotated as needing confirmation."""
    return types.WorkspaceEdit(
        document_changes=[types.TextDocumentEdit(
            types.OptionalVersionedTextDocumentIdentifier(uri=target.uri, version=target.version),
            [types.AnnotatedTextEdit(annotation_id=REPLACES, range=target.whole, new_text=text)])],
        change_annotations={REPLACES: types.ChangeAnnotation(
            label=f"Replace the text of {shown}", needs_confirmation=True,
            description=f"{shown} is open: its text is replaced by the conversion")})


def _names(beside: str) -> list[str]:
    """The file beside, then ``q-2.qf`` to ``q-9.qf``."""
    parsed = urlparse(beside)
    root, extension = posixpath.splitext(parsed.path)
    return [beside, *(parsed._replace(path=f"{root}-{n}{extension}").geturl() for n in range(2, NAMES + 1))]


def _exists(uri: str) -> bool:
    path = to_fs_path(uri)
    return path is None or os.path.lexists(path)
