"""The small parser's numpy network against the torch module that trains it (differential), on
the shipped weights and real GQA questions; and answering without torch."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_limits

from qlang.errors import QlangError
from qlang.passes.canonical import canonicalize
from qlang.small import files
from qlang.small import model as small_model
from qlang.small.automaton import Automaton
from qlang.small.beam import beam_search, encode_questions
from qlang.small.device import DeviceNetwork
from qlang.small.network import Config, Floats, Ints, LSTMState, Mask, Network
from qlang.small.parser import SMALL_MODEL
from qlang.small.tokens import BOS, EOS, Vocabularies, prefix, source_vocabulary, target_vocabulary
from qlang.syntax import gqa
from tests.conftest import all_questions

#: every tenth real question (309 of them), both files
SAMPLE = list(all_questions().values())[::10]


@pytest.fixture(scope="module", autouse=True)
def one_thread() -> Iterator[None]:
    """One thread for torch and for numpy's BLAS, as the beam search runs (as fast for products
    this small, and two threads a core spin against each other on a busy machine)."""
    torch.set_num_threads(1)
    with threadpool_limits(1, "blas"):
        yield


@pytest.fixture(scope="module")
def torch_model() -> small_model.Seq2Seq:
    return small_model.load(SMALL_MODEL)


@pytest.fixture(scope="module")
def network() -> Network:
    return files.load(SMALL_MODEL)


class TorchSteps:
    """The torch module behind the numpy network's `encode` and `step`, one step at a time."""

    def __init__(self, model: small_model.Seq2Seq) -> None:
        self.model = model
        self.vocabularies = model.vocabularies

    def encode(self, source: Ints, lengths: Ints) -> tuple[Floats, Mask, LSTMState]:
        with torch.no_grad():
            memory, mask, (h, c) = self.model.encode(torch.from_numpy(source), torch.from_numpy(lengths))
        return memory.numpy(), mask.numpy(), (h.numpy(), c.numpy())

    def step(self, tokens: Ints, memory: Floats, mask: Mask, copy: Ints,
             state: LSTMState) -> tuple[Floats, LSTMState]:
        with torch.no_grad():
            logprobs, (h, c) = self.model.decode(
                torch.from_numpy(tokens)[:, None], torch.from_numpy(memory), torch.from_numpy(mask),
                torch.from_numpy(copy), (torch.from_numpy(state[0]), torch.from_numpy(state[1])))
        return logprobs[:, 0].numpy(), (h.numpy(), c.numpy())


def _gold_ids(vocabularies: Vocabularies, record: dict) -> list[int] | None:
    try:
        gold = canonicalize(gqa.to_ir(gqa.steps_from_json(record["semantic"])))
    except QlangError:
        return None  # GQA's few unreadable programs
    target = vocabularies.target
    return [target.id(BOS), *target.ids(prefix(gold)), target.id(EOS)]


def _teacher_forced(network: Network | TorchSteps, questions: list[str], targets: Ints) -> Floats:
    """Log-probabilities of every next token along the given targets, one decoder step at a time."""
    source, lengths, copy = encode_questions(network.vocabularies, questions)
    memory, mask, state = network.encode(source, lengths)
    steps = []
    for t in range(targets.shape[1] - 1):
        logprobs, state = network.step(targets[:, t], memory, mask, copy, state)
        steps.append(logprobs)
    return np.stack(steps, axis=1)


