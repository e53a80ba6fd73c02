"""Training data and fine-tuning, for real: pairs from the shared GQA questions; a LoRA adapter
trained a few steps on the bundled SmolLM2, exported to GGUF and decoded by llama.cpp under the
typed grammar; a run killed after a checkpoint resumes exactly."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import qlang
from qlang.train import loop
from qlang.train.finetune import LOOP, TrainSettings, train
from qlang.train.pairs import make_pairs, read_pairs, split_of, write_pairs
from tests.conftest import DATA, qlangc_process

QUESTIONS = sorted((DATA / "gqa" / "questions").glob("*.json"))


@pytest.fixture(scope="module")
def pairs():
    return make_pairs(QUESTIONS)


def test_split_is_by_image_and_stable(pairs) -> None:
    made, _ = pairs
    images = {split: {p.image for p in made if p.split == split} for split in ("train", "dev")}
    assert not images["train"] & images["dev"]
    assert len([p for p in made if p.split == "dev"]) >= 300
    assert split_of("n54424", 12.0) == split_of("n54424", 12.0)
    assert make_pairs(QUESTIONS)[0] == made


def test_pairs_are_distinct_checked_programs(pairs) -> None:
    made, counts = pairs
    keys = [(p.split, " ".join(p.question.lower().split()), p.program) for p in made]
    assert len(keys) == len(set(keys)) and counts["duplicate"] > 0
    for pair in made[:300]:
        qlang.check(qlang.parse(pair.program, "nested"))


def test_exclude_keeps_evaluation_questions_and_their_images_out(pairs, tmp_path) -> None:
    made, _ = pairs
    held_out = {p.id: p.record for p in made[:50]}
    path = tmp_path / "held_out.json"
    path.write_text(json.dumps(held_out))
    kept, counts = make_pairs(QUESTIONS, exclude=[path])
    images = {r["imageId"] for r in held_out.values()}
    assert not {p.id for p in kept} & set(held_out)
    assert not {p.image for p in kept} & images
    assert counts["excluded"] >= 50


def test_pairs_round_trip_through_json_lines(pairs, tmp_path) -> None:
    made, _ = pairs
    write_pairs(made[:20], tmp_path / "p.jsonl")
    assert list(read_pairs(tmp_path / "p.jsonl")) == made[:20]


# ----- fine-tuning -----------------------------------------------------------------------------

TINY = TrainSettings(rank=2, alpha=4, loop=LOOP.given(learning_rate=3e-3, batch_size=2, max_steps=8,
                                                     checkpoint_every=4))


@pytest.fixture(scope="module")
def base() -> Path:
    from qlang.translate.models import hf_directory

    return hf_directory("smollm2")


@pytest.fixture(scope="module")
def few(pairs):
    return [p for p in pairs[0] if p.split == "train"][:4]


@pytest.fixture(scope="module")
def trained(base, few, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    train(few, base, out, TINY, progress=False)
    return out


def test_loss_falls_on_a_few_pairs(trained) -> None:
    losses = json.loads((trained / "losses.json").read_text())
    assert len(losses) == 8
    assert sum(losses[-2:]) / 2 < 0.8 * sum(losses[:2]) / 2


def test_exported_adapter_decodes_a_constrained_program_in_llama_cpp(trained, few) -> None:
    from qlang.translate.adapters import export_lora
    from qlang.translate.backends import load_backend
    from qlang.translate.examples import load_pool
    from qlang.translate.translator import Settings, Translator

    gguf = export_lora(trained / "adapter", trained / "adapter.gguf")
    backend = load_backend("llama-cpp", lora=str(gguf))
    translator = Translator(backend, load_pool(), Settings(translator="finetuned", max_tokens=96))
    result = translator.translate(few[0].question)
    assert result.ok, result.error
    assert result.prompt_tokens < 40  # the instruction and the question, no examples


def test_calibration_scores_with_the_adapter_it_is_given(pairs, trained, tmp_path) -> None:
    """`calibrate --adapter`: the retrained fallback, not the bundled one, scores the candidates
    (a file that is no adapter is refused where it is named) and the cascade's setting is written."""
    from qlang.small.files import CONFIG
    from qlang.small.parser import SMALL_MODEL
    from qlang.translate.adapters import export_lora

    dev = [p for p in pairs[0] if p.split == "dev"][:6]
    write_pairs(dev, tmp_path / "dev.jsonl")
    (tmp_path / "ft.jsonl").write_text("".join(json.dumps({"id": p.id, "program": p.program}) + "\n"
                                               for p in dev))
    model = tmp_path / "model"
    shutil.copytree(SMALL_MODEL, model)
    (tmp_path / "not.gguf").write_text("not an adapter")
    command = ("calibrate", str(model), "--dev", str(tmp_path / "dev.jsonl"), "--fallback",
               str(tmp_path / "ft.jsonl"), "--rescore-below", "1")
    status, out = qlangc_process(*command, "--adapter", str(tmp_path / "not.gguf"))
    assert status == 1 and "not.gguf: error:" in out and "Traceback" not in out, out
    gguf = export_lora(trained / "adapter", tmp_path / "adapter.gguf")
    # in a process of its own: with this run in the suite's process, two whole-suite runs died
    # later (an abort, a segfault) in the vision modules; llama.cpp's state is the suspect
    status, out = qlangc_process(*command, "--adapter", str(gguf))
    assert status == 0, out
    assert "all of dev: threshold" in out and "odd -> even (held-out half)" in out
    # two decimals: a mean of 304.5 of 314 is 96.97 %, which one decimal would print as 97.0 %
    assert re.search(r"200 random halvings \(held out, both halves\): exact \d+\.\d\d/6 \(\d+\.\d\d%\)", out)
    # the issue's figures: each path's share and exactness held out, and the fine-tuned models'
    assert re.search(r"held out, by path: small \d+\.\d% \(\d+\.\d% exact\), rescored .*; the fine-tuned "
                     r"models \d+\.\d% exact on the \d+\.\d% they answer", out), out
    calibration = json.loads((model / CONFIG).read_text())["notes"]["calibration"]
    assert calibration["questions"] == 6 and calibration["fallback"] == str(tmp_path / "ft.jsonl")


