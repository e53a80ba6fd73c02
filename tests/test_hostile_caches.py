"""Damaged caches: what qlang keeps between runs (a pool's embeddings, the WordNet table of
kinds, the analysed theory) may be cut, overwritten or replaced; each is then built again,
never a traceback or a wrong answer read from it.  (Knowledge indexes in the cache:
`tests/test_hostile_knowledge.py`.)"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from qlang.asp import theory
from qlang.text import embedding
from qlang.vision import kinds


def _npy(array: np.ndarray) -> Callable[[Path], None]:
    return lambda path: np.save(path, array, allow_pickle=True)


def _cut(path: Path) -> None:
    np.save(path, np.ones((3, 4)))
    path.write_bytes(path.read_bytes()[:-20])


DAMAGE: dict[str, Callable[[Path], None]] = {
    "garbage": lambda path: path.write_bytes(bytes(range(256)) * 4),
    "empty": lambda path: path.write_bytes(b""),
    "cut": _cut,
    "another shape": _npy(np.ones((2, 4))),
    "one dimension": _npy(np.ones(3)),
    "objects (a pickle)": _npy(np.array([{}, {}, {}], dtype=object)),
    "text": _npy(np.array(["a", "b", "c"])),
    "not finite": _npy(np.full((3, 4), np.nan)),
    "a folder": lambda path: path.mkdir(),
}


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
def test_damaged_embeddings_are_embedded_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               damage: Callable[[Path], None]) -> None:
    monkeypatch.setattr(embedding, "CACHE", tmp_path)

    def encode(texts: Sequence[str]) -> np.ndarray:
        return np.arange(len(texts) * 4, dtype=np.float32).reshape(len(texts), 4)

    monkeypatch.setattr(embedding, "encode", encode)
    texts = ["a", "b", "c"]
    damage(embedding.cache_path(texts))
    if embedding.cache_path(texts).is_dir():  # it cannot be replaced: embedded, and the error said
        with pytest.raises(OSError):
            embedding.pool_embeddings(texts)
        return
    assert (embedding.pool_embeddings(texts) == encode(texts)).all()
    assert (np.load(embedding.cache_path(texts)) == encode(texts)).all()  # and kept afresh


TABLES = {
    "garbage": bytes(range(256)) * 4,
    "deep": b"[" * 100_000,
    "a list": b"[]",
    "a huge number": b'{"about": ' + b"9" * 5000 + b"}",
    "words a list": None,
    "an entry of numbers": None,
    "an entry too short": None,
}


def _table(name: str) -> bytes:
    about = kinds._about()
    words = {"words a list": [], "an entry of numbers": {"cup": [1, [2], [3]]},
             "an entry too short": {"cup": ["cup.n.01"]}}[name]
    return json.dumps({"about": about, "words": words}).encode()


@pytest.mark.parametrize("name", TABLES.keys())
def test_a_damaged_table_of_kinds_is_not_read(tmp_path: Path, name: str) -> None:
    path = tmp_path / "wordnet.json"
    path.write_bytes(TABLES[name] if TABLES[name] is not None else _table(name))
    assert kinds.read(path) is None  # and `table` builds it again


@pytest.mark.parametrize("content", ['[["x", "ab", [], []]]', '{"digest": "0", "rows": [["x", [], [], []]]}',
                                     '{"digest": 1, "rows": 2}', "[" * 100_000, "{}", "\xff", ""])
def test_a_damaged_theory_cache_is_analysed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  content: str) -> None:
    fresh = theory.parsed.__wrapped__()
    monkeypatch.setattr(theory, "CACHE", tmp_path)
    theory.parsed.__wrapped__()  # writes the cache
    (kept,) = tmp_path.glob("*.json")
    kept.write_text(content, encoding="utf-8", errors="surrogateescape")
    assert theory.parsed.__wrapped__() == fresh
