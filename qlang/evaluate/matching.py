"""Answer matching, strict or generous (seed thesis §3.4), over the top-k answers.

`strict`: equal after normalisation (booleans as yes/no, a one-element list as its element,
``to the left`` as ``left``).  `generous`: also a WordNet synonym or hyponym of the gold answer
(a more specific answer is right: ``shirt`` for ``clothing``).  `generous+N`: also a hypernym
of the gold answer at most N levels up (``clothing`` for ``shirt`` is 2 levels), so that the
topmost ``entity`` does not answer everything.

>>> matches("yes", "True", "strict"), matches("to the left", "left", "strict")
(True, True)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from qlang.wordnet import hypernyms, levels_above, senses

DEFAULT_HYPERNYM_LEVELS = 5
_SPATIAL = re.compile(r"^(?:to|on|at) the (left|right|top|bottom)(?: side)?$")
_BOOLEANS = {"true": "yes", "false": "no", "yes": "yes", "no": "no"}


@dataclass(frozen=True, slots=True)
class Generosity:
    """How generous matching is: WordNet at all, and how many hypernym levels up."""

    wordnet: bool = False
    hypernym_levels: int = 0

    @classmethod
    def parse(cls, text: str) -> Generosity:
        """``strict``, ``generous``, ``generous+`` (5 levels) or ``generous+N``."""
        if text == "strict":
            return cls()
        match = re.fullmatch(r"generous(\+(\d*))?", text)
        if match is None:
            raise ValueError(f"generosity is strict, generous or generous+N, not {text!r}")
        levels = match.group(2)
        plus = match.group(1) is not None
        return cls(True, int(levels) if levels else DEFAULT_HYPERNYM_LEVELS if plus else 0)

    def __str__(self) -> str:
        if not self.wordnet:
            return "strict"
        return f"generous+{self.hypernym_levels}" if self.hypernym_levels else "generous"


def normalise(answer: object) -> str:
    """The seed's `sanitize_answer`: booleans, one-element lists, spatial phrases, case."""
    if isinstance(answer, bool):
        return "yes" if answer else "no"
    text = str(answer).strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            items = ast.literal_eval(text)  # a literal only: never evaluates code
        except (ValueError, SyntaxError):
            items = None
        if isinstance(items, list) and len(items) == 1:
            return normalise(items[0])
    text = " ".join(text.lower().replace("_", " ").split())
    text = _BOOLEANS.get(text, text)
    spatial = _SPATIAL.match(text)
    return spatial.group(1) if spatial else text


def matches(answer: object, gold: object, generosity: Generosity | str = "strict") -> bool:
    level = Generosity.parse(generosity) if isinstance(generosity, str) else generosity
    predicted, expected = normalise(answer), normalise(gold)
    if predicted == expected:
        return True
    if not level.wordnet or not predicted or not expected:
        return False
    return _wordnet_match(predicted, expected, level.hypernym_levels)


def _wordnet_match(predicted: str, expected: str, levels: int) -> bool:
    answer_senses, gold_senses = senses(predicted), senses(expected)
    if set(answer_senses) & set(gold_senses):  # synonyms
        return True
    for gold in gold_senses:
        for candidate in answer_senses:
            if gold in hypernyms(candidate):  # the answer is a hyponym: more specific
                return True
            if any(candidate in level for level in islice(levels_above([gold]), levels)):
                return True  # the answer is a hypernym at most `levels` steps up
    return False


def top_k_match(answers: Sequence[object], gold: object, k: int,
                generosity: Generosity | str = "strict") -> bool:
    """Whether any of the first k answers matches the gold answer."""
    return any(matches(answer, gold, generosity) for answer in answers[:k])
