"""`qlangc lsp` with a real client over stdio (pytest-lsp): one server for the module, each test
opening its own documents, made from real GQA programs where a program is wanted."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from qlang import api
from qlang.asp_names import to_term
from qlang.lsp.table import written
from qlang.ontology import load
from qlang.signatures import SIGNATURES
from qlang.syntax import SYNTAXES
from tests.lsp_client import PUBLISHED, SERVER, client, real_program

__all__ = ["client"]  # the server, started once for this module

pytestmark = pytest.mark.asyncio(loop_scope="module")

#: How long any answer may take, however hostile the document (the server answers in ms).
PATIENCE = 30


_opened = 0


async def opened(client: LanguageClient, text: str, extension: str) -> tuple[str, Sequence[types.Diagnostic]]:
    """Open a new document; its URI and the diagnostics published for it."""
    global _opened
    _opened += 1
    uri = f"file:///tmp/qlang-lsp-test/{_opened}{extension}"
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="qlang", version=1, text=text)))
    return uri, await published(uri, 0)


async def published(uri: str, seen: int) -> Sequence[types.Diagnostic]:
    """The diagnostics published for `uri` after the first `seen` publications."""
    async def wait() -> Sequence[types.Diagnostic]:
        while len(PUBLISHED[uri]) <= seen:
            await asyncio.sleep(0.005)
        return PUBLISHED[uri][-1]
    return await asyncio.wait_for(wait(), PATIENCE)


async def changed(client: LanguageClient, uri: str, version: int,
                  change: types.TextDocumentContentChangeEvent) -> Sequence[types.Diagnostic]:
    seen = len(PUBLISHED[uri])
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version), [change]))
    return await published(uri, seen)


def at(text: str, word: str, offset: int = 0) -> types.Position:
    """The position of the first `word` in a one-line `text` (plus `offset` characters)."""
    line = next(n for n, line in enumerate(text.split("\n")) if word in line)
    return types.Position(line, text.split("\n")[line].index(word) + offset)


def span(text: str, word: str) -> types.Range:
    start = at(text, word)
    return types.Range(start, types.Position(start.line, start.character + len(word)))


async def labels(client: LanguageClient, uri: str, position: types.Position) -> list[str]:
    result = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), position))
    assert isinstance(result, types.CompletionList)
    return [item.label for item in result.items]


async def test_an_error_is_shown_at_its_range_with_its_hint_then_cleared_when_fixed(client: LanguageClient):
    good = real_program(0, "nested")
    bad = "query(unique(select(scene(), dihs)), colour)"
    uri, found = await opened(client, bad, ".qn")
    assert [(d.range, d.severity) for d in found] == [
        (span(bad, "dihs"), types.DiagnosticSeverity.Error),
        (span(bad, "colour"), types.DiagnosticSeverity.Error)]
    hints = [r.message for d in found for r in d.related_information or ()]
    assert hints == ["did you mean 'dish'?", "did you mean 'color'?"]
    fixed = await changed(client, uri, 2, types.TextDocumentContentChangePartial(
        range=span(bad, "dihs"), text="dish"))
    assert [d.range for d in fixed] == [span(bad, "colour")]
    cleared = await changed(client, uri, 3, types.TextDocumentContentChangePartial(
        range=span(bad, "colour"), text="color"))
    assert not cleared
    whole = await changed(client, uri, 4, types.TextDocumentContentChangeWholeDocument(text=good))
    assert not whole


async def test_a_syntax_error_of_each_program_syntax_is_located(client: LanguageClient):
    for syntax in ("nested", "code", "flat"):
        text = real_program(1, syntax)
        broken = text.replace(",", ",,", 1)
        _, found = await opened(client, broken, {"nested": ".qn", "code": ".qc", "flat": ".qf"}[syntax])
        (diagnostic,) = found
        assert diagnostic.code == "syntax" and diagnostic.range.start == at(broken, ",,", 1)


async def test_a_gqa_string_error_is_at_its_word(client: LanguageClient):
    text = "select: dihs->filter colour: red [0]->query: name [1]"
    _, found = await opened(client, text, ".qg")
    assert [d.range for d in found] == [span(text, "dihs"), span(text, "colour")]


async def test_completion_after_select_offers_classes_and_not_relations(client: LanguageClient):
    text = "query(unique(select(scene(), "
    uri, _ = await opened(client, text, ".qn")
    offered = set(await labels(client, uri, types.Position(0, len(text))))
    ontology = load()
    assert offered == {to_term(c) for c in ontology.classes}
    assert not offered & {to_term(r) for r in ontology.relations - ontology.classes}


async def test_completion_after_a_colour_category_offers_colours_only(client: LanguageClient):
    text = "exist(filter(x, color, "
    uri, _ = await opened(client, text, ".qn")
    offered = await labels(client, uri, types.Position(0, len(text)))
    assert set(offered) == {to_term(v) for v in load().categories["color"]}
    assert "wooden" not in offered and "red" in offered
    uri, _ = await opened(client, text + "bl", ".qn")  # typing narrows, the word replaced whole
    result = await client.text_document_completion_async(types.CompletionParams(
        types.TextDocumentIdentifier(uri), types.Position(0, len(text) + 2)))
    assert isinstance(result, types.CompletionList) and result.is_incomplete
    assert {i.label for i in result.items} == {w for w in offered if "bl" in w} >= {"black", "blue"}
    typed = types.Range(types.Position(0, len(text)), types.Position(0, len(text) + 2))
    assert all(isinstance(i.text_edit, types.TextEdit) and i.text_edit.range == typed for i in result.items)


async def test_completion_offers_variables_and_steps_of_the_type_wanted(client: LanguageClient):
    code = next(p for p in (real_program(i, "code") for i in range(100)) if p.startswith("var1 = unique("))
    uri, _ = await opened(client, code + "\nand(exist(", ".qc")
    last = code.count("\n") + 1
    objects = await labels(client, uri, types.Position(last, len("and(exist(")))
    truths = await labels(client, uri, types.Position(last, len("and(")))
    assert {"var1", "select", "unique", "scene"} <= set(objects) and not {"exist", "and"} & set(objects)
    assert "var1" not in truths and {"exist", "and", "verify_attr"} <= set(truths)
    flat = "scene(0). select(1, 0, car). unique(2, 1).\nverify_attr(3, "
    uri, _ = await opened(client, flat, ".qf")
    assert await labels(client, uri, types.Position(1, len("verify_attr(3, "))) == ["2"]
    assert await labels(client, uri, types.Position(1, len("verify_attr("))) == ["3"]
    uri, _ = await opened(client, flat + "2, ", ".qf")
    categories = await labels(client, uri, types.Position(1, len("verify_attr(3, 2, ")))
    assert set(categories) == {to_term(c) for c in load().categories}


async def test_hover_on_relate_gives_its_signature_and_meaning(client: LanguageClient):
    text = real_program(3, "nested")
    if "relate(" not in text:
        text = "exist(relate(select(scene(), car), table, on, subject))"
    uri, _ = await opened(client, text, ".qn")
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), at(text, "relate(", 2)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert written(SIGNATURES["relate"]) in hover.contents.value
    assert SIGNATURES["relate"].doc in hover.contents.value
    assert hover.range == span(text, "relate")


async def test_hover_on_a_word_gives_its_kind_and_parents(client: LanguageClient):
    text = "exist(select(scene(), table))"
    uri, _ = await opened(client, text, ".qn")
    hover = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri), at(text, "table", 1)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "class" in hover.contents.value and "furniture" in load().ancestors("table")
    assert "furniture" in hover.contents.value


async def test_formatting_gives_fmt_and_is_idempotent(client: LanguageClient):
    messy = real_program(4, "flat").replace("\n", "   ").replace(", ", ",")
    uri, _ = await opened(client, messy, ".qf")
    options = types.FormattingOptions(tab_size=4, insert_spaces=True)
    params = types.DocumentFormattingParams(types.TextDocumentIdentifier(uri), options)
    (edit,) = await client.text_document_formatting_async(params)
    assert edit.new_text == api.format(messy, "flat") + "\n"
    await changed(client, uri, 2, types.TextDocumentContentChangeWholeDocument(text=edit.new_text))
    assert not await client.text_document_formatting_async(params)


async def test_formatting_a_text_with_errors_says_why(client: LanguageClient):
    options = types.FormattingOptions(tab_size=4, insert_spaces=True)
    for text, extension, said in (("exist(select(scene(), cat)", ".qn", "line 1, column 27"),
                                  ("class big_cup.", ".rules", "formatting is for programs")):
        uri, _ = await opened(client, text, extension)
        seen = len(client.messages)
        assert not await client.text_document_formatting_async(
            types.DocumentFormattingParams(types.TextDocumentIdentifier(uri), options))
        (message,) = client.messages[seen:]
        assert message.type == types.MessageType.Error
        assert message.message.startswith("not formatted: ") and said in message.message


async def test_definition_and_references_of_a_code_variable(client: LanguageClient):
    text = real_program(5, "code")
    assert "var1" in text.split("\n")[-1]
    uri, _ = await opened(client, text, ".qc")
    use = text.split("\n")[-1].index("var1") + 1
    last = types.Position(text.count("\n"), use)
    location = await client.text_document_definition_async(types.DefinitionParams(
        types.TextDocumentIdentifier(uri), last))
    assert location == types.Location(uri, span(text, "var1"))
    found = await client.text_document_references_async(types.ReferenceParams(
        context=types.ReferenceContext(include_declaration=True),
        text_document=types.TextDocumentIdentifier(uri), position=last))
    assert len(found) == text.count("var1 ") + text.count("var1,") + text.count("var1)")


async def test_symbols_are_the_steps(client: LanguageClient):
    text = real_program(6, "flat")
    uri, _ = await opened(client, text, ".qf")
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        types.TextDocumentIdentifier(uri)))
    assert [s.name for s in symbols] == [f"{n}: {line.split('(')[0]}" for n, line in
                                         enumerate(text.split("\n")[:-1])] + ["end"]


async def test_code_actions_convert_to_every_other_syntax(client: LanguageClient):
    text = real_program(7, "code")
    uri, _ = await opened(client, text, ".qc")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), types.Range(types.Position(0, 0), types.Position(0, 0)),
        types.CodeActionContext(diagnostics=[])))
    converted = {}
    for action in actions:
        assert isinstance(action, types.CodeAction) and action.edit and action.edit.document_changes
        create, edit = action.edit.document_changes
        assert isinstance(create, types.CreateFile) and isinstance(edit, types.TextDocumentEdit)
        converted[action.kind] = (create.uri, edit.edits[0].new_text)
    assert set(converted) == {f"source.convert.{s}" for s in SYNTAXES if s != "code"}
    beside, flat = converted["source.convert.flat"]
    assert beside == uri.replace(".qc", ".qf") and api.parse(flat, "flat") == api.parse(text, "code")


async def test_open_vocabulary_setting_makes_unknown_words_warnings(client: LanguageClient):
    text = "exist(select(scene(), wugs))"
    uri, found = await opened(client, text, ".qn")
    assert [d.severity for d in found] == [types.DiagnosticSeverity.Error]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"qlang": {"openVocabulary": True}}))
    warned = await published(uri, 1)
    assert [d.severity for d in warned] == [types.DiagnosticSeverity.Warning]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"qlang": {"openVocabulary": False}}))
    await published(uri, 2)


async def test_rules_and_knowledge_files_get_their_checkers_diagnostics(client: LanguageClient):
    rules = "class big_cup.\nclass(X, big_cup) :- class(X, cupp)."
    _, found = await opened(client, rules, ".rules")
    (diagnostic,) = found
    assert diagnostic.range == span(rules, "cupp") and "cup" in str(diagnostic.related_information)
    knowledge = "# a comment\ncup\tused_for\tdrinking\nbowl\tusedfor\tsoup\nplate\tused_for\n"
    _, found = await opened(client, knowledge, ".tsv")
    assert [d.range.start.line for d in found] == [2, 3]


async def test_random_bytes_and_a_megabyte_get_an_answer_in_time(client: LanguageClient):
    rng = random.Random(26)
    noise = bytes(rng.randrange(256) for _ in range(20_000)).decode("utf-8", "replace")
    program = real_program(8, "nested")
    huge = "\n".join([program] * (1_000_000 // len(program)))
    for text, extension in ((noise, ".qn"), (noise, ".qc"), (noise, ".qf"), (noise, ".json"),
                            (noise, ".rules"), (noise, ".tsv"), (huge, ".qc"), ("(" * 1_000_000, ".qn")):
        uri, found = await opened(client, text, extension)
        assert found, extension
        position = types.Position(len(text.split("\n")) // 2, 3)
        requests = [
            client.text_document_completion_async(types.CompletionParams(types.TextDocumentIdentifier(uri),
                                                                         position)),
            client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), position)),
            client.text_document_document_symbol_async(types.DocumentSymbolParams(
                types.TextDocumentIdentifier(uri))),
            client.text_document_formatting_async(types.DocumentFormattingParams(
                types.TextDocumentIdentifier(uri), types.FormattingOptions(tab_size=4, insert_spaces=True))),
        ]
        await asyncio.wait_for(asyncio.gather(*requests), PATIENCE)
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
        assert not await published(uri, 1)


async def test_garbage_on_standard_input_is_no_traceback() -> None:
    """Bytes that are no protocol, a message that is no JSON and one of no known shape: each
    logged on one line, and the server ends with its input, exit status 0."""
    rng = random.Random(7)
    garbage = bytes(rng.randrange(256) for _ in range(5_000))
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "x"}'
    for stdin in (garbage, b"Content-Length: 5\r\n\r\n{\"a\":",
                  b"Content-Length: %d\r\n\r\n%s" % (len(body), body)):
        server = await asyncio.create_subprocess_exec(
            *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        _, errors = await asyncio.wait_for(server.communicate(stdin), PATIENCE)
        assert server.returncode == 0 and b"Traceback" not in errors, errors
