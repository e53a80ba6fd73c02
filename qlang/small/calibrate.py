"""The cascade's settings: where the small parser's confidence is worth trusting, and how the
fine-tuned model chooses below it.

Given dev pairs (never trained on), the small parser's candidates and probabilities for each,
the fallback translator's program for each (a `qlangc translate --jsonl` output) and the
fine-tuned model's log-likelihood of all of them, every setting (a threshold t, a weight of the
small parser's log-probability, a plausibility) gives a cascade: small where its probability
reaches t; below it the candidate both models like best where the fine-tuned model finds it
plausible, else that candidate or the fine-tuned model's own program, whichever scores better.
The chosen setting is the one with the lowest t (the most questions answered in milliseconds),
then the fewest generated, whose cascade is exact within `slack` of the best one's: speed is
bought only with accuracy that is not measurably there.  Among those alike, the one whose
neighbouring schemes (the next weight, the next bonus) do best wins: a scheme that is best
alone owes its count to a question or two.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from qlang.api import parse
from qlang.errors import QlangError, error
from qlang.ir import Node
from qlang.passes.canonical import equivalent
from qlang.small.parser import Decoded, SmallParser
from qlang.small.tokens import prefix
from qlang.syntax import detect

#: How far below the lowest confidence it admits a threshold lies: ten times the 1e-7 or so by
#: which a question's probability moves with the decoder (numpy or torch) and its batch, which
#: must not send a question the other way.
MARGIN = 1e-6

Floats = NDArray[np.float64]


def program(text: str | None) -> Node | None:
    """A translation's program, in whichever syntax it is written (None: none, or unreadable)."""
    if not text:
        return None
    try:
        return parse(text, detect(text))
    except QlangError:
        return None


# ----- the cascade with rescoring -----------------------------------------------------------

#: the rescoring weights calibration tries (the small parser's log-probability beside the
#: fine-tuned model's log-likelihood: 0 lets the fine-tuned model alone choose); 0.75 is there
#: because dev's held-out halves chose it and gained on it (296 -> 300 of 314)
WEIGHTS = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 2.0)
#: the bonuses per program token calibration tries: both models' log-likelihoods fall with
#: every token, so the shorter of two candidates wins unless a bonus makes up for it ("the food
#: on the plate that looks pink and red" lost its second colour); 1.0 took dev's held-out
#: halves from 298.8 to 300.0 of 314 on average, worse on none of 200
BONUSES = (0.0, 0.25, 0.5, 1.0, 2.0)
#: how a candidate is scored: its small-parser weight and its bonus per token, in the order
#: calibration prefers them (the least weight, then the least bonus)
SCHEMES = tuple((w, b) for w in WEIGHTS for b in BONUSES)
#: the plausibility levels calibration tries, besides none: at these quantiles of the chosen
#: candidates' log-likelihood per token (each level excludes that share of them)
PLAUSIBILITY_QUANTILES = tuple(q / 20 for q in range(1, 10))


@dataclass(frozen=True)  # no slots: `probability` is cached
class Scored:
    """What calibrating the rescoring cascade needs of one dev question: its candidates (those
    that check, most probable first), each one's exactness and log-likelihood under the
    fine-tuned model (None: not scored, the question lies above every threshold tried), whether
    the fine-tuned model's own program is exact, and its log-likelihood (None: not scored, or
    no program)."""

    candidates: tuple[Decoded, ...]
    exact: tuple[bool, ...]
    likelihoods: tuple[float, ...] | None
    generated: bool
    generated_likelihood: float | None = None
    #: the fine-tuned model's own program's length in tokens (`tokens.prefix`)
    generated_length: int = 0

    @property
    def beyond_gqa(self) -> bool:
        """Whether the small parser's best program is one the fine-tuned model never learnt
        (`Decoded.beyond_gqa`): the cascade keeps it, however unsure."""
        return bool(self.candidates) and self.candidates[0].beyond_gqa

    @cached_property
    def probability(self) -> float:
        """The small parser's confidence: the probability of its best program
        (`SmallParser.confidence`), which calibration weighs at every setting."""
        return SmallParser.confidence(self.candidates)


