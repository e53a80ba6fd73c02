"""Numbers read from text (a web form, an upload's declared length, a Ray address, a step's
reference) are read one way, `qlang.integers`: ASCII digits within bounds, else a clear error;
and counts given on the command line have ceilings."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlencode

import pytest

from qlang import executors
from qlang.errors import QlangError
from qlang.evaluate import lenient
from qlang.integers import OutOfRange, integer, is_digits
from qlang.web import app as web_app
from qlang.web.uploads import BoundedBody
from tests.conftest import run

ODD = ["²", "٣", "+7", "-1", " 7", "7 ", "7_000", "", "0x10", "1e3", "๓"]


@pytest.mark.parametrize("text", ODD)
def test_only_ascii_digits_are_a_number(text: str) -> None:
    assert not is_digits(text)
    with pytest.raises(ValueError, match="not a whole number written in the digits 0-9"):
        integer(text, most=10**9)


@pytest.mark.parametrize(("text", "least", "most", "said"), [
    ("0", 1, 20, "0 is not between 1 and 20"),
    ("21", 1, 20, "21 is not between 1 and 20"),
    ("9" * 5000, 0, 20, "a number of 5000 digits is not between 0 and 20"),
])
def test_a_number_beyond_its_bounds_is_out_of_range(text: str, least: int, most: int, said: str) -> None:
    with pytest.raises(OutOfRange, match=said):
        integer(text, least=least, most=most)


def test_leading_zeros_of_any_length_read_as_the_number() -> None:
    assert integer("0" * 5000 + "7", most=10) == 7


def asgi(application: Any, body: bytes, headers: list[tuple[bytes, bytes]]) -> tuple[int, dict[str, Any]]:
    """A POST of `body` to /api/ask, answered by `application` in this process."""
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "method": "POST", "path": "/api/ask", "raw_path": b"/api/ask",
             "query_string": b"", "headers": headers, "http_version": "1.1", "scheme": "http",
             "server": ("testserver", 80), "client": ("127.0.0.1", 1), "root_path": "",
             "asgi": {"version": "3.0"}}
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(application(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], json.loads(body)


@pytest.mark.parametrize("top_k", ["²", "٣", "9" * 5000, "0", "21", " 3"])
def test_a_web_form_number_that_is_no_number_is_a_clear_error(top_k: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_app, "page_for", lambda service: "")
    service = SimpleNamespace(ask=None, solve=None)  # never reached: the form is refused first
    body = urlencode({"question": "Is there a cat?", "top_k": top_k, "source": "scene"}).encode()
    headers = [(b"content-type", b"application/x-www-form-urlencoded"),
               (b"content-length", b"%d" % len(body))]
    status, report = asgi(web_app.make_app(service), body, headers)  # type: ignore[arg-type]
    assert (status, report) == (400, {"error": "the number of answers is a whole number from 1 to 20"})


async def _unreached(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("the app saw a request its wrapper must refuse")


@pytest.mark.parametrize(("length", "status", "said"), [
    (b"\xc2\xb2", 411, "the request must say how long it is"),
    (b"+5", 411, "the request must say how long it is"),
    (b"9" * 5000, 413, "the upload is of a 5000-digit length: a photo may be at most"),
    (b"100000000000", 413, "the upload is 100,000.0 MB: a photo may be at most"),
])
def test_an_uploads_declared_length_is_read_as_a_number(length: bytes, status: int, said: str) -> None:
    got, report = asgi(BoundedBody(_unreached), b"", [(b"content-length", length)])
    assert got == status and report["error"].startswith(said), report


def test_a_ray_port_is_a_number_of_ports() -> None:
    executors.answering("127.0.0.1:²")  # no host:port: an address Ray reads itself, as "auto" is
    for port in ("99999", "9" * 5000):
        with pytest.raises(QlangError, match=r"cannot reach Ray at .*not between 0 and 65535"):
            executors.answering(f"127.0.0.1:{port}")


def test_a_lenient_step_reference_is_digits_the_user_wrote() -> None:
    """A reference ``²`` is no step number: the error points into the text as written, not into
    a ``scene(²)`` step made up for it."""
    text = "select(1, ², cat). exist(2, 1). end(2)."
    with pytest.raises(QlangError) as raised:
        lenient.read(text, "flat")
    assert raised.value.render().splitlines()[1].strip() == text
    assert raised.value.diagnostics[0].span is not None and raised.value.diagnostics[0].span.column == 11


@pytest.mark.parametrize(("option", "most"), [("--knowledge", "100000"), ("--augment", "100")])
def test_data_counts_have_a_ceiling(option: str, most: str, tmp_path: Any) -> None:
    code, _, err = run("data", "--out", str(tmp_path / "out"), option, "1000000000")
    assert code == 2 and f"1000000000 is not in the range 0<=x<={most}" in err, err
