"""Extraction: the span of some documents that answers a question, or no answer (NeuroQL's
``neural_extract``).

Two extractors behind one setting:

- ``constrained``: a language model (the bundled SmolLM2, `qlang.translate.reader_model`) decoding
  under a grammar whose only sentences are spans of the documents, as a prefix automaton over
  their tokens (a trie: a token is allowed only where it continues some span, the end only
  where a span ends), so the answer is always a real span, never invented, whatever the
  model's logits.  The spans are those of the (up to `Constrained.sentences`) sentences sharing
  most words with the question (all of them sharing none: the first), of at most
  `Constrained.longest` words, beginning and ending with a word that is no stop word, holding
  none of the question's words (an answer says what the question does not) and lying in a run
  of words next to the question's (an answer sits by the words that ask for it), and "no
  answer".  Its weight is the probability of its tokens among those allowed;
- ``lexical``: the baseline, the sentence sharing most words with the question and, in it, the
  shortest run of words outside the question next to the words it shares (after them first:
  "used for *drinking*").

Both answer with a `Quote`: the document's number and the answer's character offsets in it,
which `explain` quotes.  Words are compared as the bm25 retriever compares them: lower case,
English stop words dropped, stemmed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Protocol

from qlang.text.documents import Documents

if TYPE_CHECKING:  # numpy comes with the extras: the lexical extractor runs without it
    import numpy as np

#: What the model writes when the documents do not answer.
NO_ANSWER = "no answer"
_WORD = re.compile(r"\w+(?:['’-]\w+)*")
#: A sentence ends at . ! ? or ; (WordNet's glosses join their parts with ;) before a space.
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
#: Text between two words that ends a run of answer words (a clause's or a list's boundary).
_BREAK = re.compile(r"[,;()\[\]\"“”.!?]")


@dataclass(frozen=True, slots=True)
class Quote:
    """An answer: characters `start` to `end` of document `document`, and that text."""

    document: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Extraction:
    """An extractor's answer: its span (None: the documents do not answer) and a weight in (0, 1]."""

    span: Quote | None
    weight: float


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence of a document: its document, and its words' character offsets there."""

    document: int
    words: tuple[tuple[int, int], ...]

    def span(self, documents: Documents, first: int, last: int) -> Quote:
        """The span of words `first` to `last` (inclusive)."""
        start, end = self.words[first][0], self.words[last][1]
        return Quote(self.document, start, end, documents.documents[self.document].text[start:end])


