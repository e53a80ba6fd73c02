"""The language server probed as an attacker would, over raw standard input: it reads only the
documents a client sent it, answers every request (ServerNotInitialized, InvalidParams) without
a traceback, and reads its input within bounds; under the memory ceiling."""

from __future__ import annotations

import contextlib
import json
import subprocess
from typing import Any

import pytest

from tests.conftest import QLANGC, memory_ceiling

#: How long the server may take over a whole exchange (it answers in milliseconds).
PATIENCE = 120


def framed(*messages: dict[str, Any]) -> bytes:
    bodies = [json.dumps(message).encode() for message in messages]
    return b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(body), body) for body in bodies)


def request(number: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": method, "params": params}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


INITIALIZE = request(0, "initialize", {"processId": None, "rootUri": None, "capabilities": {}})
INITIALIZED = notification("initialized", {})


def served(stdin: bytes | str) -> tuple[int, dict[Any, dict[str, Any]], str]:
    """`qlangc lsp` fed `stdin` (bytes, or the file it names), to its end, under the memory
    ceiling: its exit status, its responses by id, and what it logged."""
    with contextlib.ExitStack() as stack:
        given = stack.enter_context(open(stdin, "rb")) if isinstance(stdin, str) else None
        done = subprocess.run([*QLANGC, "lsp"], input=None if given else stdin, stdin=given,
                              capture_output=True, timeout=PATIENCE, preexec_fn=memory_ceiling)
    responses, rest = {}, done.stdout
    while rest:
        header, _, rest = rest.partition(b"\r\n\r\n")
        size = int(header.split(b"Content-Length: ")[1].split(b"\r\n")[0])
        message = json.loads(rest[:size])
        rest = rest[size:]
        if "id" in message and "method" not in message:  # an id the client made odd, by its JSON
            ident = message["id"]
            responses[ident if isinstance(ident, int | str | None) else json.dumps(ident)] = message
    return done.returncode, responses, done.stderr.decode(errors="replace")


def at(uri: str, line: int = 0, character: int = 0) -> dict[str, Any]:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


@pytest.mark.parametrize("uri", ["file:///etc/passwd", "file:///dev/zero", "file:///nowhere.qn"])
def test_a_document_never_opened_is_refused_and_never_read(uri: str) -> None:
    code, responses, _ = served(framed(
        INITIALIZE, INITIALIZED,
        request(1, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
        request(2, "textDocument/hover", at(uri)),
        request(3, "textDocument/formatting", {"textDocument": {"uri": uri},
                                               "options": {"tabSize": 4, "insertSpaces": True}})))
    assert code == 0
    for number in (1, 2, 3):
        error = responses[number]["error"]
        assert error["code"] == -32602 and "is not open" in error["message"], responses[number]
        assert "root" not in json.dumps(responses[number])


def test_requests_before_initialize_are_refused_without_a_traceback() -> None:
    uri = "file:///tmp/a.qn"
    code, responses, _ = served(framed(
        request(1, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
        request(2, "textDocument/hover", at(uri)), INITIALIZE))
    assert code == 0 and "result" in responses[0]
    for number in (1, 2):
        assert responses[number]["error"]["code"] == -32002, responses[number]
        assert "data" not in responses[number]["error"] or not responses[number]["error"]["data"]


@pytest.mark.parametrize(("line", "character"), [(-1, 0), (0, -5), (2**31, 0), (0, 2**40)])
def test_a_position_out_of_range_is_invalid_params(line: int, character: int) -> None:
    uri = "file:///tmp/a.qn"
    opened = notification("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "qlang", "version": 1, "text": "exist(select(scene(), cat))"}})
    code, responses, _ = served(framed(INITIALIZE, INITIALIZED, opened,
                                       request(1, "textDocument/hover", at(uri, line, character)),
                                       request(2, "textDocument/hover", at(uri, 0, 2))))
    assert code == 0
    assert responses[1]["error"]["code"] == -32602 and "position" in responses[1]["error"]["message"]
    assert "result" in responses[2]  # and the server goes on


def test_no_response_carries_a_traceback() -> None:
    """A request pygls fails on inside (a shape it cannot take) is an error of one line."""
    code, responses, _ = served(framed(INITIALIZE, INITIALIZED,
                                       request(1, "textDocument/hover", {"textDocument": 7})))
    assert code == 0 and "error" in responses[1]
    assert "Traceback" not in json.dumps(responses[1]) and "traceback" not in json.dumps(responses[1])


@pytest.mark.parametrize("stdin", [
    b"Content-Length: 2147483648\r\n\r\n" + b"x" * 100_000,
    b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}",
    b"X" * 10_000_000,
], ids=["2 GB declared", "a 5,000-digit length", "a header without end"])
def test_the_message_reader_is_bounded(stdin: bytes) -> None:
    code, _, logged = served(stdin)
    assert code == 0 and "Traceback" not in logged, logged


def test_an_endless_input_ends_the_server() -> None:
    code, _, logged = served("/dev/zero")
    assert code == 0 and "Traceback" not in logged and "header line longer than" in logged, logged


@pytest.mark.parametrize("header", [
    b"Content-Type: application/json\r\n\r\n{}",
    b"Content-Length: -5\r\n\r\n{}",
    b"Content-Length: abc\r\n\r\n{}",
    b"Content-Length: \xb2\r\n\r\n{}",
    b"Content-Length: 2\r\nContent-Length: 99999999999\r\n\r\n{}",
    b"content-length: 2\r\n\r\n{}",
    b"Content-Length 2\r\n\r\n{}",
    b"\r\n\r\n\r\n",
    b"\x00\xff\xfe" * 1000,
], ids=["no length", "negative", "not a number", "a superscript digit", "two lengths", "lower case",
        "no colon", "empty headers", "binary"])
def test_a_malformed_header_ends_or_is_skipped_without_a_traceback(header: bytes) -> None:
    code, _, logged = served(framed(INITIALIZE) + header + framed(request(1, "shutdown", {})))
    assert code == 0 and "Traceback" not in logged, logged


_BODIES = {
    "cut": b"{", "a list": b"[]", "a number": b"7", "a string": b'"x"', "null": b"null",
    "deep": b"[" * 100_000, "not utf-8": b"\xff\xfe",
    "a huge id": b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "shutdown"}',
    "a method not a name": b'{"jsonrpc": "2.0", "id": 1, "method": 7}',
    "an id of an object": b'{"jsonrpc": "2.0", "id": {}, "method": "shutdown"}',
}


@pytest.mark.parametrize("body", _BODIES.values(), ids=_BODIES.keys())
def test_a_body_that_is_no_message_leaves_the_server_answering(body: bytes) -> None:
    message = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    code, responses, logged = served(framed(INITIALIZE) + message + framed(request(1, "shutdown", {})))
    assert code == 0 and "Traceback" not in logged, logged
    assert "Traceback" not in json.dumps(responses)
    assert 1 in responses, (responses.keys(), logged[-500:])  # it went on


def test_a_ten_megabyte_document_is_answered_within_bounds() -> None:
    """10 MB of one program repeated (a long file of many lines): opened, asked for symbols,
    hover and formatting, under the memory ceiling and within the patience."""
    uri = "file:///tmp/big.qf"
    line = "select(1, 0, cat).\n"
    text = "scene(0).\n" + line * (10_000_000 // len(line))
    code, responses, logged = served(framed(
        INITIALIZE, INITIALIZED,
        notification("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "qlang",
                                                                "version": 1, "text": text}}),
        request(1, "textDocument/documentSymbol", {"textDocument": {"uri": uri}}),
        request(2, "textDocument/hover", at(uri, 5, 3)),
        request(3, "textDocument/formatting", {"textDocument": {"uri": uri},
                                               "options": {"tabSize": 4, "insertSpaces": True}}),
        request(4, "shutdown", {})))
    assert code == 0 and "Traceback" not in logged, logged
    assert all(number in responses for number in (1, 2, 3, 4)), (responses.keys(), logged[-500:])


def test_thousands_of_rapid_changes_end_in_the_last_text() -> None:
    """3,000 edits, each a change of one character, sent without waiting: the server keeps up,
    and answers about the text they end in."""
    uri = "file:///tmp/a.qn"
    opened = notification("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "qlang", "version": 1, "text": "exist(select(scene(), cat))"}})
    changes = [notification("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": {"line": 0, "character": 22},
                                      "end": {"line": 0, "character": 25}},
                            "text": ("cat", "dog")[version % 2]}]}) for version in range(2, 3002)]
    code, responses, logged = served(framed(INITIALIZE, INITIALIZED, opened, *changes,
                                            request(1, "textDocument/hover", at(uri, 0, 23)),
                                            request(2, "shutdown", {})))
    assert code == 0 and "Traceback" not in logged, logged
    assert "dog" in json.dumps(responses[1]["result"]), responses[1]  # the last change (3001: dog)