def test_numpy_and_torch_give_the_same_log_probabilities_on_real_questions(torch_model, network) -> None:
    """Along each gold program, every token's log-probability (the whole vocabulary): the torch
    module over the whole target at once, as training runs it, and numpy step by step.  Float32
    rounding differs between the two, and `1 - generate` (the copy side) cancels where the
    switch is sure, so a token's probability agrees to 1e-4 absolute, and its log to 1e-4 where
    the probability reaches 1 % (on all 3,091 real questions: at most 2.6e-5 and 1.8e-5)."""
    pairs = [(r["question"], ids) for r in SAMPLE if (ids := _gold_ids(network.vocabularies, r))]
    assert len(pairs) > 250
    for start in range(0, len(pairs), 64):
        chunk = pairs[start:start + 64]
        width = max(len(ids) for _, ids in chunk)
        targets = np.full((len(chunk), width), network.vocabularies.target.id(EOS), np.int64)
        real = np.zeros((len(chunk), width - 1, 1), bool)  # the steps up to the end mark
        for row, (_, ids) in enumerate(chunk):
            targets[row, :len(ids)] = ids
            real[row, :len(ids) - 1] = True
        questions = [q for q, _ in chunk]
        ours = _teacher_forced(network, questions, targets)
        source, lengths, copy = map(torch.from_numpy, encode_questions(network.vocabularies, questions))
        with torch.no_grad():
            theirs = torch_model(source, lengths, copy, torch.from_numpy(targets[:, :-1])).numpy()
        assert ours.shape == theirs.shape
        np.testing.assert_allclose(np.exp(ours), np.exp(theirs), rtol=0, atol=1e-4)
        likely = real & (np.exp(theirs) >= 0.01)
        np.testing.assert_allclose(ours[likely], theirs[likely], rtol=0, atol=1e-4)
        if start == 0:  # the torch module step by step, as the beam search below runs it
            stepwise = _teacher_forced(TorchSteps(torch_model), questions, targets)
            np.testing.assert_allclose(np.exp(stepwise), np.exp(theirs), rtol=0, atol=1e-4)


def test_numpy_and_torch_give_the_same_beam_candidates(torch_model, network) -> None:
    """The same candidates with the same probabilities; where the model all but ties several
    (its probabilities within the tolerance: a value it has no preference among), float32
    rounding may order them, or pick among them, either way."""
    automaton = Automaton(network.vocabularies.target, network.config.max_length)
    questions = list(dict.fromkeys(r["question"] for r in SAMPLE))
    assert len(questions) > 250
    for start in range(0, len(questions), 32):
        chunk = questions[start:start + 32]
        ours = beam_search(network, automaton, chunk)
        theirs = beam_search(DeviceNetwork(torch_model, "cpu"), automaton, chunk)
        for question, mine, reference in zip(chunk, ours, theirs, strict=True):
            assert [c.probability for c in mine] == pytest.approx([c.probability for c in reference],
                                                                  abs=1e-4), question
            apart = [i for i, c in enumerate(reference)
                     if all(abs(c.probability - o.probability) > 1e-4 for o in reference if o is not c)]
            assert [mine[i].tokens for i in apart] == [reference[i].tokens for i in apart], question


def test_a_two_layer_network_computes_as_torch_does() -> None:
    """Layers past the first read the layer below (both directions, in the encoder)."""
    torch.manual_seed(3)
    config = Config(source_vocabulary(["Is there a red car?"]).tokens, target_vocabulary().tokens,
                    embedding=8, hidden=12, layers=2)
    model = small_model.Seq2Seq(config).eval()
    questions = ["Is there a red car?", "What color is the car to the left of the man?", ""]
    targets = np.array([[1, 7, 9, 11, 2]] * len(questions), np.int64)
    source, lengths, copy = map(torch.from_numpy, encode_questions(model.vocabularies, questions))
    with torch.no_grad():
        theirs = model(source, lengths, copy, torch.from_numpy(targets[:, :-1])).numpy()
    ours = _teacher_forced(small_model.network(model), questions, targets)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-5)


_ANSWER_WITHOUT_TORCH = """
import sys
from qlang.small.parser import SmallParser
from qlang.translate.cascade import SmallTranslator
parser = SmallParser.load()
parsed = parser.parse(["Is there a red car?", "What color is the cup on the table?"])
assert all(p.root is not None for p in parsed), parsed
print(SmallTranslator(parser).translate("Who wears shorts?").program)
print(sorted(m for m in sys.modules if m.split(".")[0] == "torch" or m == "qlang.small.model"))
"""


def test_answering_never_imports_torch() -> None:
    done = subprocess.run([sys.executable, "-c", _ANSWER_WITHOUT_TORCH], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    program, imported = done.stdout.splitlines()
    assert "wear" in program
    assert imported == "[]"
