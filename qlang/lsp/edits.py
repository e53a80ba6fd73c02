"""Formatting (`qlangc fmt`: idempotent; a text it cannot format says why) and code actions
converting a document to each other syntax (`qlangc compile --to`), each through `qlang.api`.

A conversion writes the file beside the document with the target syntax's extension
(``q.qc`` -> ``q.qf``), so that each file stays in the language its name says; a document with
no file (an untitled buffer) is converted in place.  A program the target cannot express gets
the action disabled, with the reason.  A first-line marker is kept by formatting.
"""

from __future__ import annotations

from lsprotocol import types

from qlang import api
from qlang.errors import QlangError
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


def conversions(document: Document, only: list[str] | None) -> list[types.CodeAction]:
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
        try:
            text = api.convert(document.text, target, from_=document.language, name=document.source.name)
        except QlangError as exc:
            actions.append(types.CodeAction(
                title=f"Convert to {target}", kind=kind,
                disabled=types.CodeActionDisabled(exc.diagnostics[0].full_message)))
            continue
        actions.append(types.CodeAction(title=f"Convert to {target}", kind=kind,
                                        edit=_written(document, target, text + "\n")))
    return actions


def _written(document: Document, target: str, text: str) -> types.WorkspaceEdit:
    """The edit writing `text` to the file beside the document for `target`, or in its place."""
    beside = languages.path_for(document.uri, target)
    if beside is None or beside == document.uri:
        return types.WorkspaceEdit(changes={document.uri: [types.TextEdit(document.whole, text)]})
    start = types.Range(types.Position(0, 0), types.Position(0, 0))
    return types.WorkspaceEdit(document_changes=[
        types.CreateFile(uri=beside, options=types.CreateFileOptions(overwrite=True)),
        types.TextDocumentEdit(types.OptionalVersionedTextDocumentIdentifier(uri=beside, version=None),
                               [types.TextEdit(start, text)]),
    ])
