"""The language server under a real client over stdio (pytest-lsp), shared by the LSP tests:
one server per test module (import `client` into it), recording every publication of
diagnostics, and real GQA programs to open."""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Sequence

import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from qlang import api
from qlang.syntax import SYNTAXES
from tests.conftest import all_questions

SERVER = [sys.executable, "-c", "from qlang.commands.main import main; main()", "lsp"]
#: Every publication of diagnostics, by document (pytest-lsp's client keeps the last list only).
PUBLISHED: dict[str, list[Sequence[types.Diagnostic]]] = defaultdict(list)


def recording_client() -> LanguageClient:
    """pytest-lsp's client, recording every publication of diagnostics."""
    def record(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        PUBLISHED[params.uri].append(params.diagnostics)

    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES,
                                   types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: record})
    return client


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=recording_client),
                    scope="module")
async def client(lsp_client: LanguageClient):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


def real_program(index: int, syntax: str) -> str:
    """A real GQA program (the `index`-th with at least 5 steps), in `syntax`."""
    programs = [q["semantic"] for q in all_questions().values() if len(q["semantic"]) >= 5]
    return SYNTAXES[syntax].print(api.parse(str(programs[index]).replace("'", '"'), "gqa"))
