"""The small parser as a library: questions in, checked programs with their probability out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from qlang.api import check
from qlang.errors import QlangError, error
from qlang.ir import Node
from qlang.paths import package_data
from qlang.small.automaton import Automaton
from qlang.small.model import Seq2Seq, load
from qlang.small.search import Candidate, beam_search
from qlang.small.tokens import from_prefix

#: the shipped model (trained by `qlangc train --arch seq2seq`; its model card is beside it)
SMALL_MODEL = package_data("models", "small-qlang")


@dataclass(frozen=True, slots=True)
class Parsed:
    root: Node | None
    #: the probability the constrained model gives the program (0 when there is none)
    probability: float
    tokens: tuple[str, ...] = ()
    error: QlangError | None = None


class SmallParser:
    def __init__(self, model: Seq2Seq, beam: int = 4) -> None:
        self.model = model
        self.beam = beam
        self.automaton = Automaton(model.target, model.config.max_length)

    @classmethod
    def load(cls, folder: str | Path | None = None, beam: int = 4) -> SmallParser:
        import torch

        torch.set_num_threads(1)  # a decoding step is too small to share among threads
        return cls(load(Path(folder) if folder is not None else SMALL_MODEL), beam)

    @property
    def threshold(self) -> float | None:
        return self.model.config.threshold

    def parse(self, questions: Sequence[str]) -> list[Parsed]:
        """The best program of each question, decoded together."""
        return [self._best(candidates) for candidates in beam_search(
            self.model, self.automaton, questions, self.beam)]

    @staticmethod
    def _best(candidates: Sequence[Candidate]) -> Parsed:
        """The most probable candidate that checks (the automaton admits only such: a
        candidate refused here would be a bug, reported rather than returned)."""
        problem: QlangError | None = None
        for candidate in candidates:
            try:
                root = from_prefix(candidate.tokens)
                errors = [d for d in check(root) if not d.warning]
            except QlangError as exc:
                problem = exc
                continue
            if not errors:
                return Parsed(root, candidate.probability, candidate.tokens)
            problem = QlangError(errors)
        return Parsed(None, 0.0, error=problem or error(QlangError, "translate",
                                                        "the small parser found no program"))
