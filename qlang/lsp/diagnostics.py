"""Diagnostics: what `qlangc check` says of a document, each at its exact range.

Programs: the parser's errors, or the checker's errors and warnings (`open_vocabulary` makes
unknown words warnings, as ``--open-vocabulary`` does).  Rules files: `qlang.rules.read`'s.
Knowledge files: every bad line's (`qlang.knowledge.tsv` stops at the first; here each line is
read alone).  A "did you mean" goes to the related information where the client shows it.
"""

from __future__ import annotations

from lsprotocol import types

from qlang import rules
from qlang.errors import Diagnostic, QlangError
from qlang.knowledge import tsv
from qlang.knowledge.lines import Line
from qlang.lsp.documents import Document
from qlang.lsp.languages import KNOWLEDGE, RULES
from qlang.passes.typecheck import check


def diagnostics(document: Document, *, open_vocabulary: bool, related: bool) -> list[types.Diagnostic]:
    """The document's diagnostics; with `related`, hints as related information, else in the
    message."""
    return [diagnostic(document, d, related) for d in found(document, open_vocabulary)]


def found(document: Document, open_vocabulary: bool) -> list[Diagnostic]:
    """qlang's diagnostics of a document, in the order the checkers report them."""
    if document.too_large is not None:
        return document.too_large.diagnostics
    if document.language == RULES:
        try:
            rules.read(document.source)
        except QlangError as exc:
            return exc.diagnostics
        return []
    if document.language == KNOWLEDGE:
        return _knowledge(document)
    program = document.program
    if isinstance(program, QlangError):
        return program.diagnostics
    return check(program, open_vocabulary=open_vocabulary)


def _knowledge(document: Document) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    for number, text in enumerate(document.lines, start=1):
        try:
            list(tsv.read([Line(text.removesuffix("\r"), number, document.source.name)]))
        except QlangError as exc:
            problems += exc.diagnostics
    return problems


def diagnostic(document: Document, found: Diagnostic, related: bool) -> types.Diagnostic:
    where = document.range(found.span)
    hint = [types.DiagnosticRelatedInformation(types.Location(document.uri, where), found.hint)] \
        if related and found.hint else None
    return types.Diagnostic(
        range=where,
        message=found.message if hint else found.full_message,
        severity=types.DiagnosticSeverity.Warning if found.warning else types.DiagnosticSeverity.Error,
        code=found.kind,
        source="qlang",
        related_information=hint,
    )
