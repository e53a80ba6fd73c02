"""Augmentation on real GQA pairs: every new program checks and its question says its words."""

from __future__ import annotations

import doctest
import re
import time

import pytest

import qlang
import qlang.train.augment as augment_module
from qlang.ir import Node, postorder
from qlang.ontology import load
from qlang.passes.canonical import canonicalize
from qlang.syntax import gqa
from qlang.train.augment import STALE_FIELDS, augment
from qlang.train.pairs import Pair, make_pairs
from qlang.words import article, plural
from tests.conftest import DATA

COPIES = 3


@pytest.fixture(scope="module")
def real(data_dir) -> list[Pair]:
    pairs, _ = make_pairs([DATA / "gqa" / "questions" / "val_balanced_tail.json"])
    return pairs


@pytest.fixture(scope="module")
def augmented(real: list[Pair]) -> list[Pair]:
    start = time.perf_counter()
    new = augment(real, COPIES)
    seconds = time.perf_counter() - start
    covered = len({p.record["augmented_from"] for p in new})
    print(f"\n{covered} of {len(real)} real pairs ({covered / len(real):.0%}) yield a copy; "
          f"{len(new)} new pairs; {seconds / len(real) * 1000:.2f} ms per pair")
    return new


def _by_id(pairs: list[Pair], qid: str) -> Pair:
    return next(p for p in pairs if p.id == qid)


def _copies_of(augmented: list[Pair], qid: str) -> list[Pair]:
    return [p for p in augmented if p.record["augmented_from"] == qid]


def _literals(root: Node) -> list[str]:
    return [word for node in postorder(root) for word in node.literals]


def _swaps(source: Pair, new: Pair) -> dict[str, str]:
    """Old word -> new word, literal by literal: a substitution keeps the program's shape."""
    old = _literals(canonicalize(gqa.to_ir(gqa.steps_from_json(source.record["semantic"]))))
    now = _literals(qlang.parse(new.program, "nested"))
    assert len(old) == len(now)
    return {a: b for a, b in zip(old, now, strict=True) if a != b}


def _says(question: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", question, re.IGNORECASE) is not None


def test_every_new_program_checks_and_most_pairs_yield_copies(real, augmented) -> None:
    assert len({p.id for p in augmented}) == len(augmented)
    sources = {p.id: p for p in real}
    for new in augmented:
        source = sources[new.record["augmented_from"]]
        qlang.check(qlang.parse(new.program, "nested"))
        assert new.id.startswith(f"{source.id}~aug")
        assert (new.image, new.split) == (source.image, source.split)
        assert new.record["question"] == new.question != source.question
        assert not set(STALE_FIELDS) & set(new.record)
    per_source = {qid: len(_copies_of(augmented, qid)) for qid in sources}
    assert max(per_source.values()) == COPIES
    assert sum(1 for n in per_source.values() if n) >= 0.8 * len(real)


def test_the_question_says_every_swapped_word_and_no_longer_the_old_one(real, augmented) -> None:
    sources = {p.id: p for p in real}
    for new in augmented:
        source = sources[new.record["augmented_from"]]
        swaps = _swaps(source, new)
        assert swaps
        for old, word in swaps.items():
            assert _says(new.question, word) or _says(new.question, plural(word)), (new, old)
            assert not (_says(new.question, old) or _says(new.question, plural(old))), (new, old)
            if _says(source.question, plural(old)) and plural(old) != old:
                assert _says(new.question, plural(word)), (new, old)


def test_category_words_and_words_the_question_does_not_say_stay(real, augmented) -> None:
    categories = set(load().class_members)
    for new in augmented:
        source = _by_id(real, new.record["augmented_from"])
        assert not categories & set(_swaps(source, new))
    # "Who is wearing trousers?" is select(pants): the relation changes, never the class
    copies = _copies_of(augmented, "00414251")
    assert copies
    for new in copies:
        assert "pants" in new.program and "trousers" in new.question


def test_a_multi_word_class_in_the_plural(real, augmented) -> None:
    source = _by_id(real, "00327929")
    assert source.question == "Are there any traffic lights or cars?"
    copies = _copies_of(augmented, source.id)
    assert len(copies) == COPIES
    for new in copies:
        swaps = _swaps(source, new)
        first, second = swaps["traffic light"], swaps["car"]
        assert new.question == f"Are there any {plural(first)} or {plural(second)}?"


def test_an_irregular_plural(real, augmented) -> None:
    source = _by_id(real, "00554764")
    assert source.question == "Do you see any boys or women there?"
    for new in _copies_of(augmented, source.id):
        swaps = _swaps(source, new)
        boys, women = (plural(swaps.get(w, w)) for w in ("boy", "woman"))
        assert new.question == f"Do you see any {boys} or {women} there?"
    assert plural("woman") == "women" and plural("child") == "children"


def test_the_article_follows_the_new_word(real, augmented) -> None:
    source = _by_id(real, "19933796")
    assert source.question.endswith("holding, an orange or a banana?")
    articles: set[str] = set()
    for new in _copies_of(augmented, source.id):
        swaps = _swaps(source, new)
        first, second = (swaps.get(w, w) for w in ("orange", "banana"))
        assert new.question.endswith(f", {article(first)} {first} or {article(second)} {second}?")
        articles |= {article(first), article(second)}
    assert articles == {"a", "an"}
    assert [article(w) for w in ("apple", "umbrella", "uniform", "hour", "cup")] == \
        ["an", "an", "a", "an", "a"]


def test_a_swapped_first_word_is_capitalised(real, augmented) -> None:
    source = _by_id(real, "02752181")
    assert source.question == "On what item of furniture is the laptop?"
    for new in _copies_of(augmented, source.id):
        relation = _swaps(source, new)["on"]
        assert new.question.startswith(relation[0].upper() + relation[1:] + " what item")


def test_a_class_keeps_its_place_in_the_hierarchy(real, augmented) -> None:
    # a lamb or a cow, asked of an animal: replacements are animals too
    source = _by_id(real, "04153662")
    animals = load().class_members["animal"]
    copies = _copies_of(augmented, source.id)
    assert copies
    for new in copies:
        assert "select(scene(), animal)" in new.program
        assert set(_swaps(source, new).values()) <= animals


def test_the_same_seed_gives_the_same_pairs_and_another_seed_others(real, augmented) -> None:
    assert augment(real[:200], COPIES) == [p for p in augmented
                                           if p.record["augmented_from"] in {r.id for r in real[:200]}]
    assert augment(real[:200], COPIES, seed=1) != augment(real[:200], COPIES)


def test_other_syntaxes_print_the_same_program(real) -> None:
    nested = augment(real[:50], 1)
    code = augment(real[:50], 1, syntax="code")
    assert [p.question for p in code] == [p.question for p in nested]
    for a, b in zip(nested, code, strict=True):
        assert qlang.parse(b.program, "code") == qlang.parse(a.program, "nested")


def test_doctests() -> None:
    assert doctest.testmod(augment_module, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
