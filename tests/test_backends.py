"""Each LLM backend, for real: the bundled GGUF model through llama.cpp, the same model behind
llama-cpp-python's own OpenAI-compatible server on loopback, and a tiny model built here
through transformers.  Constrained outputs must be programs of the language."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import replace

import pytest

import qlang
from qlang.errors import CheckError, Source
from qlang.passes import typecheck
from qlang.paths import package_data
from qlang.translate.backends import BackendError, Request, load_backend
from qlang.translate.backends.greedy import Greedy, Running
from qlang.translate.backends.llama import Repetition
from qlang.translate.grammar import generate
from qlang.translate.models import ADAPTER, gguf_model
from qlang.translate.translator import Settings, Translator
from tests import tiny_model
from tests.conftest import qlangc_process

SYSTEM = "You translate questions about images into programs."
EXAMPLES = ("Is there a red car?\nexist(filter(select(scene(), car), color, red))\n"
            "What color is the cup?\nquery(unique(select(scene(), cup)), color)\n")


def _request(question: str, **grammar: str) -> Request:
    user = f"{EXAMPLES}{question}"
    return Request(messages=(("system", SYSTEM), ("user", user)), completion=f"{user}\n",
                   max_tokens=80, **grammar)


def _assert_program(text: str) -> None:
    """A grammar's sentence parses and is well typed; a symmetric operation's two equal operands
    (which the checker refuses as meaningless) no context-free grammar can rule out."""
    errors = [d for d in typecheck.check(qlang.parse(text, "nested")) if not d.warning]
    assert [d.kind for d in errors] in ([], [typecheck.REPEATED]), CheckError(errors, Source(text))


@pytest.fixture(scope="module")
def llama():
    return load_backend("llama-cpp")


@pytest.mark.parametrize("engine", ["gbnf", "lark"])
def test_llama_cpp_constrained_output_is_a_program(llama, engine: str) -> None:
    grammar = {engine: generate("nested", engine)}
    for question in ("Is there a green truck?", "What is the man holding?"):
        generation = llama.generate(_request(question, **grammar))
        _assert_program(generation.text)
        assert generation.completion_tokens > 0 and generation.seconds > 0


def test_llama_cpp_generates_many_requests_as_it_generates_each(llama) -> None:
    """Requests decoded together (`together`), a step of all of them in one batch, give the
    texts of one-by-one generation, in the requests' order; a GBNF request, which llama.cpp's
    sampler constrains, is generated on its own among them.  (Batched arithmetic rounds
    differently, which may flip a near tie: on the dev questions 39 of 40 programs were the
    same.)  Without `together` the backend generates one after another."""
    lark = generate("nested", "lark")
    questions = ("Is there a green truck?", "What is the man holding?", "What color is the sky?",
                 "Are there both cups and plates?", "Who is wearing the hat?", "Is the dog on the sofa?")
    requests = [_request(q, lark=lark) for q in questions]
    requests.insert(2, _request("Is there a red bus?", gbnf=generate("nested", "gbnf")))
    alone = [llama.generate(request) for request in requests]
    assert [g.text for g in llama.generate_many(requests)] == [g.text for g in alone]
    llama.together = True
    try:
        together = llama.generate_many(requests)
    finally:
        llama.together = False
    assert len(together) == len(requests)
    pairs = [(a.text, b.text) for a, b in zip(together, alone, strict=True)]
    same = [a == b for a, b in pairs]
    assert same[2] and sum(same) >= len(requests) - 1, pairs
    for generation in together:
        _assert_program(generation.text)
        assert generation.completion_tokens > 0 and generation.seconds > 0


def test_a_batch_with_a_prompt_too_long_keeps_every_other_translation() -> None:
    """One question whose prompt exceeds the context spoils `generate_many`; the translator then
    translates each alone, so only that question records the error."""
    finetuned = load_backend("llama-cpp", lora=str(ADAPTER), n_ctx=512)
    translator = Translator(finetuned, [], Settings(translator="finetuned"))
    questions = ["Is the cup red?", "Is the " + "very " * 600 + "red cup there?", "What is the man holding?"]
    batched = translator.translate_many(questions)
    assert [t.ok for t in batched] == [True, False, True]
    assert batched[1].error is not None and batched[1].error.diagnostics[0].kind == "backend"
    assert [t.program for t in batched] == [translator.translate(q).program for q in questions]


def test_llama_cpp_generates_many_within_its_context(llama) -> None:
    """More requests than one context holds are decoded a context-full at a time."""
    lark = generate("nested", "lark")
    requests = [_request(f"Is there a {colour} car?", lark=lark) for colour in ("red", "blue", "green")]
    side = llama._side_context()
    small = Greedy(llama.llm, llama._llama_cpp, replace(side, sequences=2))
    running = [Running(llama.tokens(r), llama._mask(r.lark), r.max_tokens) for r in requests]
    small.generate(running, 1, llama.repetition)
    texts = [llama.llm.detokenize(r.tokens).decode() for r in running]
    assert texts == [llama.generate(r).text for r in requests]
    too_long = Running(list(range(side.tokens)), None, 1)
    with pytest.raises(BackendError, match="do not fit the context"):
        small.generate([too_long], 1, llama.repetition)


def test_repetition_is_a_block_repeated_over_a_span() -> None:
    """Four copies of a block of up to 32 tokens, covering 16 tokens or more, end the output."""
    stop = Repetition()
    program = [5, 6, 7, 6, 7, 8, 9, 9, 10]  # real programs repeat a block at most twice
    assert not any(stop(program[:end]) for end in range(len(program) + 1))
    and_ = [1, 2]  # `and` `(`: eight copies cover 16 tokens
    assert not stop(program + and_ * 7) and stop(program + and_ * 8)
    block = list(range(20, 40))  # one sub-expression of 20 tokens, written again and again
    assert not stop(block * 3) and stop(block * 4) and stop([3, *block * 4])
    assert not stop([4] * 15) and stop([4] * 16)
    assert not stop(list(range(33)) * 4), "a block longer than `period` is not looked for"
    assert not stop([1, 2, 1, 2, 1, 3, 1, 2]), "copies must be in a row"


def test_llama_cpp_stops_when_the_output_repeats(llama) -> None:
    """A grammar that only ever allows more ``and(`` stops at the loop, not at `max_tokens`."""
    request = _request("Is there a green truck?", gbnf='root ::= "and(" root')
    generation = llama.generate(request)
    assert generation.text.startswith("and(and(")
    assert set(generation.text.split("(")) == {"and", ""}
    # the grammar lets the model spell `and` as it likes (`a`, `nd`, `(`): the loop sets in late
    assert generation.completion_tokens < request.max_tokens // 2


def test_gemma_gets_its_chat_template_with_the_system_prompt_in_the_first_turn() -> None:
    """Its GGUF has no template: llama-cpp-python's fallback would be Llama 2's ``[INST]``."""
    gemma = load_backend("llama-cpp", "gemma3", n_ctx=512)
    assert "tokenizer.chat_template" not in gemma.llm.metadata
    request = _request("Is there a green truck?")
    text = gemma.llm.detokenize(gemma.tokens(request), special=True).decode()
    assert text == (f"<bos><start_of_turn>user\n{SYSTEM}\n\n{EXAMPLES}Is there a green truck?"
                    "<end_of_turn>\n<start_of_turn>model\n")
    turns = gemma.tokens(request)
    assert turns[:2] == [gemma.llm.token_bos(), *gemma.llm.tokenize(b"<start_of_turn>", add_bos=False,
                                                                      special=True)]
    assert turns.count(gemma.llm.token_bos()) == 1
    completion = gemma.tokens(Request(messages=(), completion="Question: Is there a cat?", chat=False))
    assert completion[0] == gemma.llm.token_bos() and completion.count(gemma.llm.token_bos()) == 1


def test_loading_gemma_with_its_adapter_prints_nothing_but_the_program() -> None:
    """The shipped cascade scores with it: each load printed 28 llama.cpp warnings, whose levels
    llama-cpp-python's quiet mode misread, before the program (a process of its own: the log
    callback is the process's)."""
    adapter = package_data("models", "gemma3-qlang", "adapter.gguf")
    status, printed = qlangc_process("translate", "--translator", "finetuned", "--model", "gemma3",
                                     "--adapter", str(adapter), "Is the cup red?")
    assert status == 0 and printed.strip() == "verify_attr(unique(select(scene(), cup)), color, red)"


def test_unknown_model_and_backend_are_clear_errors() -> None:
    with pytest.raises(BackendError, match=r"no GGUF model"):
        load_backend("llama-cpp", "/no/such/model.gguf")
    with pytest.raises(BackendError, match=r"no GGUF LoRA adapter"):
        load_backend("llama-cpp", lora="/no/such/adapter.gguf")
    with pytest.raises(BackendError, match="unknown backend"):
        load_backend("telepathy")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server with the bundled model, on loopback."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_model(None).path),
         "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300  # a hang guard: it answers after about 5 s
        while True:
            try:
                urllib.request.urlopen(f"{base}/models", timeout=30)
                break
            except OSError:
                if process.poll() is not None:
                    pytest.fail("the llama-cpp-python server exited at start")
                if time.monotonic() > deadline:
                    pytest.fail("the llama-cpp-python server did not start in 300 s")
                time.sleep(0.2)
        yield base
    finally:
        process.kill()  # nothing to shut down cleanly: no wait for it to
        process.wait()


def test_openai_backend_through_a_real_server(server: str) -> None:
    backend = load_backend("openai", base_url=server)
    constrained = backend.generate(_request("Is there a green truck?", gbnf=generate("nested", "gbnf")))
    _assert_program(constrained.text)
    assert constrained.prompt_tokens > 0 and constrained.completion_tokens > 0
    free = backend.generate(_request("Is there a green truck?"))
    assert free.text and free.completion_tokens > 0


def test_openai_backend_unreachable_server_is_a_clear_error() -> None:
    backend = load_backend("openai", base_url=f"http://127.0.0.1:{_free_port()}/v1", timeout=2.0)
    with pytest.raises(BackendError, match=r"127\.0\.0\.1"):
        backend.generate(_request("Is there a cat?"))


@pytest.fixture(scope="module")
def tiny():
    return load_backend("transformers", str(tiny_model.build()))


def test_transformers_backend_constrained_by_llguidance(tiny) -> None:
    for question in ("Is there a red car?", "Who is wearing the helmet?", "What color is the sky?"):
        request = Request(messages=(), completion=tiny_model.prompt(question), chat=False,
                          max_tokens=60, lark=generate("nested", "lark"))
        _assert_program(tiny.generate(request).text)
