"""The small parser as a library: questions in, checked programs with their probability out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from qlang.api import check
from qlang.errors import QlangError, error
from qlang.ir import Node, asks_knowledge, postorder
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.passes.canonical import normalize
from qlang.passes.translation import settle
from qlang.paths import package_data
from qlang.small import files
from qlang.small.automaton import Automaton
from qlang.small.beam import Candidate, beam_search
from qlang.small.network import Network
from qlang.small.tokens import from_prefix, op_token

if TYPE_CHECKING:
    from qlang.small.device import DeviceNetwork

#: the shipped model (trained by `qlangc train --arch seq2seq`; its model card is beside it)
SMALL_MODEL = package_data("models", "small-qlang")
_INFER = op_token("infer")


@dataclass(frozen=True, slots=True)
class Decoded:
    root: Node | None
    #: the probability the constrained model gives the program (0 when there is none)
    probability: float
    tokens: tuple[str, ...] = ()
    error: QlangError | None = None

    @property
    def beyond_gqa(self) -> bool:
        """Whether the program has an operation no GQA program has (a knowledge or a text
        operation): the small parser learnt them from qlang's template pairs, the fine-tuned
        fallback, trained on GQA's pairs alone, neither writes nor judges them."""
        return self.root is not None and any(
            (signature := node.signature) is not None and (signature.knowledge or signature.documents)
            for node in postorder(self.root))

    @property
    def asks_knowledge(self) -> bool:
        """Whether the program has a knowledge operation (`know`, `verify_know`, `infer`): one
        the fine-tuned fallback can neither write nor judge, and which the small parser puts in
        an unsure beam of real GQA questions almost never (one of the 116 of the 3,091 in the
        shared data, against 10 of the 19 held-out knowledge questions it is unsure of)."""
        return self.root is not None and asks_knowledge(self.root)


