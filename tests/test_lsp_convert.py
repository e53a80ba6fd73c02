"""`qlangc lsp`'s conversions with a real client (pytest-lsp), each edit applied as the protocol
says a client applies it, to buffers the client holds and files on disk: an untitled buffer is
converted in place, an open or existing target never ends holding old and new text together."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path
from pytest_lsp import LanguageClient

from qlang import api
from tests.lsp_client import client, real_program

__all__ = ["client"]  # the server, started once for this module too

pytestmark = pytest.mark.asyncio(loop_scope="module")


@dataclass
class Editor:
    """What a client holds: open buffers (version and text) by URI; files are on disk."""

    buffers: dict[str, tuple[int, str]] = field(default_factory=dict)

    def text(self, uri: str) -> str:
        if uri in self.buffers:
            return self.buffers[uri][1]
        return Path(str(to_fs_path(uri))).read_text()

    def apply(self, edit: types.WorkspaceEdit) -> None:
        """`edit` applied as the protocol says (a create that overwrites truncates the file on
        disk and leaves an open buffer as it was, as Neovim does; a versioned edit to a buffer at
        another version is refused)."""
        for change in edit.document_changes or ():
            if isinstance(change, types.CreateFile):
                path = Path(str(to_fs_path(change.uri)))
                options = change.options or types.CreateFileOptions()
                if options.overwrite or not path.exists():
                    path.write_text("")
                else:
                    assert options.ignore_if_exists, f"{change.uri} exists: the create fails"
            else:
                assert isinstance(change, types.TextDocumentEdit)
                uri, version = change.text_document.uri, change.text_document.version
                if version is not None:
                    assert self.buffers[uri][0] == version, "the buffer moved on: refused"
                self.edited(uri, change.edits)
        for uri, edits in (edit.changes or {}).items():
            self.edited(uri, edits)

    def edited(self, uri: str, edits: object) -> None:
        text = self.text(uri)
        lines = text.split("\n")
        offsets = [sum(len(line) + 1 for line in lines[:n]) for n in range(len(lines))]
        for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            start = offsets[e.range.start.line] + e.range.start.character
            end = offsets[e.range.end.line] + e.range.end.character
            text = text[:start] + e.new_text + text[end:]
        if uri in self.buffers:
            self.buffers[uri] = (self.buffers[uri][0] + 1, text)
        else:
            Path(str(to_fs_path(uri))).write_text(text)


async def converted(client: LanguageClient, uri: str, target: str) -> types.CodeAction:
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0), types.Position(0, 0)),
        types.CodeActionContext(diagnostics=[], only=[f"source.convert.{target}"])))
    (action,) = actions
    assert isinstance(action, types.CodeAction)
    return action


async def open_at(client: LanguageClient, uri: str, text: str) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="qlang", version=1, text=text)))
    await client.text_document_document_symbol_async(  # answered once the open is handled
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri)))


@pytest.mark.parametrize("uri", ["file://", "untitled:Untitled-1"])
async def test_a_buffer_with_no_file_is_converted_in_place(client: LanguageClient, uri: str):
    text = real_program(10, "code")
    await open_at(client, uri, text)
    action = await converted(client, uri, "flat")
    assert action.edit is not None and not action.edit.document_changes
    editor = Editor({uri: (1, text)})
    editor.apply(action.edit)
    assert list(action.edit.changes or ()) == [uri]
    assert api.parse(editor.text(uri), "flat") == api.parse(text, "code")


async def test_converting_onto_an_open_file_replaces_its_text_after_asking(client: LanguageClient,
                                                                        tmp_path: Path):
    text, old = real_program(11, "code"), "scene(0).\nexist(1, 0).\nend(1).\n"
    source, target = from_fs_path(str(tmp_path / "q.qc")), from_fs_path(str(tmp_path / "q.qf"))
    assert source and target
    (tmp_path / "q.qf").write_text(old)
    await open_at(client, source, text)
    await open_at(client, target, old)
    action = await converted(client, source, "flat")
    assert action.edit is not None and action.title == "Convert to flat (replacing open q.qf)"
    (edit,) = action.edit.document_changes or ()
    assert isinstance(edit, types.TextDocumentEdit) and edit.text_document.version == 1
    (change,) = edit.edits
    assert isinstance(change, types.AnnotatedTextEdit)
    annotation = (action.edit.change_annotations or {})[change.annotation_id]
    assert annotation.needs_confirmation
    editor = Editor({target: (1, old)})
    editor.apply(action.edit)
    assert api.parse(editor.text(target), "flat") == api.parse(text, "code")
    assert (tmp_path / "q.qf").read_text() == old  # the file is saved by the user, not the edit


async def test_converting_onto_an_existing_file_writes_a_new_one(client: LanguageClient, tmp_path: Path):
    text, old = real_program(12, "code"), "exist(select(scene(), cat))\n"
    source = from_fs_path(str(tmp_path / "q.qc"))
    assert source
    (tmp_path / "q.qn").write_text(old)
    await open_at(client, source, text)
    action = await converted(client, source, "nested")
    assert action.edit is not None and action.title == "Convert to nested (as q-2.qn: q.qn exists)"
    Editor().apply(action.edit)
    assert (tmp_path / "q.qn").read_text() == old
    assert api.parse((tmp_path / "q-2.qn").read_text(), "nested") == api.parse(text, "code")
    for n in range(2, 10):
        (tmp_path / f"q-{n}.qn").write_text(old)
    action = await converted(client, source, "nested")
    assert action.disabled is not None and "q.qn and the 8 names after it exist" in action.disabled.reason
