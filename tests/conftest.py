"""Shared fixtures: the real GQA data, in ../shared/data (see its README) unless QLANG_DATA
names another folder."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

import pytest

from qlang.paths import SHARED_DATA

DATA = SHARED_DATA
QUESTION_FILES = ("testdev_ood_head.json", "val_balanced_tail.json")


@cache
def questions(name: str) -> dict[str, dict]:
    return json.loads((DATA / "gqa" / "questions" / name).read_text())


@cache
def all_questions() -> dict[str, dict]:
    """The 3,091 real GQA questions with gold programs, keyed by question id."""
    merged: dict[str, dict] = {}
    for name in QUESTION_FILES:
        merged.update(questions(name))
    return merged


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"the shared GQA data is missing: {DATA}")
    return DATA


#: `qlangc` with the batch's results cut off after `sys.argv[1]`: the process kills itself (as
#: `kill -9` would) when asked for the next one, which is once those before are written.
_KILLED = """
import os, signal, sys
from itertools import islice
from qlang import executors
from qlang.commands.main import main

after = int(sys.argv.pop(1))
for executor in (executors.Local, executors.Ray):
    def map(self, *args, _map=executor.map, **kwargs):
        yield from islice(_map(self, *args, **kwargs), after)
        os.kill(os.getpid(), signal.SIGKILL)
    executor.map = map
main()
"""


def killed_qlangc(after: int) -> list[str]:
    """The command line of a `qlangc` killed part way through a batch, once it has written
    `after` results: a test of what a killed run leaves chooses the moment instead of racing
    the run to it (which a busy or a fast machine can lose)."""
    return [sys.executable, "-c", _KILLED, str(after)]
