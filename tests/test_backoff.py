"""Lexical back-off (`qlang.train.backoff`): a word the small parser's training questions never
said is read by its encoder as the nearest word they did, and copied as said."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

from qlang.api import parse
from qlang.passes.canonical import equivalent
from qlang.small import files
from qlang.small.parser import SMALL_MODEL, SmallParser
from qlang.small.tokens import Vocabulary
from qlang.train.backoff import table, trained_words
from qlang.train.pairs import read_pairs
from tests.conftest import run

HELD_OUT = SMALL_MODEL / "knowledge-dev.jsonl"


def test_a_word_is_read_as_the_nearest_trained_one_only_where_it_is_near() -> None:
    trained = ["usually", "car", "table", "red"]
    found = table(trained, Vocabulary.of(trained),
                  words=["generally", "automobile", "crimson", "car", "bananas", "generally"])
    # crimson is farther from red than LEAST; car is a word of the model's own; "bananas" is
    # read as banana and the plural mark, never as itself
    assert found == {"generally": "usually", "automobile": "car"}


def test_the_encoder_reads_the_backoff_word_and_copying_takes_the_word_as_said() -> None:
    vocabularies = SmallParser.load().network.vocabularies
    said = "Is that trumpet generally brass?"
    read = said.replace("generally", vocabularies.backoff["generally"])
    plain = replace(vocabularies, backoff={})
    ids, copy = vocabularies.row(said)
    assert ids == vocabularies.row(read)[0] != plain.row(said)[0]
    assert copy == plain.row(said)[1]


def test_a_held_out_phrasing_whose_word_was_never_trained_is_parsed_through_its_backoff() -> None:
    """"Is that trumpet generally brass?": the held-out phrasing of `verify_know ...
    has_property`, whose "generally" no training question says."""
    parser = SmallParser.load()
    held = [p for p in read_pairs(HELD_OUT) if " generally " in p.question]
    plain = replace(parser.network.vocabularies, backoff={})
    without = SmallParser(replace(parser.network, vocabularies=plain))

    def right(translator: SmallParser) -> int:
        decoded = translator.parse([p.question for p in held])
        return sum(d.root is not None and equivalent(d.root, parse(p.program))
                   for d, p in zip(decoded, held, strict=True))

    assert len(held) >= 10 and right(parser) >= 0.9 * len(held) > right(without)


def test_the_command_gives_a_model_folder_its_table(tmp_path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(SMALL_MODEL, folder)
    config = json.loads((folder / files.CONFIG).read_text())
    (folder / files.CONFIG).write_text(json.dumps({**config, "backoff": {}}))
    status, out, err = run("backoff", str(folder), "--data", str(HELD_OUT))
    assert status == 0, out + err
    made = files.read_config(folder)
    trained = set(trained_words(read_pairs(HELD_OUT)))
    assert out.startswith(f"{len(made.backoff)} words read as trained ones")
    assert made.backoff and set(made.backoff.values()) <= trained
    assert made.notes["calibration"] == config["notes"]["calibration"]  # nothing else changes
    assert SmallParser.load(folder).parse(["Is the automobile red?"])[0].root is not None


def test_the_command_given_a_bad_model_folder_exits_1(tmp_path) -> None:
    (tmp_path / files.CONFIG).write_text("{")
    status, _out, err = run("backoff", str(tmp_path), "--data", str(HELD_OUT))
    assert status == 1 and f"{tmp_path / files.CONFIG}: " in err and "not a JSON config" in err


def test_training_the_small_parser_ends_with_its_table(tmp_path) -> None:
    status, out, err = run("train", "--arch", "seq2seq", "--data", str(HELD_OUT), "--out",
                           str(tmp_path / "run"), "--max-steps", "2", "--hidden", "8", "--device", "cpu")
    assert status == 0, out + err
    made = files.read_config(tmp_path / "run" / "model")
    assert json.loads(out[out.index("{"):])["backoff"] == f"{len(made.backoff)} words" and made.backoff
