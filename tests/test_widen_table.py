"""The widening table (qlang/vision/kinds.py) answers as WordNet does, for every pair of words
it holds; a table that is missing, unreadable or stale is built again; and with the table,
widening a word it holds never loads WordNet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from itertools import islice
from pathlib import Path

import pytest

from qlang import wordnet
from qlang.vision import kinds
from qlang.vision.sight import SIGHTS, Sight


@pytest.fixture(scope="module")
def words() -> list[str]:
    """The vocabulary, its entries read back from the table file (not computed in process)."""
    kinds.table()
    assert kinds.read() is not None, "the cached table is missing or stale after building it"
    kinds.installed.cache_clear()
    kinds.known.cache_clear()
    return sorted(kinds.vocabulary())


def test_the_vocabulary_holds_gqa_and_the_detectors_classes(words: list[str]) -> None:
    ssd = SIGHTS["ssd"].classes
    assert ssd is not None and ssd <= set(words)
    assert {"motorcycle", "vehicle", "man", "person", "flag"} <= set(words)


def test_kind_of_answers_as_wordnet_for_every_pair(words: list[str]) -> None:
    """The seek tool's rule, on WordNet's synsets themselves: the class's sense lies above the
    name's first sense that is a thing one can see.  Every pair: 1,786 x 1,786 words."""
    general = {w: wordnet.sense(w) for w in words}
    things = {w: next((s for s in wordnet.senses(w) if s.lexname() in kinds.PHYSICAL), None) for w in words}
    kinds_found = 0
    for name in words:
        thing = things[name]
        above = wordnet.hypernyms(thing) if thing is not None else frozenset()
        expected = [cls for cls in words if general[cls] is not None and general[cls] in above]
        assert [cls for cls in words if kinds.kind_of(name, cls)] == expected, name
        kinds_found += len(expected)
    assert kinds_found > 5000  # motorcycle is a vehicle, a hot dog food, ...


def nearest(classes: frozenset[str], cls: str) -> frozenset[str]:
    """The words among `classes` on the nearest WordNet level above `cls` that has any (the
    order of a level's synsets is nltk's, which changes from process to process)."""
    levels = islice(wordnet.levels_above(wordnet.senses(cls)[:1], instances=False), kinds.DEPTH)
    found = ({word for s in level for word in wordnet.names(s)} & classes for level in levels)
    return frozenset(next((words for words in found if words), ()))


def test_coarse_answers_as_wordnet_for_every_class(words: list[str]) -> None:
    """For the SSD, and for a perceiver naming every GQA class (the nearest class of all):
    one of the words of the nearest level, the same in every process."""
    everything = Sight("every class", frozenset(words), None, None)
    for sight, found in ((SIGHTS["ssd"], 250), (everything, 1000)):
        assert sight.classes is not None
        for cls in words:
            answer, expected = kinds.coarse(sight, cls), nearest(sight.classes, cls)
            assert answer in expected if expected else answer is None, (sight.name, cls)
        assert sum(kinds.coarse(sight, cls) is not None for cls in words) > found
    assert kinds.coarse(SIGHTS["ssd"], "man") == "person"
    assert kinds.coarse(SIGHTS["owlvit"], "man") is None


def test_a_word_outside_the_table_is_asked_of_wordnet() -> None:
    assert "tabby cat" not in kinds.installed()
    assert kinds.kind_of("tabby cat", "animal") and not kinds.kind_of("tabby cat", "vehicle")
    assert kinds.coarse(SIGHTS["ssd"], "tabby cat") == "cat"


def test_a_missing_table_is_built_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "kinds" / "wordnet.json"
    built = kinds.table(path)
    assert path.is_file() and kinds.read(path) == built
    assert set(built) == kinds.vocabulary()
    assert built["motorcycle"] == kinds.entry("motorcycle")


@pytest.mark.parametrize("stale", ["recipe", "exceptions", "unreadable", "truncated"])
def test_a_stale_or_broken_table_is_built_again(tmp_path: Path, stale: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "wordnet.json"
    kinds.build(path)
    table = json.loads(path.read_text())
    if stale == "recipe":
        path.write_text(json.dumps({**table, "about": {**table["about"], "recipe": "0"}}))
    elif stale == "exceptions":  # a sense chosen otherwise since the table was made
        monkeypatch.setitem(wordnet.EXCEPTIONS, "flag", "flag.n.01")
    elif stale == "unreadable":
        path.write_bytes(b"\xff{")
    else:
        path.write_text(path.read_text()[:1000])
    assert kinds.read(path) is None
    rebuilt = kinds.table(path)
    assert kinds.read(path) == rebuilt
    assert rebuilt["motorcycle"] == kinds.entry("motorcycle")


def test_a_cache_that_cannot_be_written_still_answers(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    entries = kinds.table(blocked / "wordnet.json")
    assert entries["motorcycle"] == kinds.entry("motorcycle") and not (blocked / "wordnet.json").exists()


def test_the_table_answers_without_wordnet(words: list[str], tmp_path: Path) -> None:
    """A fresh process with no WordNet installed: widening the table's words answers without
    importing nltk; a word outside it needs WordNet, and says so."""
    script = ("import sys\n"
              "from qlang.vision.kinds import coarse, kind_of\n"
              "from qlang.vision.sight import SIGHTS\n"
              "print(kind_of('motorcycle', 'vehicle'), kind_of('toaster', 'person'),"
              " coarse(SIGHTS['ssd'], 'man'), 'nltk' in sys.modules)\n"
              "try:\n"
              "    kind_of('tabby cat', 'animal')\n"
              "except Exception as exc:\n"
              "    print(type(exc).__name__)\n")
    environment = {**os.environ, wordnet.ENV_VAR: str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                          check=True)
    assert done.stdout.split() == ["True", "False", "person", "False", "WordNetMissing"]


def test_a_levels_synsets_are_taken_by_name() -> None:
    """An apple is both an edible fruit and a pome, one level up, in an order nltk changes from
    process to process: the table takes them by name, so `coarse` answers alike in every one."""
    assert kinds.entry("apple").above[:4] == ("edible fruit", "pome", "false fruit", "fruit")
