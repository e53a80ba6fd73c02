"""The small parser as a translator, and the cascade: small where it is sure, the LLM elsewhere.

`SmallTranslator` answers every question with the small parser (`qlang.small`), a batch in one
decoding.  `Cascade` keeps the small parser's program when its probability (summed over the
spellings the beam gives it) reaches the threshold calibrated on dev (`qlangc calibrate`).
Elsewhere the fine-tuned model *rescores* the small parser's checked candidates (its beam, not
only its best) and its own program, which the fine-tuned model also writes, under one score
(`qlang.small.rescoring.Rescoring`: the fine-tuned model's log-likelihood, the small parser's
log-probability of the program, summed over its spellings as the threshold's is, weighted, a
bonus per program token).
A knowledge program in an unsure beam answers before the fine-tuned model is asked
(`Decoded.asks_knowledge`): that model never learnt those operations, so its scores would pass
over the one reading only the small parser can write.
Scoring a few programs the two models already agree on is cheaper and more often right than
generating one freely.  The scorer may be another fine-tuned model than the one that generates
(the small parser's config names it: `SmallParser.scorer`): on dev, Gemma 3 270M ranks the
candidates better than SmolLM2, which writes the better programs of its own.  Each
`Translation` says which `path` answered (`small`, `rescored`, `finetuned`) and the small
parser's `confidence`, so a report can show how often each path answers and how exact each is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from qlang.errors import QlangError, error
from qlang.passes.canonical import canonicalize
from qlang.small.rescoring import Rescoring
from qlang.small.tokens import prefix
from qlang.syntax import SYNTAXES
from qlang.translate.translator import Scores, Settings, Translation

if TYPE_CHECKING:  # numpy: loaded with the parser, not with this module
    from qlang.small.parser import Decoded, SmallParser

_SMALL = Settings(translator="small")


class SmallTranslator:
    def __init__(self, parser: SmallParser, settings: Settings = _SMALL) -> None:
        self.parser = parser
        self.settings = settings
        self.description = "small parser"

    def translate(self, question: str) -> Translation:
        return self.translate_many([question])[0]

    def translate_many(self, questions: Sequence[str]) -> list[Translation]:
        """Every question decoded in one batch; each is charged its share of the time."""
        return [self.first(question, found, seconds)
                for question, found, seconds in self.candidates(questions)]

    def candidates(self, questions: Sequence[str]) -> list[tuple[str, list[Decoded], float]]:
        """Each question with its candidates (`SmallParser.candidates`) and its share of the
        time they took."""
        start = time.perf_counter()
        found = self.parser.candidates(questions, self.settings.knowledge)
        share = (time.perf_counter() - start) / max(1, len(questions))
        return [(question, candidates, share) for question, candidates in zip(questions, found, strict=True)]

    def first(self, question: str, candidates: Sequence[Decoded], seconds: float) -> Translation:
        """The best of a question's candidates, its confidence the probability of its program
        (`SmallParser.confidence`)."""
        translation = self.translation(question, self.parser.best(candidates), seconds)
        translation.confidence = round(self.parser.confidence(candidates), 6)
        return translation

    def translation(self, question: str, result: Decoded, seconds: float) -> Translation:
        translation = Translation(question, raw=[" ".join(result.tokens)], seconds=seconds,
                                  completion_tokens=len(result.tokens), path="small",
                                  confidence=round(result.probability, 6))
        if result.root is None:
            translation.error = result.error
        else:
            translation.root = canonicalize(result.root)
            translation.program = SYNTAXES[self.settings.syntax].print(translation.root)
        return translation


class Cascade:
    def __init__(self, small: SmallTranslator, fallback: Scores, threshold: float | None = None,
                 rescoring: Rescoring | None = None, scorer: Scores | None = None) -> None:
        """`scorer`: the model whose likelihoods rescore the candidates and the fallback's own
        program, when another than the fallback (the one the threshold was calibrated with)."""
        chosen = small.parser.threshold if threshold is None else threshold
        if chosen is None:
            raise error(QlangError, "usage", "the small model has no calibrated threshold: run "
                        "`qlangc calibrate`, or give --cascade-threshold")
        self.small, self.fallback, self.threshold = small, fallback, chosen
        self.scorer = fallback if scorer is None else scorer
        if rescoring is None:
            rescoring = Rescoring(*small.parser.rescoring)
        self.rescoring = rescoring
        self.settings = replace(fallback.settings, translator="cascade")

    @property
    def description(self) -> str:
        scoring = "" if self.scorer is self.fallback else f" ({self.scorer.description} scoring)"
        return (f"small parser (p >= {self.threshold:g}), else {self.fallback.description} "
                f"rescoring its candidates{scoring}")

    def translate(self, question: str) -> Translation:
        return self.translate_many([question])[0]

    def translate_many(self, questions: Sequence[str]) -> list[Translation]:
        found = self.small.candidates(questions)
        results = [self.small.first(question, candidates, seconds) for question, candidates, seconds in found]
        unsure = []
        for i, (first, (question, candidates, seconds)) in enumerate(zip(results, found, strict=True)):
            if not self._defers(first, candidates):
                continue
            knowledge = self.small.parser.knowledge_reading(candidates)
            if knowledge is None:
                unsure.append(i)
            else:
                results[i] = self.small.translation(question, knowledge, seconds)
                results[i].confidence = first.confidence
        generated = self.fallback.translate_many([questions[i] for i in unsure])
        start = time.perf_counter()
        picks = self._picks([found[i] for i in unsure], generated)
        share = (time.perf_counter() - start) / max(1, len(unsure))
        for i, second, pick in zip(unsure, generated, picks, strict=True):
            if pick is None:
                second.seconds += results[i].seconds + share
                second.path, second.confidence = self.fallback.settings.translator, results[i].confidence
                results[i] = second
            else:
                results[i].seconds += second.seconds + share
                results[i] = self._rescored(results[i], pick)
        return results

    def _defers(self, first: Translation, candidates: Sequence[Decoded]) -> bool:
        """Whether the fine-tuned model has a say: the small parser has no program, or is unsure
        of one the fine-tuned model could judge (`Decoded.beyond_gqa`: not of one it never
        learnt)."""
        if not first.ok:
            return True
        unsure = (first.confidence or 0.0) < self.threshold
        return unsure and not self.small.parser.best(candidates).beyond_gqa

    def _rescored(self, first: Translation, candidate: Decoded) -> Translation:
        translation = self.small.translation(first.question, candidate, first.seconds)
        translation.path, translation.confidence = "rescored", first.confidence
        return translation

    def _picks(self, found: Sequence[tuple[str, list[Decoded], float]],
               generated: Sequence[Translation]) -> list[Decoded | None]:
        """Per question, the candidate that answers (None: the fine-tuned model's own program
        does): the candidate both models score best, where it scores better than that program,
        counted as the small parser's least probable candidate; the small parser's best where
        the backend cannot score and the fine-tuned model wrote no program."""
        checked = [[c for c in candidates if c.root is not None] for _, candidates, _ in found]
        asked = [k for k, candidates in enumerate(checked) if candidates]
        programs = [[c.root for c in checked[k] if c.root is not None]
                    + [root for root in (generated[k].root,) if root is not None] for k in asked]
        scores = self.scorer.likelihoods([found[k][0] for k in asked], programs)
        picks: list[Decoded | None] = [None] * len(found)
        for n, k in enumerate(asked):
            own = generated[k].root
            if scores is None:  # a backend that only generates
                picks[k] = checked[k][0] if own is None else None
                continue
            candidates, likelihoods = checked[k], scores[n]
            chosen = self.rescoring.pick(self.small.parser.program_probabilities(candidates),
                                         [len(c.tokens) for c in candidates], likelihoods[:len(candidates)],
                                         None if own is None else (likelihoods[-1], len(prefix(own))))
            picks[k] = None if chosen is None else candidates[chosen]
        return picks