@dataclass(frozen=True, slots=True)
class Setting:
    threshold: float
    weight: float
    #: None: the chosen candidate always answers
    plausible: float | None
    #: the rescoring's bonus per program token (`qlang.translate.cascade.Rescoring.score`)
    bonus: float = 0.0


@dataclass(frozen=True, slots=True)
class Calibrated:
    """A setting of the cascade and what it does on dev: each question's path and whether it is right."""

    setting: Setting
    #: per question: the path that answers (`small`, `rescored`, `finetuned`) and whether exact
    paths: tuple[str, ...]
    right: tuple[bool, ...]

    @property
    def exact(self) -> float:
        return sum(self.right) / max(1, len(self.right))

    def share(self, path: str) -> float:
        return self.paths.count(path) / max(1, len(self.paths))

    def exact_on(self, path: str) -> float:
        picked = [r for p, r in zip(self.paths, self.right, strict=True) if p == path]
        return sum(picked) / max(1, len(picked))


def _combined(probability: float, likelihood: float, length: int, scheme: tuple[float, float]) -> float:
    """The rescoring score (`qlang.translate.cascade.Rescoring.score`)."""
    weight, bonus = scheme
    return likelihood + weight * math.log(max(probability, 1e-300)) + bonus * length


def _chosen(question: Scored, scheme: tuple[float, float]) -> tuple[int, float] | None:
    """The candidate rescoring picks and its log-likelihood per token (None: no candidate)."""
    likelihoods, candidates = question.likelihoods, question.candidates
    if not candidates or likelihoods is None:
        return None
    best = max(range(len(candidates)), key=lambda i: _combined(
        candidates[i].probability, likelihoods[i], len(candidates[i].tokens), scheme))
    return best, likelihoods[best] / max(1, len(candidates[best].tokens))


def outcome(questions: Sequence[Scored], setting: Setting) -> Calibrated:
    """The cascade of `setting` on each question: which path answers, and whether exactly.
    Below the threshold (and within GQA) a knowledge candidate answers if there is one
    (`SmallParser.knowledge_reading`), else the best candidate if plausible; else the
    fine-tuned model's own program competes with it, counted as the least probable candidate."""
    paths, right = [], []
    for question in questions:
        scheme = (setting.weight, setting.bonus)
        chosen = _chosen(question, scheme)
        knowledge = SmallParser.knowledge_reading(question.candidates)
        if question.probability >= setting.threshold or question.beyond_gqa:
            paths.append("small")
            right.append(bool(question.exact) and question.exact[0])
        elif knowledge is not None:  # the cascade's too: the fine-tuned model has no say on it
            paths.append("small")
            right.append(question.exact[question.candidates.index(knowledge)])
        elif chosen is not None and (setting.plausible is None or chosen[1] >= setting.plausible
                                     or _candidate_wins(question, chosen[0], scheme)):
            paths.append("rescored")
            right.append(question.exact[chosen[0]])
        else:
            paths.append("finetuned")
            right.append(question.generated)
    return Calibrated(setting, tuple(paths), tuple(right))


def within_reach(question: Scored) -> bool:
    """Whether what the two translators offer holds the question's gold where the cascade
    could take it: the small parser's best, else (below a threshold) its knowledge reading where
    it has one, else any candidate or the fine-tuned model's own program.  No setting gets more
    questions right than are within reach; what lies beyond it only other models can bring."""
    exact = question.exact
    if question.beyond_gqa:
        return exact[0]
    reading = SmallParser.knowledge_reading(question.candidates)
    if reading is not None:
        return exact[0] or exact[question.candidates.index(reading)]
    return any(exact) or question.generated


def _candidate_wins(question: Scored, best: int, scheme: tuple[float, float]) -> bool:
    assert question.likelihoods is not None
    candidate = question.candidates[best]
    score = _combined(candidate.probability, question.likelihoods[best], len(candidate.tokens), scheme)
    if question.generated_likelihood is None:  # no program of its own: the candidate answers
        return True
    floor = min(c.probability for c in question.candidates)
    return score > _combined(floor, question.generated_likelihood, question.generated_length, scheme)


def settings(questions: Sequence[Scored], cap: float) -> list[Setting]:
    """Every setting calibration weighs: each threshold, scheme and plausibility (`_Grid`)."""
    grid = _Grid.of(questions, cap)
    return [Setting(t, w, p, b) for t in grid.thresholds for w, b in SCHEMES for p in grid.levels]


