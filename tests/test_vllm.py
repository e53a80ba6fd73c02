"""The vLLM backend without a GPU: request building, the grammar hand-off, the adapter it loads,
batched translation through `generate_many`, and a clear error where vLLM is not installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from click.testing import CliRunner

import qlang
from qlang.commands.main import cli
from qlang.translate.backends import Generation, Request, load_backend, vllm_engine
from qlang.translate.backends.vllm_engine import VllmBackend, byte_level_tokenizer, peft_adapter, vllm_request
from qlang.translate.examples import load_pool
from qlang.translate.grammar import generate
from qlang.translate.models import ADAPTER, hf_directory
from qlang.translate.translator import Settings, Translator

HAS_VLLM = importlib.util.find_spec("vllm") is not None


def test_a_request_becomes_greedy_sampling_with_its_grammar() -> None:
    completion = vllm_request(Request((), "Program:\n", chat=False, lark="start: x", max_tokens=64))
    assert completion.prompt == "Program:\n" and completion.messages is None
    assert completion.sampling == {"temperature": 0.0, "max_tokens": 64,
                                   "structured_outputs": {"grammar": "start: x"}}
    chat = vllm_request(Request((("system", "S"), ("user", "Q")), "unused", chat=True))
    assert chat.prompt is None and "structured_outputs" not in chat.sampling
    assert chat.messages == ({"role": "system", "content": "S"}, {"role": "user", "content": "Q"})
    with pytest.raises(qlang.QlangError, match="Lark form"):
        vllm_request(Request((), "p", chat=False, gbnf="root ::= x"))


@pytest.mark.parametrize("kind", ["finetuned", "fewshot"])
def test_the_translators_requests_hand_vllm_the_typed_lark_grammar(kind) -> None:
    class Unused:  # the translator only builds requests here; nothing is generated
        name, model = "vllm", "none"

    translator = Translator(Unused(), load_pool(), Settings(translator=kind, examples=2))  # type: ignore[arg-type]
    prompt, _ = translator.prompt("Is the cup red?")
    built = vllm_request(translator.request(prompt))
    assert built.sampling["structured_outputs"]["grammar"] == generate("nested", "lark")
    if kind == "finetuned":  # the instruction prompt, as in training; no chat template
        assert built.prompt is not None and built.prompt.endswith("Question: Is the cup red?\nProgram:\n")
    else:
        assert built.messages is not None and built.messages[-1]["role"] == "user"


def test_the_shipped_gguf_adapter_becomes_the_peft_adapter_it_was_exported_from(tmp_path) -> None:
    import gguf
    import numpy as np
    from safetensors.numpy import load_file

    from qlang.translate.adapters import export_lora

    base = hf_directory("smollm2")
    folder = peft_adapter(str(ADAPTER), base)
    assert peft_adapter(str(ADAPTER), base) == folder  # converted once
    again = export_lora(folder, tmp_path / "again.gguf")
    original = {t.name: np.array(t.data) for t in gguf.GGUFReader(str(ADAPTER)).tensors}
    exported = {t.name: np.array(t.data) for t in gguf.GGUFReader(str(again)).tensors}
    assert original.keys() == exported.keys() and len(original) == 420
    assert all(np.array_equal(original[k], exported[k]) for k in original)
    from peft import LoraConfig

    config = LoraConfig.from_pretrained(str(folder))
    assert (config.r, config.lora_alpha) == (16, 32)
    assert len(load_file(str(Path(folder) / "adapter_model.safetensors"))) == 420


def test_vllm_gets_a_byte_level_decoder_that_llguidance_reads_right(tmp_path, monkeypatch) -> None:
    """transformers 5.17 (the GPU machine's) writes the GGUF's tokenizer with this decoder: vLLM's
    guidance backend would see no space in any token, and the grammar refuse every program."""
    import json
    import shutil

    import llguidance
    import llguidance.hf
    from transformers import AutoTokenizer

    base = hf_directory("smollm2")
    quirky = tmp_path / "quirky"
    quirky.mkdir()
    for name in ("tokenizer.json", "tokenizer_config.json", "config.json"):
        shutil.copy(base / name, quirky / name)
    tokenizer = json.loads((base / "tokenizer.json").read_text())
    tokenizer["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
        {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}]}
    tokenizer["model"]["byte_fallback"] = True
    (quirky / "tokenizer.json").write_text(json.dumps(tokenizer))
    monkeypatch.setattr(vllm_engine, "CACHE", tmp_path / "cache")
    fixed = byte_level_tokenizer(quirky)
    assert fixed.parent == tmp_path / "cache" and byte_level_tokenizer(quirky) == fixed  # made once
    assert byte_level_tokenizer(fixed) == fixed  # a byte-level decoder already: the folder itself

    program = "query(unique(filter(select(scene(), clothing), color, black)), name)"
    grammar = llguidance.grammar_from("lark", generate("nested", "lark"))
    accepted = []
    for folder in (quirky, fixed):
        hf = AutoTokenizer.from_pretrained(str(folder))
        ids = hf.encode(program, add_special_tokens=False)
        matcher = llguidance.LLMatcher(llguidance.hf.from_tokenizer(hf), grammar)
        accepted.append(matcher.consume_tokens(ids) and matcher.is_accepting())
        assert hf.decode(ids) == program
    assert accepted == [False, True]


class Batched:
    """The real llama.cpp backend, answering a batch through `generate_many` as vLLM does."""

    def __init__(self) -> None:
        self.inner = load_backend("llama-cpp", lora=str(ADAPTER))
        self.name, self.model, self.batches = "batched", self.inner.model, 0

    def generate(self, request: Request) -> Generation:
        return self.inner.generate(request)

    def generate_many(self, requests: list[Request]) -> list[Generation]:
        self.batches += 1
        return [self.inner.generate(r) for r in requests]


def test_translate_many_sends_one_batch_and_finishes_each_translation() -> None:
    backend = Batched()
    translator = Translator(backend, [], Settings(translator="finetuned"))  # type: ignore[arg-type]
    questions = ["Is the cup red?", "What is the man holding?"]
    batched = translator.translate_many(questions)
    assert backend.batches == 1
    one_by_one = [translator.translate(q) for q in questions]
    assert [t.program for t in batched] == [t.program for t in one_by_one]
    assert all(t.ok and t.seconds > 0 for t in batched)


@pytest.mark.skipif(HAS_VLLM, reason="vLLM is installed here")
def test_without_vllm_the_backend_is_a_clear_error() -> None:
    with pytest.raises(qlang.QlangError, match="vLLM is not installed"):
        VllmBackend()
    result = CliRunner().invoke(cli, ["translate", "Is the cup red?", "--backend", "vllm",
                                      "--translator", "finetuned"])
    assert result.exit_code == 1 and "vLLM is not installed" in result.output
