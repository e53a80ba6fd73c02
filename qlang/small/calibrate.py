"""The cascade's settings: where the small parser's confidence is worth trusting, and how the
fine-tuned model chooses below it.

Given dev pairs (never trained on), the small parser's candidates and probabilities for each,
the fallback translator's program for each (a `qlangc translate --jsonl` output) and the
fine-tuned model's log-likelihood of all of them, every setting (a threshold t, a weight of the
small parser's log-probability, a bonus per program token) gives a cascade: small where its
probability reaches t; below it the candidate both models like best or the fine-tuned model's
own program, whichever scores better.
The chosen setting is, among those whose cascade is exact within `slack` of the best one's,
the one whose neighbours (the next thresholds, the next weight, the next bonus) do best: a
setting that is best alone owes its count to a question or two.  Among those alike, the lowest
t wins (the most questions answered in milliseconds).  Speed came first once, and the lowest
t is the edge of the best settings, the one a question more or less moves: fitted on one half
of dev and measured on the other, robustness first gets 303.9 of 314 on average against 303.5.
The fine-tuned model once answered with its best candidate at once where it found it
plausible (a calibrated log-likelihood per token), and generated only elsewhere: fitted on one
half of dev that level lost 1.2 questions on the other on average (302.2 against 303.5 of
314), so every deferred question now has both compete.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from qlang.api import check, parse
from qlang.errors import QlangError, error
from qlang.ir import Node
from qlang.passes.canonical import equivalent
from qlang.passes.translation import settle
from qlang.small.parser import Decoded, SmallParser
from qlang.small.rescoring import Rescoring
from qlang.small.tokens import prefix
from qlang.syntax import detect

#: How far below the lowest confidence it admits a threshold lies: ten times the 1e-7 or so by
#: which a question's probability moves with the decoder (numpy or torch) and its batch, which
#: must not send a question the other way.
MARGIN = 1e-6

Floats = NDArray[np.float64]


def program(text: str | None, question: str) -> Node | None:
    """A translation's program as the cascade takes it: in whichever syntax it is written,
    settled for `question` and checked (None: none, unreadable, or refused).  A translation file
    keeps the text of a program it refused, and rules that refuse may be newer than the file."""
    if not text:
        return None
    try:
        root = settle(parse(text, detect(text)), question)
        check(root)
    except QlangError:
        return None
    return root


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

    @cached_property
    def program_probabilities(self) -> tuple[float, ...]:
        """Each candidate's program's probability (`SmallParser.program_probabilities`), which
        the rescoring weighs at every scheme."""
        return tuple(SmallParser.program_probabilities(self.candidates))

    @cached_property
    def lengths(self) -> tuple[int, ...]:
        """Each candidate's length in program tokens, which the rescoring's bonus counts."""
        return tuple(len(c.tokens) for c in self.candidates)


@dataclass(frozen=True, slots=True)
class Setting:
    threshold: float
    weight: float
    #: the rescoring's bonus per program token (`qlang.small.rescoring.Rescoring`)
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
        return by_path(self.paths, self.right, path)[0]

    def exact_on(self, path: str) -> float:
        return by_path(self.paths, self.right, path)[1]


def by_path(paths: Sequence[str], right: Sequence[bool], *answering: str) -> tuple[float, float]:
    """The share of the questions the paths `answering` answer (each question's path and
    whether it is right: `paths`, `right`), and the share of those that are right."""
    picked = [r for p, r in zip(paths, right, strict=True) if p in answering]
    return len(picked) / max(1, len(paths)), sum(picked) / max(1, len(picked))


def _pick(question: Scored, scheme: tuple[float, float]) -> int | None:
    """The candidate the cascade's rescoring picks (`Rescoring.pick`; None: the fine-tuned
    model's own program answers, or no candidate was scored)."""
    if question.likelihoods is None:
        return None
    own = None if question.generated_likelihood is None else (question.generated_likelihood,
                                                               question.generated_length)
    return Rescoring(*scheme).pick(question.program_probabilities, question.lengths,
                                   question.likelihoods, own)


def outcome(questions: Sequence[Scored], setting: Setting) -> Calibrated:
    """The cascade of `setting` on each question: which path answers, and whether exactly.
    Below the threshold (and within GQA) a knowledge candidate answers if there is one
    (`SmallParser.knowledge_reading`), else the best candidate or the fine-tuned model's own
    program, counted as the least probable candidate, whichever scores better."""
    paths, right = [], []
    for question in questions:
        chosen = _pick(question, (setting.weight, setting.bonus))
        knowledge = SmallParser.knowledge_reading(question.candidates)
        if question.probability >= setting.threshold or question.beyond_gqa:
            paths.append("small")
            right.append(bool(question.exact) and question.exact[0])
        elif knowledge is not None:  # the cascade's too: the fine-tuned model has no say on it
            paths.append("small")
            right.append(question.exact[question.candidates.index(knowledge)])
        elif chosen is not None:
            paths.append("rescored")
            right.append(question.exact[chosen])
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


def settings(questions: Sequence[Scored], cap: float) -> list[Setting]:
    """Every setting calibration weighs: each threshold (`thresholds`) and scheme."""
    return [Setting(t, w, b) for t in thresholds(questions, cap) for w, b in SCHEMES]