class SmallParser:
    """Decodes with the numpy network (`network.py`): answering never imports torch; or with
    the torch module on a device (`device.py`: a GPU), where batches are large."""

    def __init__(self, network: Network | DeviceNetwork, beam: int = 4) -> None:
        self.network = network
        self.beam = beam
        self.automaton = Automaton(network.vocabularies.target, network.config.max_length)
        self._knowledge: Knowledge | None = None

    def knows(self, word: str) -> bool:
        """Whether the bundled base, the knowledge in use by default, knows a question word a
        knowledge operation may take (opened on the first such question)."""
        return self._in_use(None).knows(word)

    @classmethod
    def load(cls, folder: str | Path | None = None, beam: int = 4, device: str | None = None) -> SmallParser:
        """The model of `folder` (default: the shipped one); `device` (``cuda``, ``cpu``): its
        torch module there, else the numpy network."""
        path = Path(folder) if folder is not None else SMALL_MODEL
        if device is None:
            return cls(files.load(path), beam)
        from qlang.small import model
        from qlang.small.device import DeviceNetwork

        return cls(DeviceNetwork(model.load(path), device), beam)

    @property
    def threshold(self) -> float | None:
        return self.network.config.threshold

    @property
    def rescoring(self) -> tuple[float, float]:
        """The cascade's rescoring below the threshold: the weight of this model's
        log-probability and the bonus per token (`Config`)."""
        config = self.network.config
        return config.rescore_weight, config.length_bonus

    @property
    def scorer(self) -> str | None:
        """The bundled adapter calibrated to score this model's candidates (None: the fallback)."""
        return self.network.config.scorer

    def parse(self, questions: Sequence[str], knowledge: Knowledge | None = None) -> list[Decoded]:
        """The best program of each question, decoded together.  `knowledge`: the knowledge in
        use (None: the bundled base), whose words a knowledge operation may copy from the
        question, and which the checker reads: a word only it knows can be written, and no word
        it lacks."""
        return [self.best(candidates) for candidates in self.candidates(questions, knowledge)]

    def candidates(self, questions: Sequence[str], knowledge: Knowledge | None = None) -> list[list[Decoded]]:
        """Each question's k best programs (k: the beam), most probable first, decoded together
        and checked (against `knowledge`, as `parse`): one that does not check has its error
        and no program."""
        if isinstance(questions, str):  # a str is a sequence of str: one question per character
            raise TypeError("questions: a sequence of questions, not one question (use [question])")
        found = beam_search(self.network, self.automaton, questions, self.beam, self._knows(knowledge))
        return [[self._checked(candidate, question, knowledge) for candidate in candidates]
                for question, candidates in zip(questions, found, strict=True)]

    def programs(self, question: str, knowledge: Knowledge | None = None) -> list[Decoded]:
        """The k best programs of one question that check, most probable first: the
        alternatives to its best."""
        return [parsed for parsed in self.candidates([question], knowledge)[0] if parsed.root is not None]

    def _knows(self, knowledge: Knowledge | None) -> Callable[[str], bool]:
        return self.knows if knowledge is None else knowledge.knows

    def _in_use(self, knowledge: Knowledge | None) -> Knowledge:
        if knowledge is not None:
            return knowledge
        if self._knowledge is None:
            self._knowledge = sources.knowledge([])
        return self._knowledge

    @staticmethod
    def best(candidates: Sequence[Decoded]) -> Decoded:
        """The most probable of a question's `candidates` that checks (the search admits only
        well-typed programs: one the checker refuses repeats an operand or a word the knowledge
        lacks), or why none does."""
        problem: QlangError | None = None
        for parsed in candidates:
            if parsed.root is not None:
                return parsed
            problem = parsed.error
        return Decoded(None, 0.0, error=problem or error(QlangError, "translate",
                                                         "the small parser found no program"))

    @staticmethod
    def knowledge_reading(candidates: Sequence[Decoded]) -> Decoded | None:
        """The most probable of a question's candidates with a knowledge operation
        (`Decoded.asks_knowledge`; None: none has one)."""
        return next((c for c in candidates if c.asks_knowledge), None)

    @staticmethod
    def program_probabilities(candidates: Sequence[Decoded]) -> list[float]:
        """Each candidate's program's probability (0 for one that does not check): the sum over
        the candidates equivalent to it.  The beam spells a program with symmetric operands or
        a choice once per order ("black and clean", "clean and black"), and the cascade answers
        with the program, not its spelling."""
        forms = [None if c.root is None else normalize(c.root) for c in candidates]
        sums: dict[Node, float] = {}
        for form, candidate in zip(forms, candidates, strict=True):
            if form is not None:
                sums[form] = sums.get(form, 0.0) + candidate.probability
        return [0.0 if form is None else sums[form] for form in forms]

    @staticmethod
    def confidence(candidates: Sequence[Decoded]) -> float:
        """The probability of the best candidate's program (`program_probabilities`; 0 when none
        checks): the order-blind sum is what the cascade's threshold weighs."""
        programs = SmallParser.program_probabilities(candidates)
        return next((p for c, p in zip(candidates, programs, strict=True) if c.root is not None), 0.0)

    def _checked(self, candidate: Candidate, question: str, knowledge: Knowledge | None) -> Decoded:
        """A candidate as a program of `question` (`qlang.passes.translation`), or the error
        that keeps it from being one."""
        # the bundled base as this parser holds it (the search opened it for a knowledge question),
        # opened here for a candidate that infers (`kindless`), never for a GQA question's
        if knowledge is None:
            knowledge = self._in_use(None) if _INFER in candidate.tokens else self._knowledge
        try:
            root = settle(from_prefix(candidate.tokens), question, knowledge)
            check(root, knowledge=knowledge)  # raises on an error, returns the warnings
        except QlangError as exc:
            return Decoded(None, 0.0, candidate.tokens, exc)
        return Decoded(root, candidate.probability, candidate.tokens)
