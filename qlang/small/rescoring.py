"""How the cascade chooses below its threshold: among the small parser's candidates and the
fine-tuned model's own program.  One rule, which the cascade applies
(`qlang.translate.cascade.Cascade`) and calibration counts at every setting
(`qlang.small.calibrate`): it lies here, below both, so the two cannot drift apart."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rescoring:
    """A program's score: its log-likelihood under the fine-tuned model, plus `weight` times its
    log-probability under the small parser, plus `bonus` per program token."""

    #: the weight of a candidate's log-probability under the small parser
    weight: float = 0.0
    #: the bonus per program token (`qlang.small.tokens.prefix`): both models' log-likelihoods
    #: fall with every token, so without it the shorter of two readings wins
    bonus: float = 0.0

    def score(self, probability: float, likelihood: float, length: int) -> float:
        return likelihood + self.weight * math.log(max(probability, 1e-300)) + self.bonus * length

    def pick(self, probabilities: Sequence[float], lengths: Sequence[int], likelihoods: Sequence[float],
             own: tuple[float, int] | None) -> int | None:
        """The candidate that answers (its index; the first of equals), or None where the
        fine-tuned model's own program does: the best scored candidate, unless that program
        scores better, counted as the least probable candidate (`own`: its log-likelihood and
        length in tokens; None: it wrote none).  A candidate's probability is its program's
        (`SmallParser.program_probabilities`), the sum over its spellings, as the threshold
        weighs it: each spelling alone lets a program the beam spells twice lose to one it
        spells once (dev's held-out halves, six draws of 200: 304.7 to 305.0 of 314 on average,
        against 304.4 to 304.5)."""
        if not probabilities:
            return None
        scores = [self.score(p, likelihood, length)
                  for p, length, likelihood in zip(probabilities, lengths, likelihoods, strict=True)]
        best = max(range(len(scores)), key=scores.__getitem__)
        if own is None:
            return best
        return best if scores[best] > self.score(min(probabilities), *own) else None