def choose_setting(questions: Sequence[Scored], cap: float, slack: float = 0.005) -> Calibrated:
    """The setting exact within `slack` of the best whose neighbourhood gets the most right
    (`neighbourhood`), then the cheapest: the lowest threshold (the most questions answered in
    milliseconds), then the fewest answered by the fine-tuned model's own program (the small
    parser's candidates are checked before they are offered; a program written freely is one
    more thing fitted), then the most exact, then the lowest weight, then the lowest bonus.

    Every setting's counts come from a matrix product per scheme (`_counts`), not one pass over
    the questions per setting through `outcome`, which only the chosen one goes through."""
    tried = thresholds(questions, cap)
    right, generated = _counts(questions, tried)
    admitted = right >= right.max() - slack * max(1, len(questions))
    t = np.broadcast_to(np.array(tried)[:, None], right.shape)
    order = np.arange(right.size).reshape(right.shape)
    keys = [k[admitted] for k in (order, -right, generated, t, -neighbourhood(right))]  # the last first
    ti, si = np.unravel_index(int(order[admitted][np.lexsort(keys)[0]]), right.shape)
    weight, bonus = SCHEMES[si]
    return outcome(questions, Setting(tried[ti], weight, bonus))


#: how many thresholds either side of its own a setting's neighbourhood takes in
#: (`neighbourhood`): 0 left dev's held-out figure where it was (303.5), 1 gave 303.9, 2 and
#: more 303.9-304.0
THRESHOLD_REACH = 2


def neighbourhood(right: Floats) -> Floats:
    """Per setting (threshold x scheme, as `_counts`), the questions right summed over its
    neighbours: the `THRESHOLD_REACH` thresholds next to its own either side, the weights and
    the bonuses next to its own either side, and its own (5 x 3 x 3 settings; at an end of an
    axis the end counts again)."""
    reach = THRESHOLD_REACH
    shape = (right.shape[0], len(WEIGHTS), len(BONUSES))
    padded = np.pad(right.reshape(shape), ((reach, reach), (1, 1), (1, 1)), mode="edge")
    summed = sum(padded[k:k + shape[0], i:i + shape[1], j:j + shape[2]]
                 for k in range(2 * reach + 1) for i in range(3) for j in range(3))
    return np.asarray(summed).reshape(right.shape)


def halvings(questions: Sequence[Scored], cap: float, slack: float, splits: int,
             seed: int = 0) -> list[int]:
    """Per random halving of dev (`splits` of them, drawn from `seed`): the questions right
    when each half is calibrated on the other, of all of dev.  One fixed halving (even and odd
    positions) moves by several questions when a probability moves by a thousandth and a tie
    between settings falls the other way; the spread over many is the figure's own noise."""
    return [sum(first.right) + sum(second.right)
            for first, second in held_out(questions, cap, slack, splits, seed)]


def held_out(questions: Sequence[Scored], cap: float, slack: float, splits: int,
             seed: int = 0) -> list[tuple[Calibrated, Calibrated]]:
    """Per random halving of dev (as `halvings`), each half calibrated on the other: what the
    setting fitted on the other half does on it, both halves."""
    draw, order, result = random.Random(seed), list(range(len(questions))), []
    for _ in range(splits):
        draw.shuffle(order)
        first, second = [questions[i] for i in order[0::2]], [questions[i] for i in order[1::2]]
        result.append((outcome(first, choose_setting(second, cap, slack).setting),
                       outcome(second, choose_setting(first, cap, slack).setting)))
    return result


def thresholds(questions: Sequence[Scored], cap: float) -> list[float]:
    """The thresholds the dev confidences suggest up to `cap`: `cap`, and each `MARGIN` below a
    confidence under it, highest first."""
    probabilities = sorted({q.probability for q in questions if q.probability < cap}, reverse=True)
    return list(dict.fromkeys([cap] + [max(p - MARGIN, 0.0) for p in probabilities]))


def _counts(questions: Sequence[Scored], tried: Sequence[float]) -> tuple[Floats, Floats]:
    """Per setting (threshold x scheme), how many questions `outcome` gets right and how many
    the fine-tuned model's own program answers."""
    probability = np.array([q.probability for q in questions])
    beyond = np.array([q.beyond_gqa for q in questions], bool)
    top = np.array([bool(q.exact) and q.exact[0] for q in questions], bool)
    readings = [SmallParser.knowledge_reading(q.candidates) for q in questions]
    knowledge = np.array([r is not None for r in readings], bool)
    read_right = np.array([r is not None and q.exact[q.candidates.index(r)]
                           for q, r in zip(questions, readings, strict=True)], bool)
    own = np.array([q.generated for q in questions], bool)
    small = (probability[None, :] >= np.array(tried)[:, None]) | beyond  # thresholds x questions
    below = ~small & ~knowledge
    base = small.astype(float) @ top + (~small & knowledge).astype(float) @ read_right
    right, generated = np.empty((len(tried), len(SCHEMES))), np.empty((len(tried), len(SCHEMES)))
    for k, scheme in enumerate(SCHEMES):
        picks = [_pick(q, scheme) for q in questions]
        wins = np.array([c is not None for c in picks], bool)
        picked = np.array([c is not None and q.exact[c] for q, c in zip(questions, picks, strict=True)], bool)
        right[:, k] = base + below.astype(float) @ np.where(wins, picked, own)
        generated[:, k] = below.astype(float) @ (~wins).astype(float)
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
