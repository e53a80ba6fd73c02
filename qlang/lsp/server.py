"""The language server: pygls over stdio, each request answered by its module.

Diagnostics are published on open, on every change and when the settings change; requests read
the document's current text, analysed once per version (`documents.Document`).  Nothing here
loads a model: every answer comes from the parsers, the checker, the table and the ontology.

Settings (initialization options, or ``workspace/didChangeConfiguration`` under ``qlang``):
``openVocabulary``: unknown words are warnings, as ``qlangc check --open-vocabulary`` makes them.
"""

from __future__ import annotations

import logging
from importlib.metadata import version
from typing import Any

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer

from qlang.errors import Diagnostic
from qlang.lsp import completion, diagnostics, edits, hover, navigation
from qlang.lsp.documents import Document
from qlang.ontology import load
from qlang.syntax import SYNTAXES

logger = logging.getLogger(__name__)

#: The characters after which a client asks for completion unasked.
TRIGGERS = ["(", ",", " "]
SETTING = "openVocabulary"


class Server(LanguageServer):
    def __init__(self, open_vocabulary: bool) -> None:
        super().__init__("qlang", version("qlang"))
        self.open_vocabulary = open_vocabulary
        self.documents: dict[str, Document] = {}

    def document(self, uri: str) -> Document:
        """The document's current text, analysed once (a request after a change reads anew)."""
        current = self.workspace.get_text_document(uri)
        text = current.source
        kept = self.documents.get(uri)
        if kept is None or kept.text is not text or kept.version != current.version:
            kept = self.documents[uri] = Document(uri, text, current.version, self.workspace.position_codec)
        return kept

    def publish(self, uri: str) -> None:
        document = self.document(uri)
        related = bool(get_capability(self.client_capabilities,
                                      "text_document.publish_diagnostics.related_information", False))
        try:
            found = diagnostics.diagnostics(document, open_vocabulary=self.open_vocabulary,
                                            related=related)
        except Exception as exc:  # a bug: said where the user looks, and the server goes on
            logger.exception("diagnostics of %s", uri)
            message = f"internal error: {type(exc).__name__}: {exc} (please report this as a bug)"
            found = [diagnostics.diagnostic(document, Diagnostic("internal", message), related)]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=document.version))

    def configure(self, settings: Any) -> None:
        if isinstance(settings, dict) and isinstance(settings.get(SETTING), bool):
            self.open_vocabulary = settings[SETTING]


def build(open_vocabulary: bool = False) -> Server:
    """A server with every feature registered (`start_io` runs it)."""
    server = Server(open_vocabulary)

    @server.feature(types.INITIALIZE)
    def initialize(ls: Server, params: types.InitializeParams) -> None:
        ls.configure(params.initialization_options)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Server, params: types.DidOpenTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Server, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Server, params: types.DidCloseTextDocumentParams) -> None:
        ls.documents.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: Server, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        ls.configure(settings.get("qlang", settings) if isinstance(settings, dict) else None)
        for uri in list(ls.documents):
            ls.publish(uri)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=TRIGGERS))
    def complete(ls: Server, params: types.CompletionParams) -> types.CompletionList:
        defaults = get_capability(ls.client_capabilities,
                                  "text_document.completion.completion_list.item_defaults", [])
        return completion.complete(ls.document(params.text_document.uri), params.position, load(),
                                   edit_range_default="editRange" in defaults)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: Server, params: types.HoverParams) -> types.Hover | None:
        return hover.hover(ls.document(params.text_document.uri), params.position, load())

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: Server, params: types.DefinitionParams) -> types.Location | None:
        return navigation.definition(ls.document(params.text_document.uri), params.position)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def references(ls: Server, params: types.ReferenceParams) -> list[types.Location]:
        return navigation.references(ls.document(params.text_document.uri), params.position,
                                     params.context.include_declaration)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(ls: Server, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        return navigation.symbols(ls.document(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: Server, params: types.DocumentFormattingParams) -> list[types.TextEdit]:
        return edits.formatting(ls.document(params.text_document.uri))

    kinds = [f"{edits.CONVERT}.{name}" for name in SYNTAXES]

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=kinds))
    def actions(ls: Server, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = [getattr(kind, "value", kind) for kind in params.context.only or ()] or None
        return edits.conversions(ls.document(params.text_document.uri), only)

    return server
