"""What a request may bring, and where it is kept while it is answered.

A request's body is bounded before any of it is kept: it must say its length, and that length
must fit a photo and a program (`qlang.limits`), so a 100 MB upload is refused by its header,
read through and dropped, never held.  At most `MAX_WAITING` requests with a body are read or
answered at once; one more is refused (503) as the server is busy, so that a crowd of uploads
waits on its clients, not in the server.  An upload is streamed to disk as it is read (by the
form parser, past its first megabyte), and a photo is then copied in chunks into a folder of its
own, which is removed when the request ends, whatever happens: no photo is ever held in memory
whole, and the server keeps nothing of anyone's request.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import BinaryIO

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from qlang import limits
from qlang.errors import QlangError
from qlang.integers import OutOfRange, integer

#: The most requests with a body read or answered at once (the page sends one at a time; eight
#: tabs at once are answered, in turn).
MAX_WAITING = 16


def most_bytes() -> int:
    """The largest body a request may have: a photo and a program."""
    return limits.IMAGE.bytes + limits.PROGRAM.bytes


class BoundedBody:
    """An ASGI wrapper that answers a body without a length (411) or longer than `most_bytes`
    (413) itself, with the page's kind of message, before the app sees a byte of it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in ("GET", "HEAD"):
            declared = dict(scope["headers"]).get(b"content-length", b"").decode("latin-1")
            try:
                integer(declared, most=most_bytes())
            except OutOfRange:
                size = f"{int(declared) / limits.MB:,.1f} MB" if len(declared) < 20 else \
                    f"of a {len(declared)}-digit length"
                await _refuse(receive, send, 413, f"the upload is {size}: a photo may be at most "
                              f"{limits.IMAGE.bound()}")
                return
            except ValueError:
                await _refuse(receive, send, 411, "the request must say how long it is (Content-Length)")
                return
        await self.app(scope, receive, send)


class BoundedQueue:
    """An ASGI wrapper that answers a request with a body itself (503, the page's kind of
    message) while `most` others are being read or answered, and ends the upload of one whose
    client sends nothing for `idle` seconds (as if it had gone: the app answers 400), so that
    clients that say a length and never send it cannot hold the queue."""

    def __init__(self, app: ASGIApp, idle: float, most: int = MAX_WAITING) -> None:
        self.app, self.idle, self.most, self.waiting = app, idle, most, 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        if self.waiting >= self.most:
            await _refuse(self._within(receive), send, 503, f"the server is busy with {self.most} requests: "
                          "try again in a moment")
            return
        self.waiting += 1
        try:
            await self.app(scope, self._within(receive), send)
        finally:
            self.waiting -= 1

    def _within(self, receive: Receive) -> Receive:
        async def within() -> Message:
            with anyio.move_on_after(self.idle):
                return await receive()
            return {"type": "http.disconnect"}
        return within


async def _refuse(receive: Receive, send: Send, status: int, message: str) -> None:
    """Answer `message`, once the body is read through and dropped: a connection closed with
    data unread is reset, and a client still sending would lose the answer with it."""
    while (await receive()).get("more_body"):
        pass
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True, slots=True)
class Photo:
    """A photo a request brings: the name it was uploaded under, and its bytes (an open file:
    an upload's is on disk), read in chunks as it is kept."""

    name: str
    file: BinaryIO


#: What an uploaded file's name may keep, so that it is a plain name within the request's folder.
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def file_name(uploaded: str) -> str:
    """A safe name for an uploaded file: its base name, odd characters replaced, no leading dot
    (the names the request's own files take), at most 100 characters.

    >>> file_name("../../etc/passwd"), file_name("my cat.jpg"), file_name(".."), file_name(".x.png")
    ('passwd', 'my_cat.jpg', 'photo', 'x.png')
    """
    name = _UNSAFE.sub("_", Path(uploaded.replace("\\", "/")).name)[-100:].lstrip(".")
    return name or "photo"


@contextmanager
def kept(photo: Photo) -> Iterator[Path]:
    """The photo as a file, in a folder of the request's own (where it may write files whose
    names start with a dot), removed when the block ends; an error raised inside names the
    photo as it was uploaded, not by the folder it was kept in."""
    with tempfile.TemporaryDirectory(prefix="qlang-web-") as folder:
        path = Path(folder) / file_name(photo.name)
        with path.open("wb") as copy:
            shutil.copyfileobj(photo.file, copy, limits.CHUNK)
        try:
            yield path
        except QlangError as exc:
            named = [d.message for d in exc.diagnostics] + ([exc.source.name] if exc.source else [])
            if any(folder in text for text in named):
                raise _unplaced(exc, folder) from None
            raise


def _unplaced(exc: QlangError, folder: str) -> QlangError:
    diagnostics = [replace(d, message=d.message.replace(folder + "/", "")) for d in exc.diagnostics]
    source = exc.source and replace(exc.source, name=exc.source.name.replace(folder + "/", ""))
    return type(exc)(diagnostics, source)
