"""`qlangc serve`'s workers at their bounds, over HTTP on loopback: a server of one worker, no
room to wait and a budget of 3 s.  A question the fine-tuned fallback cannot finish in the budget
gets "cannot tell" with the reason; a request sent meanwhile is told the server is busy, at once;
the stopped worker is replaced and the server goes on, leaving no file behind."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.conftest import EMMA, serving

#: A page of text as one question: the small parser is unsure of it, and the fine-tuned model
#: takes longer than the budget to score its candidates or write its own (14-19 s on 2 busy
#: cores).
SLOW = ("Is the small red cup that is on the wooden table to the left of the man who wears the "
        "blue shirt and holds the umbrella ") * 9
SCENE = {"source": "scene", "scene": "emma_sceneGraphs.json/2353884", "top_k": "1"}


def post(url: str, fields: dict[str, str]) -> tuple[int, dict[str, Any]]:
    reply = requests.post(url + "/api/ask", files={k: (None, v) for k, v in fields.items()}, timeout=120)
    return reply.status_code, reply.json()


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    temp = tmp_path_factory.mktemp("server-tmp")
    log = tmp_path_factory.mktemp("server-log") / "stderr.txt"
    args = ["--scenes", EMMA, "--workers", "1", "--waiting", "0", "--budget", "3"]
    with serving(args, log, {**os.environ, "TMPDIR": str(temp)}) as (url, _):
        yield url, temp


def test_a_question_past_its_budget_is_cannot_tell_and_others_are_told_busy(tight: tuple[str, Path]) -> None:
    url, temp = tight
    slow: list[tuple[int, dict[str, Any]]] = []
    asking = threading.Thread(target=lambda: slow.append(post(url, {**SCENE, "question": SLOW[:999]})))
    asking.start()
    time.sleep(1)  # the slow question reaches the one worker first (a question sent before it would)
    status, refused = post(url, {**SCENE, "question": "Who wears shorts?"})
    assert asking.is_alive(), f"the slow question was answered first: {slow}"
    assert status == 503, refused
    assert refused["error"] == "the server is busy, 1 requests ahead of yours: ask again in a moment"
    asking.join(timeout=120)
    ((status, reply),) = slow
    assert (status, reply["error"]) == (503, "cannot tell: translating the question took longer than the "
                                             "3 s a request may take, and was stopped")
    deadline = time.monotonic() + 120  # the worker that replaces it loads its models first
    while (answered := post(url, {**SCENE, "question": "Who wears shorts?"}))[0] == 503:
        assert time.monotonic() < deadline, answered
        time.sleep(0.5)
    status, reply = answered
    assert status == 200 and [a["answer"] for a in reply["answers"]] == ["man"]
    assert list(temp.iterdir()) == []