def sentences(documents: Documents, numbers: Sequence[int]) -> list[Sentence]:
    """The sentences of documents `numbers`, in order (a sentence without a word is none)."""
    found = []
    for number in numbers:
        text = documents.documents[number].text
        start = 0
        for end in [m.start() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
            words = tuple((m.start() + start, m.end() + start) for m in _WORD.finditer(text[start:end]))
            if words:
                found.append(Sentence(number, words))
            start = end
    return found


@cache
def _stopwords() -> frozenset[str]:
    from qlang.text.retrieve import bm25s_package

    bm25s_package()  # a clear error where the package is missing
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


@cache
def _stem(word: str) -> str:
    from qlang.text.retrieve import stemmer

    stem: str = stemmer().stemWord(word.lower())
    return stem


def content(word: str) -> str | None:
    """A word as extraction compares it: its stem, None for a stop word."""
    return None if word.lower() in _stopwords() else _stem(word)


def question_words(question: str) -> frozenset[str]:
    """The stems of a question's content words."""
    return frozenset(s for m in _WORD.finditer(question) if (s := content(m.group())) is not None)


def _shared(documents: Documents, sentence: Sentence, asked: frozenset[str]) -> list[bool]:
    """Which of a sentence's words are among the question's."""
    text = documents.documents[sentence.document].text
    return [content(text[a:b]) in asked for a, b in sentence.words]


def ranked(documents: Documents, found: list[Sentence], asked: frozenset[str]) -> list[tuple[int, Sentence]]:
    """Sentences with how many of the question's words each shares, most first (ties in order)."""
    overlaps = []
    for place, sentence in enumerate(found):
        text = documents.documents[sentence.document].text
        stems = {content(text[a:b]) for a, b in sentence.words}
        overlaps.append((len(asked & stems), place, sentence))
    overlaps.sort(key=lambda o: (-o[0], o[1]))
    return [(overlap, sentence) for overlap, _, sentence in overlaps]


class Extractor(Protocol):
    name: str

    def __call__(self, documents: Documents, numbers: Sequence[int], question: str) -> Extraction:
        ...  # pragma: no cover - a protocol


class Lexical:
    """The baseline: the best-overlapping sentence's shortest answering span."""

    name = "lexical"

    def __call__(self, documents: Documents, numbers: Sequence[int], question: str) -> Extraction:
        asked = question_words(question)
        best = ranked(documents, sentences(documents, numbers), asked)
        if not best or best[0][0] == 0:
            return Extraction(None, 1.0)
        overlap, sentence = best[0]
        run = _answering_run(documents, sentence, _shared(documents, sentence, asked))
        if run is None:
            return Extraction(None, 1.0)
        return Extraction(sentence.span(documents, *run), overlap / len(asked))


def _answering_run(documents: Documents, sentence: Sentence, shared: list[bool]) -> tuple[int, int] | None:
    """The words (first, last) of the run of words outside the question that answers: the one
    right after a shared word first, then right before one, then the nearest, then the shortest."""
    scored = _runs(documents, sentence, shared)
    return min(scored)[1] if scored else None


def _runs(documents: Documents, sentence: Sentence, shared: list[bool]
          ) -> list[tuple[tuple[bool, bool, int, int], tuple[int, int]]]:
    """A sentence's runs of words outside the question, split by the question's words and by
    punctuation and trimmed of stop words, each as (not after a shared word, not before one,
    its distance from one, its length) and its words (first, last)."""
    text = documents.documents[sentence.document].text
    runs: list[tuple[int, int]] = []
    start = None
    for place, is_shared in enumerate(shared):
        broken = place > 0 and _BREAK.search(text[sentence.words[place - 1][1]:sentence.words[place][0]])
        if start is not None and (is_shared or broken):
            runs.append((start, place - 1))
            start = None
        if not is_shared and start is None:
            start = place
    if start is not None:
        runs.append((start, len(shared) - 1))
    scored = []
    for first, last in runs:
        words = [text[a:b] for a, b in sentence.words[first:last + 1]]
        kept = [i for i, w in enumerate(words) if content(w) is not None]
        if not kept:
            continue
        trimmed = (first + kept[0], first + kept[-1])
        after = first > 0 and shared[first - 1]
        before = last + 1 < len(shared) and shared[last + 1]
        gap = min([kept[0]] * after + [len(words) - 1 - kept[-1]] * before or [len(shared)])
        scored.append(((not after, not before, gap, trimmed[1] - trimmed[0]), trimmed))
    return scored


def _answer_words(documents: Documents, sentence: Sentence, asked: frozenset[str]) -> list[tuple[int, int]]:
    """Where in a sentence an answer may lie: the runs next to the question's words and the runs
    next to those (an answer sits by the words that ask for it, or just past a clause's break:
    "battery life: *about twenty hours*"), or, in a sentence sharing none, all of it."""
    shared = _shared(documents, sentence, asked)
    if not any(shared):
        return [(0, len(shared) - 1)]
    runs = _runs(documents, sentence, shared)
    return [run for (after, before, _, _), run in runs if not (after and before)]


class LanguageModel(Protocol):
    """What constrained extraction needs of a language model."""

    #: the token that ends an answer
    eos: int

    def prompt(self, messages: Sequence[tuple[str, str]]) -> list[int]:
        """The tokens of a chat, (role, content) messages, ending where the model's answer begins."""
        ...  # pragma: no cover - a protocol

    def tokenize(self, text: str) -> list[int]:
        """The tokens of text the model writes (no start-of-text token)."""
        ...  # pragma: no cover - a protocol

    def logits(self, tokens: Sequence[int]) -> np.ndarray:
        """The model's logits for the token after `tokens`."""
        ...  # pragma: no cover - a protocol


INSTRUCTION = ("Answer the question with words copied from the context: as few words as answer it, "
               f"or '{NO_ANSWER}' where the context does not say.")
#: Worked exchanges shown before the question: a short span, and a longer one (shown only the
#: first, SmolLM2-135M cut answers short: "hair" for "groom a person's hair").  (Shown a "no
#: answer" exchange too, it answers nothing else.)
EXAMPLES = (
    ("Context: a tool with a sharp blade used for cutting wood\nQuestion: What is the saw used for?",
     "cutting wood"),
    ("Context: The lamp has a brass base and runs on two batteries for about ten hours\n"
     "Question: How long do the lamp's batteries last?", "about ten hours"),
)


def chat(context: str, question: str) -> list[tuple[str, str]]:
    """The chat the model answers: the instruction, the worked exchanges, the question."""
    shown = [turn for asked, answer in EXAMPLES for turn in (("user", asked), ("assistant", answer))]
    return [("system", INSTRUCTION), *shown, ("user", f"Context: {context}\nQuestion: {question}")]


@dataclass
class _Node:
    children: dict[int, _Node] = field(default_factory=dict)
    #: the candidate a path ending here spells (None: no candidate ends here)
    ends: Any = None


def trie(candidates: dict[str, Any], tokenize: Callable[[str], list[int]]) -> _Node:
    """The prefix automaton of the candidates' token sequences (a text that tokenizes to
    nothing is left out)."""
    root = _Node()
    for text, value in candidates.items():
        tokens = tokenize(text)
        if not tokens:
            continue
        node = root
        for token in tokens:
            node = node.children.setdefault(token, _Node())
        if node.ends is None:
            node.ends = (value,)
    return root


class Constrained:
    """A language model that can only write a span of the documents, or no answer."""

    name = "constrained"

    def __init__(self, model: LanguageModel, *, sentences: int = 1, longest: int = 12) -> None:
        self.model = model
        self.sentences = sentences
        self.longest = longest

    def candidates(self, documents: Documents, numbers: Sequence[int], question: str
                   ) -> tuple[list[Sentence], dict[str, Quote | None]]:
        """The sentences shown to the model, and every answer it may write: each span of at
        most `longest` words of them (its first occurrence), and no answer."""
        asked = question_words(question)
        best = ranked(documents, sentences(documents, numbers), asked)
        sharing = [s for overlap, s in best if overlap]
        shown = (sharing or [s for _, s in best])[:self.sentences]
        found: dict[str, Quote | None] = {NO_ANSWER: None}
        for sentence in shown:
            text = documents.documents[sentence.document].text
            stems = [content(text[a:b]) for a, b in sentence.words]
            for lowest, highest in _answer_words(documents, sentence, asked):
                for first in range(lowest, highest + 1):
                    if stems[first] is None or stems[first] in asked:
                        continue
                    for last in range(first, min(first + self.longest, highest + 1)):
                        if stems[last] in asked:
                            break
                        if stems[last] is not None:
                            span = sentence.span(documents, first, last)
                            found.setdefault(span.text, span)
        return shown, found

    def __call__(self, documents: Documents, numbers: Sequence[int], question: str) -> Extraction:
        shown, found = self.candidates(documents, numbers, question)
        if not shown:
            return Extraction(None, 1.0)
        context = " ".join(documents.documents[s.document].text[s.words[0][0]:s.words[-1][1]] for s in shown)
        import numpy as np

        prompt = self.model.prompt(chat(context, question))
        node, written, log_weight = trie(found, self.model.tokenize), list[int](), 0.0
        while True:
            allowed = list(node.children) + ([self.model.eos] if node.ends is not None else [])
            if len(allowed) == 1:
                chosen = allowed[0]
            else:
                logits = np.asarray(self.model.logits(prompt + written), dtype=np.float64)[allowed]
                best = int(np.argmax(logits))
                chosen = allowed[best]
                log_weight += float(logits[best] - np.logaddexp.reduce(logits))
            if chosen == self.model.eos:
                break
            written.append(chosen)
            node = node.children[chosen]
            if not node.children:
                break
        span: Quote | None = node.ends[0]
        return Extraction(span, math.exp(log_weight))

