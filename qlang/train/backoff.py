"""Lexical back-off: a word the small parser never read, read as the nearest word it did.

The parser's encoder knows the words of its training questions; any other word reaches it as
the unknown token, whose embedding no training step moved.  So "Is that trumpet generally
brass?" loses the one word that says what is asked when the training questions said "usually"
and "typically" but never "generally".  The table maps each whole word of MiniLM's vocabulary
(`qlang.text.embedding.words`: 21,745 words of English, inflected forms and function words
among them) that the model's source vocabulary lacks to the trained word nearest it in
MiniLM's embedding of single words, where their cosine similarity reaches `LEAST`:
"generally" -> "typically" (0.87), "automobile" -> "car", "they" -> "their".  A farther word
stays unknown: a wrong near-synonym misleads the encoder more than nothing does.  The table
lives in the model's config (`Config.backoff`), so answering looks a word up and loads no
embedding model; copying still takes the word as said, so no literal is ever changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from qlang.small import files
from qlang.small.tokens import PLAIN, Vocabulary, question_tokens
from qlang.train.pairs import Pair

#: the least cosine similarity at which a word is read as a trained one ("generally" and
#: "typically": 0.87; "crimson" and "purple", the nearest trained word to it: 0.60, left out)
LEAST = 0.7
#: words compared with every trained word at once (a block of 2,048 x 2,000 similarities)
_BLOCK = 2048


def trained_words(pairs: Iterable[Pair]) -> list[str]:
    """The plain words the training questions say, as the encoder reads them."""
    return sorted({t for p in pairs for t in question_tokens(p.question) if PLAIN.fullmatch(t)})


def table(trained: Sequence[str], source: Vocabulary, words: Sequence[str] | None = None) -> dict[str, str]:
    """Each of `words` (default: MiniLM's whole words, their embeddings cached on disk) that
    `source` lacks and a question reads as itself, to the nearest of `trained` at a
    similarity of `LEAST` or more."""
    from qlang.text import embedding

    candidates = embedding.words() if words is None else list(dict.fromkeys(words))
    lacking = [i for i, w in enumerate(candidates) if w not in source and question_tokens(w) == [w]]
    targets = [w for w in trained if w in source]
    if not lacking or not targets:
        return {}
    vectors, into = embedding.pool_embeddings(candidates)[lacking], embedding.encode(targets)
    found: dict[str, str] = {}
    for start in range(0, len(lacking), _BLOCK):
        similarity = vectors[start:start + _BLOCK] @ into.T
        best = similarity.argmax(axis=1)
        for i, k, score in zip(lacking[start:start + _BLOCK], best, similarity[np.arange(len(best)), best],
                               strict=True):
            if score >= LEAST:
                found[candidates[i]] = targets[k]
    return dict(sorted(found.items()))


def write(folder: Path, pairs: Sequence[Pair]) -> dict[str, str]:
    """Give the model in `folder`, trained on `pairs`, its table (replacing any it had)."""
    config = files.read_config(folder)
    found = table(trained_words(pairs), Vocabulary(config.source))
    files.write_config(folder, replace(config, backoff=found, notes={
        **config.notes, "backoff": {"least": LEAST, "words": len(found)}}))
    return found
