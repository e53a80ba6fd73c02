"""The language server: pygls over stdio, each request answered by its module.

Diagnostics are published on open, on every change and when the settings change; requests read
the document's current text, analysed once per version (`documents.Document`).  Nothing here
loads a model: every answer comes from the parsers, the checker, the table and the ontology.

Settings (initialization options, or ``workspace/didChangeConfiguration`` under ``qlang``):
``openVocabulary``: unknown words are warnings, as ``qlangc check --open-vocabulary`` makes them.

A client is trusted no more than a file: the server reads only the documents it was sent (a
request about any other URI is refused, and nothing is read from disk), answers every request
(ServerNotInitialized before ``initialize``, InvalidParams for params of the wrong shape, a
position out of range among them), never puts a traceback in a response, and reads at most
`limits.LSP_MESSAGE` of one message (a larger one, or a header line past `HEADER` bytes, ends
the server, as the end of its input does).
"""

from __future__ import annotations

import logging
import sys
from importlib.metadata import version
from typing import Any, BinaryIO
from urllib.parse import unquote

import cattrs
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcServerNotInitialized
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from qlang import limits
from qlang.errors import Diagnostic
from qlang.lsp import completion, diagnostics, edits, hover, navigation
from qlang.lsp.documents import Document
from qlang.ontology import load
from qlang.syntax import SYNTAXES

logger = logging.getLogger(__name__)

#: The characters after which a client asks for completion unasked.
TRIGGERS = ["(", ",", " "]
SETTING = "openVocabulary"


#: The most bytes of a header line the server reads (``Content-Length: N`` takes under 40).
HEADER = 1024
#: What a client may send before ``initialize`` (anything else is refused or dropped).
_BEFORE_INITIALIZE = {types.INITIALIZE, types.EXIT}


class _Protocol(LanguageServerProtocol):
    """pygls's protocol, answering what it would leave unanswered or answer with a traceback."""

    initialized = False

    def structure_message(self, data: dict[str, Any]) -> Any:
        """A message read; a request whose params have the wrong shape is answered InvalidParams
        here (pygls would only log it, and the client would wait for ever)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            request = data.get("id") if "method" in data else None
            if type(request) in (int, str):
                said = "; ".join(cattrs.transform_error(exc.__cause__)) if isinstance(
                    exc.__cause__, cattrs.ClassValidationError) else "not the params it takes"
                refused = JsonRpcInvalidParams(f"{str(data.get('method'))[:100]}: {said}")
                self._send_response(request, None, refused.to_response_error())
            raise

    def _handle_request(self, msg_id: Any, method_name: str, params: Any) -> None:
        if method_name == types.INITIALIZE:
            self.initialized = True
        if not self.initialized:
            refused = JsonRpcServerNotInitialized("the server is not initialized: send initialize first")
            self._send_response(msg_id, None, refused.to_response_error())
            return
        super()._handle_request(msg_id, method_name, params)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        if self.initialized or method_name in _BEFORE_INITIALIZE:
            super()._handle_notification(method_name, params)

    def _send_response(self, msg_id: Any, result: Any | None = None,
                       error: types.ResponseError | None = None) -> None:
        """A response, never with a traceback (pygls puts one in an internal error's data)."""
        if error is not None:
            error = types.ResponseError(error.code, error.message.split("\n", 1)[0])
        super()._send_response(msg_id, result, error)


class _BoundedInput:
    """Standard input read within bounds: a header line longer than `HEADER` bytes or a message
    longer than `limits.LSP_MESSAGE` reads as the end of the input (logged), before anything
    larger is held."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def readline(self) -> bytes:
        line = self.stream.readline(HEADER)
        if len(line) == HEADER and not line.endswith(b"\n"):
            logger.error("a header line longer than %d bytes: the input is no protocol, stopping", HEADER)
            return b""
        return line

    def read(self, size: int) -> bytes:
        if size > limits.LSP_MESSAGE.bytes:
            logger.error("a message of %d bytes exceeds %s: stopping", size, limits.LSP_MESSAGE.bound())
            return b""
        return self.stream.read(size)


class Server(LanguageServer):
    def __init__(self, open_vocabulary: bool) -> None:
        super().__init__("qlang", version("qlang"), protocol_cls=_Protocol)
        self.open_vocabulary = open_vocabulary
        self.documents: dict[str, Document] = {}

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over standard input and output, the input read within bounds (`_BoundedInput`)."""
        bounded: Any = _BoundedInput(stdin or sys.stdin.buffer)
        super().start_io(bounded, stdout)

    def document(self, uri: str) -> Document:
        """The document's current text, analysed once (a request after a change reads anew);
        raises InvalidParams for a document the client has not opened (never read from disk)."""
        if unquote(uri) not in self.workspace.text_documents:
            raise JsonRpcInvalidParams(f"the document {uri[:200]} is not open: the server reads only "
                                       "the documents a client opens")
        current = self.workspace.get_text_document(uri)
        text = current.source
        kept = self.documents.get(uri)
        if kept is None or kept.text is not text or kept.version != current.version:
            kept = self.documents[uri] = Document(uri, text, current.version, self.workspace.position_codec)
        return kept

    def opened(self, uri: str) -> Document | None:
        """The document open at `uri`, named as the client named it; None if none is."""
        current = self.workspace.text_documents.get(unquote(uri))
        return None if current is None else self.document(current.uri)

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
        try:
            return edits.formatting(ls.document(params.text_document.uri))
        except edits.Unformatted as exc:  # said where the user looks, not left to silence
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, str(exc)))
            return []

    kinds = [f"{edits.CONVERT}.{name}" for name in SYNTAXES]

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=kinds))
    def actions(ls: Server, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = [getattr(kind, "value", kind) for kind in params.context.only or ()] or None
        return edits.conversions(ls.document(params.text_document.uri), only, ls.opened)

    return server