def choose_setting(questions: Sequence[Scored], cap: float, slack: float = 0.005) -> Calibrated:
    """The cheapest setting exact within `slack` of the best: the lowest threshold (the most
    questions answered in milliseconds), then the fewest generated, then the most right in its
    neighbourhood (`neighbourhood`), then the most exact, then the lowest weight, then the
    lowest bonus, then the first in `settings`' order.

    Every setting's counts come from a few matrix products (`_counts`), not one pass over the
    questions per setting: dev's 14,000 settings took 35 s a half through `outcome`, which
    only the chosen one goes through now."""
    grid = _Grid.of(questions, cap)
    right, generated = _counts(questions, grid)
    n = max(1, len(questions))
    exact, share = right / n, generated / n
    admitted = exact >= exact.max() - slack
    t, s, _ = np.meshgrid(np.array(grid.thresholds), np.arange(len(SCHEMES)), np.arange(len(grid.levels)),
                          indexing="ij")
    order = np.arange(exact.size).reshape(exact.shape)
    around = neighbourhood(right)
    keys = [k[admitted] for k in (order, s, -right, -around, share, t)]  # np.lexsort: the last key first
    first = int(order[admitted][np.lexsort(keys)[0]])
    ti, si, li = np.unravel_index(first, exact.shape)
    weight, bonus = SCHEMES[si]
    return outcome(questions, Setting(grid.thresholds[ti], weight, grid.levels[li], bonus))


def neighbourhood(right: Floats) -> Floats:
    """Per setting (threshold x scheme x plausibility, as `_counts`), the questions right summed
    over its scheme's neighbours: the weights and the bonuses next to its own either side, and
    its own (nine schemes; at an end of an axis the end counts again).  Breaking ties by it took
    dev's held-out figure from 302.0 to 302.2 of 314 (better in 34 of 200 random halvings,
    worse in none)."""
    shape = (right.shape[0], len(WEIGHTS), len(BONUSES), right.shape[2])
    padded = np.pad(right.reshape(shape), ((0, 0), (1, 1), (1, 1), (0, 0)), mode="edge")
    summed = sum(padded[:, i:i + shape[1], j:j + shape[2], :] for i in range(3) for j in range(3))
    return np.asarray(summed).reshape(right.shape)


def halvings(questions: Sequence[Scored], cap: float, slack: float, splits: int,
             seed: int = 0) -> list[int]:
    """Per random halving of dev (`splits` of them, drawn from `seed`): the questions right
    when each half is calibrated on the other, of all of dev.  One fixed halving (even and odd
    positions) moves by several questions when a probability moves by a thousandth and a tie
    between settings falls the other way; the spread over many is the figure's own noise."""
    draw, order, totals = random.Random(seed), list(range(len(questions))), []
    for _ in range(splits):
        draw.shuffle(order)
        halves = [[questions[i] for i in order[0::2]], [questions[i] for i in order[1::2]]]
        totals.append(sum(sum(outcome(held, choose_setting(fit, cap, slack).setting).right)
                          for fit, held in (halves, halves[::-1])))
    return totals


@dataclass(frozen=True, slots=True)
class _Grid:
    """The three axes of the settings: the thresholds the dev confidences suggest up to `cap`
    (each `MARGIN` below a confidence it admits), `SCHEMES`, and the plausibilities."""

    thresholds: list[float]
    levels: list[float | None]

    @classmethod
    def of(cls, questions: Sequence[Scored], cap: float) -> _Grid:
        probabilities = sorted({q.probability for q in questions if q.probability < cap}, reverse=True)
        thresholds = [cap] + [max(p - MARGIN, 0.0) for p in probabilities]
        levels: list[float | None] = [None]
        for scheme in SCHEMES:
            chosen = sorted(c[1] for q in questions if (c := _chosen(q, scheme)) is not None)
            below = sorted({round(q * len(chosen)) for q in PLAUSIBILITY_QUANTILES} - {0, len(chosen)})
            levels += [(chosen[k - 1] + chosen[k]) / 2 for k in below]  # between two, on neither
        return cls(list(dict.fromkeys(thresholds)), list(dict.fromkeys(levels)))


