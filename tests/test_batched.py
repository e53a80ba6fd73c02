"""The transformers backend's requests decoded together (`backends.batched`): the programs of
`generate_many` are `generate`'s one by one, with the real bundled model and adapter, and its
scores are those of each continuation scored alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from qlang.translate.backends import Request, load_backend
from qlang.translate.grammar import generate
from qlang.translate.models import ADAPTER
from qlang.translate.translator import Settings, Translator
from tests import tiny_model
from tests.conftest import questions


@pytest.fixture(scope="module")
def one_thread() -> Iterator[None]:
    """torch on one thread: on a shared two-core machine its threads wait for each other
    (a decoding step 4x slower beside other work)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def finetuned(one_thread: None) -> Translator:
    backend = load_backend("transformers", lora=str(ADAPTER), batch=8)
    return Translator(backend, [], Settings(translator="finetuned"))


def test_generating_together_gives_the_programs_of_one_by_one(finetuned: Translator) -> None:
    dev = [record["question"] for record in list(questions("testdev_ood_head.json").values())[:4]]
    alone = [finetuned.translate(question) for question in dev]
    together = finetuned.translate_many(dev)
    assert all(t.ok for t in alone)
    assert [t.program for t in together] == [t.program for t in alone]
    assert [t.completion_tokens for t in together] == [t.completion_tokens for t in alone]


def test_scores_together_are_each_scored_alone(finetuned: Translator) -> None:
    backend = finetuned.backend
    programs = ["exist(select(scene(), car))", "query(unique(select(scene(), car)), color)"]
    asked = ("Is there a car?", "What color is the car?")
    requests = [finetuned.request(finetuned.prompt(q)[0]) for q in asked]
    together = backend.likelihoods(requests, [programs, programs[1:]])  # type: ignore[attr-defined]
    alone = [backend.likelihoods([r], [[p]])[0][0]  # type: ignore[attr-defined]
             for r, p in ((requests[0], programs[0]), (requests[0], programs[1]), (requests[1], programs[1]))]
    assert [len(scores) for scores in together] == [2, 1]
    assert [*together[0], *together[1]] == pytest.approx(alone, abs=1e-3)
    assert together[0][0] > together[0][1]  # "Is there ...?" asks exist, not query
    assert together[1][0] > together[0][1]


def test_the_normaliser_in_float32_is_the_float64_one() -> None:
    """Gemma 3's 262,144 logits a row, of the spread a model gives them."""
    import numpy as np

    from qlang.translate.backends.likelihood import _log_sum_exp

    logits = np.random.default_rng(0).normal(0.0, 8.0, (3, 262_144)).astype(np.float32)
    logits[1, 7] = 60.0  # one token almost sure
    wide = logits.astype(np.float64)
    top = wide.max(axis=1, keepdims=True)
    expected = (top + np.log(np.exp(wide - top).sum(axis=1, keepdims=True)))[:, 0]
    assert np.abs(_log_sum_exp(logits) - expected).max() < 1e-5


def test_rows_stop_at_their_own_budget_and_without_a_grammar(one_thread: None) -> None:
    tiny = load_backend("transformers", str(tiny_model.build()))
    lark = generate("nested", "lark")
    asked = (("Is there a red car?", 60, lark), ("Who is wearing the helmet?", 3, lark),
             ("What color is the sky?", 60, None))
    requests = [Request((), tiny_model.prompt(q), chat=False, max_tokens=budget, lark=grammar)
                for q, budget, grammar in asked]
    together = tiny.generate_many(requests)  # type: ignore[attr-defined]
    alone = [tiny.generate(request) for request in requests]
    assert [(g.text, g.completion_tokens) for g in together] == [(g.text, g.completion_tokens) for g in alone]
    assert together[1].completion_tokens == 3


def test_generation_ends_at_the_models_end_token_whatever_the_tokenizer_says(tmp_path, one_thread) -> None:
    """transformers 5.17 (the GPU machine's) writes a GGUF's tokenizer with <|im_start|> as its
    end token: the grammar's end would allow only that token, which never stops a generation."""
    import json
    import shutil

    folder = tiny_model.build()
    quirky = tmp_path / "quirky"
    shutil.copytree(folder, quirky)
    config = json.loads((quirky / "tokenizer_config.json").read_text())
    (quirky / "tokenizer_config.json").write_text(json.dumps(config | {"eos_token": "<pad>"}))
    request = Request((), tiny_model.prompt("Is there a red car?"), chat=False, max_tokens=60,
                      lark=generate("nested", "lark"))
    right = load_backend("transformers", str(folder))
    wrong = load_backend("transformers", str(quirky))
    assert wrong.tokenizer.eos_token == "<pad>"  # type: ignore[attr-defined]
    expected = right.generate(request)
    assert expected.completion_tokens < 60
    for backend in (right, wrong):
        assert [(g.text, g.completion_tokens) for g in (backend.generate(request),
                                                         *backend.generate_many([request]))] \
            == [(expected.text, expected.completion_tokens)] * 2  # type: ignore[attr-defined]
