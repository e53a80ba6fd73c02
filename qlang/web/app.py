"""The HTTP side of `qlangc serve`: the page, and the two requests its script makes (ask a
question; solve a program edited on the page), each a multipart form answered with JSON.

FastAPI rather than Gradio: FastAPI, Starlette and uvicorn already come with llama.cpp's server,
the page is one file of plain HTML and script whose elements a browser test finds by id, and
an upload is held by the request alone (Gradio copies every upload into a cache folder of its
own, where this server keeps nothing after a request).  Every reply is JSON: the report
(`qlang.web.report`), or ``{"error": message}`` with a status saying whose fault it is (4xx the
request's, 500 a bug's), never a traceback; the server goes on serving either way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp

from qlang import limits, pipeline
from qlang.errors import QlangError, error, printable
from qlang.integers import integer
from qlang.web import report
from qlang.web.service import MAX_QUESTION, MAX_TOP_K, ExampleName, Kept, Service
from qlang.web.sources import EXAMPLES
from qlang.web.uploads import BoundedBody, BoundedQueue, Photo, kept
from qlang.web.workers import Busy, Failed, OverBudget, ServiceCall, Workers

PAGE = Path(__file__).with_name("page.html")
#: Where the page's settings go: a JSON script element its script reads.
CONFIG = "{{config}}"

#: What a request is about, as its form says: an uploaded photo, an example photo, or a scene.
Asked = Photo | ExampleName | str


def make_app(pool: Workers, idle: float = 30.0) -> ASGIApp:
    """The server's app: the page at `/`, questions at `/api/ask`, programs at `/api/solve`,
    each answered by the pool's workers; an upload given up after `idle` seconds without a byte
    (`BoundedQueue`)."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)

    @app.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        return HTMLResponse(pool.page)

    @app.post("/api/ask")
    async def ask(request: Request) -> JSONResponse:
        return await _answered(request, "question", pool, "ask")

    @app.post("/api/solve")
    async def solve(request: Request) -> JSONResponse:
        return await _answered(request, "program", pool, "solve")

    return BoundedQueue(BoundedBody(app), idle)


def page_for(service: Service) -> str:
    """The page, with what this server offers written into it (a worker writes it: the models
    are the workers')."""
    config = {
        "photos": [{"name": e.name, "title": e.title} for e in EXAMPLES if e.name in service.photos],
        "scenes": [{"key": key, "label": c.label} for key, c in service.scenes.choices.items()],
        "translator": service.translator.description,
        "background": report.background(service.background),
        "max_question": MAX_QUESTION, "max_top_k": MAX_TOP_K, "photo_mb": limits.IMAGE.mb,
    }
    text = json.dumps(config).replace("<", "\\u003c")  # nothing in it can end the script element
    return PAGE.read_text(encoding="utf-8").replace(CONFIG, text)


async def _answered(request: Request, field: str, pool: Workers, method: str) -> JSONResponse:
    try:
        async with request.form(max_files=1, max_fields=8, max_part_size=limits.PROGRAM.bytes) as form:
            text, about, top_k = await _read(form, field)
            report = await run_in_threadpool(_asked, pool, method, text, about, top_k)  # the upload is open
    except HTTPException as exc:  # the form itself could not be read (Starlette's, not FastAPI's)
        return _error(f"the request is not a form the page sends ({exc.detail})", exc.status_code)
    except ClientDisconnect:
        return _error("the request ended before its upload did", 400)
    except pipeline.Untranslated as exc:
        return _error(_shown(exc), 422, program=exc.translation.program)
    except (Busy, OverBudget) as exc:  # the server's capacity, not the request's fault
        return _error(_shown(exc), 503)
    except QlangError as exc:
        return _error(_shown(exc), 400)
    except Exception as exc:  # a bug: reported as one, and the server goes on
        said = str(exc) if isinstance(exc, Failed) else f"{type(exc).__name__}: {exc}"
        message = f"internal error: {said} (please report this as a bug)"
        print(message, file=sys.stderr)
        return _error(message, 500)
    return JSONResponse(report)


def _asked(pool: Workers, method: str, text: str, about: Asked, top_k: int) -> dict[str, Any]:
    """The report of a request, answered by a worker; an uploaded photo is kept as a file for
    it, named to the worker, and removed when it is answered."""
    if not isinstance(about, Photo):
        return pool.answer(ServiceCall(method, text, about, top_k))
    with kept(about) as path:
        return pool.answer(ServiceCall(method, text, Kept(str(path)), top_k))


async def _read(form: FormData, field: str) -> tuple[str, Asked, int]:
    """The request's text (a question or a program), what it is about, and how many answers."""
    text = form.get(field)
    if not isinstance(text, str):
        raise error(QlangError, "request", f"the request has no {field}")
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # a browser sends a textarea's lines with CRLF
    top_k = form.get("top_k", "3")
    try:
        answers = integer(top_k if isinstance(top_k, str) else "", least=1, most=MAX_TOP_K)
    except ValueError:
        raise error(QlangError, "request",
                    f"the number of answers is a whole number from 1 to {MAX_TOP_K}") from None
    source = form.get("source")
    about: Asked
    if source == "photo":
        upload = form.get("photo")
        if not isinstance(upload, UploadFile) or not upload.filename:
            raise error(QlangError, "request", "choose a photo to upload")
        about = Photo(upload.filename, upload.file)
    elif source == "example":
        about = ExampleName(str(form.get("example")))
    elif source == "scene":
        about = str(form.get("scene"))
    else:
        raise error(QlangError, "request", "choose a photo, an example photo or a scene")
    return text, about, answers


def _shown(exc: QlangError) -> str:
    """An error as the page shows it: located in its source with a caret, as `check` prints
    it, where it has one (a program, a scene file); else its messages."""
    if exc.source is not None:
        return exc.render()
    return "\n".join(printable(d.full_message) for d in exc.diagnostics)


def _error(message: str, status: int, **more: Any) -> JSONResponse:
    return JSONResponse({"error": message, **more}, status_code=status)
