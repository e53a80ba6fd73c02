"""The small parser: prefix tokens, the typed automaton, training, saving, decoding, the cascade.

Programs and questions are the real GQA ones of ../shared/data; the shipped model is the one
in qlang/data/models/small-qlang.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import qlang
from qlang.commands.main import cli
from qlang.passes.canonical import canonicalize, equivalent
from qlang.passes.typecheck import check as diagnostics
from qlang.small import files
from qlang.small import model as small_model
from qlang.small.automaton import Automaton
from qlang.small.beam import beam_search
from qlang.small.network import Config
from qlang.small.parser import SMALL_MODEL, SmallParser
from qlang.small.tokens import EOS, from_prefix, prefix, target_vocabulary
from qlang.syntax import gqa
from qlang.train import loop
from qlang.train.pairs import make_pairs
from qlang.train.small import LOOP, SmallSettings, train
from tests.conftest import DATA, all_questions
from tests.strategies import programs

QUESTIONS = sorted((DATA / "gqa" / "questions").glob("*.json"))
TINY = SmallSettings(embedding=16, hidden=32, loop=LOOP.given(max_steps=40, batch_size=8,
                                                              learning_rate=1e-2, checkpoint_every=10))


@pytest.fixture(scope="module")
def automaton() -> Automaton:
    return Automaton(target_vocabulary())


@pytest.fixture(scope="module")
def few():
    made, _ = make_pairs(QUESTIONS)
    return [p for p in made if p.split == "train"][:24]


@pytest.fixture(scope="module")
def trained(few, tmp_path_factory):
    out = tmp_path_factory.mktemp("small")
    train(few, out, TINY, progress=False)
    return out


def _gold(record: dict) -> qlang.Node:
    return canonicalize(gqa.to_ir(gqa.steps_from_json(record["semantic"])))


@given(programs())
@settings(max_examples=200, deadline=None)
def test_prefix_round_trips_every_program(program) -> None:
    assert from_prefix(prefix(program)) == program


def test_prefix_refuses_incomplete_or_overlong_token_lists() -> None:
    tokens = prefix(qlang.op("exist", qlang.op("select", qlang.op("scene"), "car")))
    for broken in (tokens[:-1], [*tokens, "car"], ["car", *tokens[1:]], ["exist(", "nope("]):
        with pytest.raises(qlang.QlangError):
            from_prefix(broken)


def _accepts(automaton: Automaton, tokens: list[str]) -> bool:
    state = automaton.start()
    for token in [*tokens, EOS]:
        token_id = automaton.vocabulary.id(token)
        if token_id not in automaton.allowed(state):
            return False
        if token != EOS:
            state = automaton.advance(state, token_id)
    return state.done


def test_the_automaton_admits_every_real_gold_program(automaton) -> None:
    records = list(all_questions().values())
    assert len(records) > 3000
    for record in records:
        try:
            gold = _gold(record)
        except qlang.QlangError:
            continue  # GQA's few unreadable programs are refused before any model sees them
        assert _accepts(automaton, prefix(gold)), record["question"]


def test_the_automaton_refuses_ill_typed_and_unknown_tokens(automaton) -> None:
    refused = (["select(", "scene(", "car"],  # no answer at the root
               ["query(", "select(", "scene(", "car", "color"],  # Objects where Object goes
               ["verify_attr(", "unique(", "scene(", "color", "wooden"],  # not a colour
               ["exist(", "select(", "scene(", "flying saucer"])  # not a class
    for tokens in refused:
        assert not _accepts(automaton, tokens), tokens


@given(st.randoms(use_true_random=False))
@settings(max_examples=150, deadline=None)
def test_every_random_walk_of_the_automaton_checks(automaton, rng: random.Random) -> None:
    automaton = Automaton(automaton.vocabulary, max_length=rng.randint(4, 30))
    state, tokens = automaton.start(), []
    while not state.done:
        token = rng.choice(automaton.allowed(state))
        tokens.append(automaton.vocabulary.tokens[token])
        state = automaton.advance(state, token)
    assert len(tokens) <= automaton.max_length
    program = from_prefix(tokens)
    # but a symmetric operation's operand repeated (`two_same(scene(), scene(), color)`): the
    # automaton would have to compare whole subtrees; the parser skips such a candidate
    assert {d.kind for d in diagnostics(program) if not d.warning} <= {"operands"}, tokens


def test_an_untrained_model_still_decodes_checked_programs(few) -> None:
    import torch

    from qlang.small.tokens import source_vocabulary

    torch.manual_seed(1)
    config = Config(source_vocabulary(p.question for p in few).tokens,
                    target_vocabulary().tokens, embedding=8, hidden=16, max_length=20)
    parser = SmallParser(small_model.network(small_model.Seq2Seq(config).eval()), beam=3)
    for parsed in parser.parse(["Is there a red car?", "", "?!", "zxqv " * 50]):
        assert parsed.root is not None, parsed.error
        assert 0 < parsed.probability <= 1
        assert not [d for d in qlang.check(parsed.root) if not d.warning]


def test_a_tiny_parser_trains_and_its_loss_falls(trained) -> None:
    losses = json.loads((trained / "losses.json").read_text())
    assert len(losses) == TINY.loop.max_steps
    assert sum(losses[-5:]) / 5 < 0.7 * sum(losses[:5]) / 5


def test_a_run_records_its_settings_flat_the_loop_in_its_place(trained) -> None:
    """run.json and train.json list the settings as the trainer did before the loop's were one
    value, so an older run's checkpoint still resumes."""
    for name in ("run.json", "train.json"):
        settings = json.loads((trained / name).read_text())["settings"]
        assert list(settings) == ["embedding", "hidden", "layers", "dropout", "learning_rate",
                                  "batch_size", "epochs", "max_steps", "warmup", "seed",
                                  "checkpoint_every", "max_length"]
        assert (settings["hidden"], settings["max_steps"], settings["warmup"]) == (32, 40, LOOP.warmup)


