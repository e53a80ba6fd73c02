"""The small parser as a translator, and the cascade: small where it is sure, the LLM elsewhere.

`SmallTranslator` answers every question with the small parser (`qlang.small`), a batch in
one decoding.  `Cascade` keeps the small parser's program when its probability reaches the
threshold calibrated on dev (`qlangc calibrate`), and asks the fine-tuned model otherwise;
each `Translation` says which `path` answered and the small parser's `confidence`, so a
report can show how often each path answers and how exact each is.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from qlang.errors import QlangError, error
from qlang.passes.canonical import canonicalize
from qlang.syntax import SYNTAXES
from qlang.translate.translator import Settings, Translates, Translation

if TYPE_CHECKING:  # numpy: loaded with the parser, not with this module
    from qlang.small.parser import SmallParser

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
        start = time.perf_counter()
        parsed = self.parser.parse(questions, self.settings.knowledge)
        share = (time.perf_counter() - start) / max(1, len(questions))
        results = []
        for question, result in zip(questions, parsed, strict=True):
            translation = Translation(question, raw=[" ".join(result.tokens)], seconds=share,
                                      completion_tokens=len(result.tokens), path="small",
                                      confidence=round(result.probability, 6))
            if result.root is None:
                translation.error = result.error
            else:
                translation.root = canonicalize(result.root)
                translation.program = SYNTAXES[self.settings.syntax].print(translation.root)
            results.append(translation)
        return results


class Cascade:
    def __init__(self, small: SmallTranslator, fallback: Translates, threshold: float | None = None) -> None:
        chosen = small.parser.threshold if threshold is None else threshold
        if chosen is None:
            raise error(QlangError, "usage", "the small model has no calibrated threshold: run "
                        "`qlangc calibrate`, or give --cascade-threshold")
        self.small, self.fallback, self.threshold = small, fallback, chosen
        self.settings = replace(fallback.settings, translator="cascade")

    @property
    def description(self) -> str:
        return f"small parser (p >= {self.threshold:g}), else {self.fallback.description}"

    def translate(self, question: str) -> Translation:
        return self.translate_many([question])[0]

    def translate_many(self, questions: Sequence[str]) -> list[Translation]:
        results = self.small.translate_many(questions)
        for i, first in enumerate(results):
            if first.ok and (first.confidence or 0.0) >= self.threshold:
                continue
            second = self.fallback.translate(first.question)
            second.seconds += first.seconds
            second.path, second.confidence = self.fallback.settings.translator, first.confidence
            results[i] = second
        return results