def test_calibration_names_a_bundled_scorer_or_an_adapter_not_both(tmp_path) -> None:
    from tests.conftest import run

    (tmp_path / "dev.jsonl").write_text("")
    common = ("calibrate", str(tmp_path), "--dev", str(tmp_path / "dev.jsonl"), "--fallback",
              str(tmp_path / "dev.jsonl"))
    status, _, err = run(*common, "--scorer", "gemma3-qlang", "--base", "gemma3")
    assert status == 1 and "without --adapter or --base" in err
    status, _, err = run(*common, "--scorer", "nothing-such")
    assert status == 1 and "no bundled adapter 'nothing-such' (one of smollm2-qlang, gemma3-qlang)" in err


def test_a_killed_run_resumes_from_its_checkpoint(base, few, trained, tmp_path, monkeypatch) -> None:
    save = loop.save_checkpoint

    def save_then_die(path, model, optimizer, step, losses):
        save(path, model, optimizer, step, losses)
        raise KeyboardInterrupt

    monkeypatch.setattr(loop, "save_checkpoint", save_then_die)
    with pytest.raises(KeyboardInterrupt):
        train(few, base, tmp_path, TINY, progress=False)
    monkeypatch.setattr(loop, "save_checkpoint", save)
    train(few, base, tmp_path, TINY, progress=False)
    resumed = json.loads((tmp_path / "losses.json").read_text())
    whole = json.loads((trained / "losses.json").read_text())
    assert resumed == pytest.approx(whole, rel=1e-4)


def test_a_checkpoint_of_another_run_is_not_resumed(base, few, trained) -> None:
    with pytest.raises(qlang.QlangError, match="another run"):
        train(few[:3], base, trained, TINY, progress=False)


@pytest.mark.parametrize("model", ["smollm2", "gemma3"])
def test_an_adapter_scores_alike_in_llama_cpp_and_transformers(model, few, tmp_path) -> None:
    """Llama's converter (SmolLM2's) reorders the query and key rows, Gemma 3's does not.  Each
    adapter exported with the other's layout scored its programs 4–5 nats apart in the two
    engines, against 0.4 (the quantised base's noise) as exported; the adapter moves them by
    over a hundred."""
    from qlang.translate.adapters import export_lora
    from qlang.translate.backends import load_backend
    from qlang.translate.models import hf_directory
    from qlang.translate.translator import Settings, Translator

    train(few, hf_directory(model), tmp_path, TINY, progress=False)
    gguf = export_lora(tmp_path / "adapter", tmp_path / "adapter.gguf")
    programs = [[qlang.parse(p.program, "nested") for p in few]]
    question = [few[0].question]

    def scores(backend: str, **lora: str) -> list[float]:
        translator = Translator(load_backend(backend, model, **lora), [], Settings(translator="finetuned"))
        result = translator.likelihoods(question, programs)
        assert result is not None
        return result[0]

    cpp, hf = scores("llama-cpp", lora=str(gguf)), scores("transformers", lora=str(gguf))
    base = scores("llama-cpp")
    moved = max(abs(a - b) for a, b in zip(cpp, base, strict=True))
    apart = max(abs(a - b) for a, b in zip(cpp, hf, strict=True))
    assert moved > 20 and apart < 1.5, (cpp, hf, base)