def test_save_then_load_gives_the_same_programs_and_scores(trained, few) -> None:
    import torch

    from qlang.small.beam import encode_questions

    first = small_model.load(trained / "model")
    questions = [p.question for p in few[:8]]
    source, lengths, copy = map(torch.from_numpy, encode_questions(first.vocabularies, questions))
    small_model.save(first, trained / "again")
    second = small_model.load(trained / "again")
    automaton = Automaton(first.vocabularies.target, first.config.max_length)
    beams = beam_search(small_model.network(first), automaton, questions)
    assert beams == beam_search(small_model.network(second), automaton, questions)
    assert beams == beam_search(files.load(trained / "again"), automaton, questions)
    with torch.no_grad():
        target = torch.ones((len(questions), 3), dtype=torch.long)
        assert torch.equal(first(source, lengths, copy, target), second(source, lengths, copy, target))


def test_a_killed_run_resumes_from_its_checkpoint(few, trained, tmp_path, monkeypatch) -> None:
    save = loop.save_checkpoint

    def save_then_die(*args):
        save(*args)
        raise KeyboardInterrupt

    monkeypatch.setattr(loop, "save_checkpoint", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        train(few, tmp_path, TINY, progress=False)
    monkeypatch.setattr(loop, "save_checkpoint", save)
    train(few, tmp_path, TINY, progress=False)
    resumed = json.loads((tmp_path / "losses.json").read_text())
    assert resumed == pytest.approx(json.loads((trained / "losses.json").read_text()), rel=1e-4)


def test_batched_and_single_decoding_agree(trained, few) -> None:
    parser = SmallParser.load(trained / "model")
    questions = [p.question for p in few[:6]]
    batched = parser.parse(questions)
    single = [parser.parse([q])[0] for q in questions]
    assert [p.tokens for p in batched] == [p.tokens for p in single]
    assert [p.probability for p in batched] == pytest.approx([p.probability for p in single], rel=1e-4)


# ----- the shipped model ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def shipped() -> SmallParser:
    return SmallParser.load()


def test_the_shipped_model_is_small_calibrated_and_has_a_model_card(shipped) -> None:
    size = sum(f.stat().st_size for f in SMALL_MODEL.iterdir())
    assert size < 10_000_000
    assert shipped.threshold is not None and 0 < shipped.threshold < 1
    card = (SMALL_MODEL / "README.md").read_text()
    for needed in ("qlangc train --arch seq2seq", "qlangc calibrate", "seed", "dev", "exact"):
        assert needed in card


def test_the_shipped_model_translates_the_documented_questions(shipped) -> None:
    from tests.conftest import SHOWN

    parsed = shipped.parse(list(SHOWN))
    for result, program in zip(parsed, SHOWN.values(), strict=True):
        assert result.root is not None and equivalent(result.root, qlang.parse(program))


def test_the_cascade_takes_each_path(tmp_path) -> None:
    """Threshold 0: the small parser answers; a question unlike GQA's under the calibrated
    threshold: the fine-tuned model does, rescoring the small parser's candidates or generating."""
    source = {"a": "Is the cup red?", "b": "Colorless green ideas sleep furiously; which one?"}
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps({"id": k, "question": v}) + "\n" for k, v in source.items()))
    runner = CliRunner()
    low = runner.invoke(cli, ["translate", "--jsonl", str(path), "--cascade-threshold", "0"])
    default = runner.invoke(cli, ["translate", "--jsonl", str(path)])
    assert low.exit_code == 0 and default.exit_code == 0, low.output + default.output
    low_paths = [json.loads(line)["path"] for line in low.stdout.splitlines()]
    paths = {json.loads(line)["id"]: json.loads(line)["path"] for line in default.stdout.splitlines()}
    assert low_paths == ["small", "small"]
    assert paths["a"] == "small" and paths["b"] in ("rescored", "finetuned")  # (tests/test_rescoring.py)


def test_small_translator_on_the_command_line_and_in_batches(tmp_path) -> None:
    result = CliRunner().invoke(cli, ["translate", "--translator", "small", "--syntax", "flat",
                                      "Is the cup red?"])
    assert result.exit_code == 0, result.output
    qlang.check(qlang.parse(result.stdout.strip(), "flat"))
    lines = [{"id": str(i), "question": q} for i, q in enumerate(
        ["Is the cup red?", "", "What color is the car?"] * 30)]
    source = tmp_path / "q.jsonl"
    source.write_text("\n".join(json.dumps(line) for line in lines) + "\nnot json\n")
    output = tmp_path / "out.jsonl"
    args = ["translate", "--translator", "small", "--jsonl", str(source), "--output", str(output)]
    assert CliRunner().invoke(cli, args).exit_code == 1  # the empty questions and the bad line
    results = [json.loads(line) for line in output.read_text().splitlines()]
    assert len(results) == len(lines) + 1
    assert [r["id"] for r in results[:-1]] == [line["id"] for line in lines]
    assert sum("error" in r for r in results) == 31
    assert all(r["path"] == "small" for r in results if "error" not in r)
