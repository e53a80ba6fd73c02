"""Shared fixtures: the real GQA data, in ../shared/data (see its README) unless QLANG_DATA
names another folder."""

from __future__ import annotations

import json
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