def _counts(questions: Sequence[Scored], grid: _Grid) -> tuple[Floats, Floats]:
    """Per setting (threshold x scheme x plausibility), how many questions `outcome` gets
    right and how many it sends to the fine-tuned model's own program."""
    probability = np.array([q.probability for q in questions])
    beyond = np.array([q.beyond_gqa for q in questions], bool)
    top = np.array([bool(q.exact) and q.exact[0] for q in questions], bool)
    readings = [SmallParser.knowledge_reading(q.candidates) for q in questions]
    knowledge = np.array([r is not None for r in readings], bool)
    read_right = np.array([r is not None and q.exact[q.candidates.index(r)]
                           for q, r in zip(questions, readings, strict=True)], bool)
    own = np.array([q.generated for q in questions], bool)
    small = (probability[None, :] >= np.array(grid.thresholds)[:, None]) | beyond  # thresholds x questions
    below = ~small & ~knowledge
    base = small.astype(float) @ top + (~small & knowledge).astype(float) @ read_right
    levels = np.array([np.inf if p is None else p for p in grid.levels])[:, None]  # None: any admits
    right = np.empty((len(grid.thresholds), len(SCHEMES), len(grid.levels)))
    generated = np.empty_like(right)
    for k, scheme in enumerate(SCHEMES):
        chosen = [_chosen(q, scheme) for q in questions]
        scored = np.array([c is not None for c in chosen], bool)
        per_token = np.array([-np.inf if c is None else c[1] for c in chosen])
        pairs = list(zip(questions, chosen, strict=True))
        wins = np.array([c is not None and _candidate_wins(q, c[0], scheme) for q, c in pairs], bool)
        picked = np.array([c is not None and q.exact[c[0]] for q, c in pairs], bool)
        rescored = scored & ((levels == np.inf) | (per_token >= levels) | wins)  # levels x questions
        answered = np.where(rescored, picked, own)
        right[:, k, :] = base[:, None] + below.astype(float) @ answered.T.astype(float)
        generated[:, k, :] = below.astype(float) @ (~rescored).T.astype(float)
    return right, generated


#: what scores programs for calibration: questions and their programs in, per question each
#: program's log-likelihood under the fine-tuned model out (`Translator.likelihoods`)
Likelihoods = Callable[[Sequence[str], Sequence[Sequence[Node]]], "list[list[float]] | None"]


def gather(parser: SmallParser, questions: Sequence[str], golds: Sequence[Node],
           generated: Sequence[Node | None], likelihoods: Likelihoods, cap: float,
           chunk: int = 16) -> list[Scored]:
    """Each dev question's candidates, decoded in chunks of `chunk`; for those whose best lies
    below `cap`, the candidates and the fine-tuned model's own program (`generated`) scored by
    it (`likelihoods`)."""
    found = [c for i in range(0, len(questions), chunk)
             for c in parser.candidates(questions[i:i + chunk])]
    checked = [[c for c in candidates if c.root is not None] for candidates in found]
    asked = [i for i, candidates in enumerate(checked)
             if candidates and SmallParser.confidence(candidates) < cap]
    scores: dict[int, list[float]] = {}
    for start in range(0, len(asked), chunk):
        part = asked[start:start + chunk]
        programs = [[c.root for c in checked[i] if c.root is not None] + _some(generated[i]) for i in part]
        got = likelihoods([questions[i] for i in part], programs)
        if got is None:
            raise error(QlangError, "usage", "the fallback's backend cannot score programs")
        scores |= dict(zip(part, got, strict=True))
    result = []
    for i, (candidates, gold, own) in enumerate(zip(checked, golds, generated, strict=True)):
        exact = tuple(c.root is not None and equivalent(c.root, gold) for c in candidates)
        right = own is not None and equivalent(own, gold)
        if i not in scores:
            result.append(Scored(tuple(candidates), exact, None, right))
            continue
        mine = scores[i]
        result.append(Scored(tuple(candidates), exact, tuple(mine[:len(candidates)]), right,
                             mine[len(candidates)] if own is not None else None,
                             0 if own is None else len(prefix(own))))
    return result


def _some(root: Node | None) -> list[Node]:
    return [] if root is None else [root]
