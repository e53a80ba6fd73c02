"""Natural language to program: examples, prompt, (constrained) generation, clean-up, check.

One `Translator` holds a backend, an example pool and its settings; `translate` returns a
`Translation` whatever happens — a program, or the error that stopped it — with the latency
and token counts, so a batch never loses a question.  Two kinds of translator share it:
`fewshot` shows a general model similar examples from the pool; `finetuned` gives a model
trained on GQA's pairs (`qlangc train`) only its one-line instruction and the question.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Protocol

from qlang.api import check, parse
from qlang.errors import QlangError, error
from qlang.ir import Node, asks_knowledge
from qlang.knowledge.graph import Knowledge
from qlang.passes.canonical import canonicalize
from qlang.passes.translation import settle
from qlang.syntax import SYNTAXES
from qlang.translate import instruction
from qlang.translate.backends import Backend, Generation, Request
from qlang.translate.examples import Example, select
from qlang.translate.grammar import GRAMMAR_SYNTAXES, generate
from qlang.translate.inexpressible import Inexpressible, inexpressible
from qlang.translate.postprocess import clean
from qlang.translate.prompts import Prompt, build_prompt, with_repair
from qlang.translate.unknown import UnknownWord, spoken, unknown_words

ENGINES = ("gbnf", "lark")


@dataclass(frozen=True, slots=True)
class Settings:
    #: `finetuned` (instruction prompt, no examples), `fewshot`, `small` or `cascade`
    translator: str = "fewshot"
    syntax: str = "nested"
    #: prompt version (None: the default for the syntax)
    prompt: str | None = None
    examples: int = 10
    sampling: str = "jaccard"
    cover_operators: bool = False
    constrained: bool = True
    #: the grammar's words: the GQA vocabulary (True) or any ASP term (False, syntax only)
    vocabulary: bool = True
    #: report unknown words as warnings, not errors, when checking the output
    open_vocabulary: bool = False
    #: the knowledge in use (`--kb`): the words the knowledge operations may take, which the
    #: small parser copies from the question and the checker accepts (None: the bundled base)
    knowledge: Knowledge | None = None
    #: `gbnf` (llama.cpp's engine) or `lark` (llguidance)
    engine: str = "lark"
    #: retries with the checker's message added to the prompt
    repair: int = 0
    chat: bool = True
    max_tokens: int = 256
    seed: int = 0


@dataclass
class Translation:
    question: str
    program: str | None = None
    root: Node | None = None
    error: QlangError | None = None
    raw: list[str] = field(default_factory=list)
    seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    examples: int = 0
    #: which translator answered (a cascade's `small` or `finetuned`); None: the only one
    path: str | None = None
    #: the small parser's probability for its program, where it was asked
    confidence: float | None = None
    #: the question's unknown words the program was made to speak of (`spoken`)
    kept: tuple[UnknownWord, ...] = ()

    @property
    def ok(self) -> bool:
        return self.root is not None

    @property
    def unknown(self) -> tuple[UnknownWord, ...]:
        """The question's words qlang does not know, which the program cannot have meant
        (`qlang.translate.unknown`); none without a program."""
        return () if self.root is None else unknown_words(self.question, self.root)

    @property
    def inexpressible(self) -> tuple[Inexpressible, ...]:
        """Where the question asks for what no operation computes ("how many": `qlang.translate.
        inexpressible`): whatever program came out answers another question."""
        return inexpressible(self.question)

    def spoken(self, syntax: str) -> Translation:
        """This translation about the question's unknown word where the program read another
        class for it (`qlang.translate.unknown.spoken`), printed in `syntax`; else itself."""
        root = None if self.root is None else spoken(self.question, self.root)
        if root is None or self.root is None:
            return self
        return replace(self, root=root, program=SYNTAXES[syntax].print(root), kept=self.unknown)

    def to_json(self) -> dict[str, object]:
        result: dict[str, object] = {"question": self.question, "program": self.program}
        if self.error is not None:
            result["error"] = self.error.diagnostics[0].to_json()
        result |= {"raw": self.raw[-1] if self.raw else None, "attempts": len(self.raw),
                   "seconds": round(self.seconds, 4), "prompt_tokens": self.prompt_tokens,
                   "completion_tokens": self.completion_tokens, "examples": self.examples}
        if self.path is not None:
            result |= {"path": self.path, "confidence": self.confidence}
        if unknown := self.unknown:
            result["unknown"] = [word.to_json() for word in unknown]
        if self.kept:
            result["kept"] = [word.kept for word in self.kept]
        if forms := self.inexpressible:
            result["inexpressible"] = [form.to_json() for form in forms]
        return result


class Translates(Protocol):
    """What batch commands and experiments need of any translator."""

    settings: Settings

    @property
    def description(self) -> str:
        """What answers, for the log line of a batch."""

    def translate(self, question: str) -> Translation: ...

    def translate_many(self, questions: Sequence[str]) -> list[Translation]: ...


class Scores(Translates, Protocol):
    """A translator that can also score given programs (the cascade's fallback)."""

    def likelihoods(self, questions: Sequence[str],
                    programs: Sequence[Sequence[Node]]) -> list[list[float]] | None: ...


@cache
def _grammar(syntax: str, engine: str, vocabulary: bool) -> str:
    return generate(syntax, engine, vocabulary=vocabulary)


class Translator:
    def __init__(self, backend: Backend, pool: list[Example], settings: Settings = Settings()) -> None:
        if settings.syntax not in SYNTAXES:
            raise ValueError(f"unknown syntax {settings.syntax!r}")
        if settings.constrained and settings.syntax not in GRAMMAR_SYNTAXES:
            raise error(QlangError, "usage", f"no decoding grammar for {settings.syntax}: use "
                        f"--no-constrained, or one of {', '.join(GRAMMAR_SYNTAXES)}")
        self.backend = backend
        self.pool = pool
        self.settings = settings
        self.description = f"{settings.translator} {backend.model}"
        self._bundled: Knowledge | None = None

    def prompt(self, question: str) -> tuple[Prompt, int]:
        s = self.settings
        if s.translator == "finetuned":
            text = instruction.prompt(question, s.syntax)
            return Prompt(question, (("user", text),), text), 0
        chosen = select(self.pool, question, s.examples, s.sampling, cover_operators=s.cover_operators,
                        seed=s.seed)
        return build_prompt(s.prompt, s.syntax, chosen, question), len(chosen)

    def request(self, prompt: Prompt) -> Request:
        s = self.settings
        grammar: dict[str, str] = {}
        if s.constrained:
            grammar[s.engine] = _grammar(s.syntax, s.engine, s.vocabulary)
        chat = s.chat and s.translator == "fewshot"
        return Request(messages=prompt.messages, completion=prompt.completion, chat=chat,
                       max_tokens=s.max_tokens, **grammar)

    def translate(self, question: str) -> Translation:
        result = Translation(question)
        start = time.perf_counter()
        prompt, result.examples = self.prompt(question)
        for _attempt in range(1 + self.settings.repair):
            try:
                generation = self.backend.generate(self.request(prompt))
            except QlangError as exc:  # the backend failed: record it, the batch goes on
                result.error = exc
                break
            if self._accept(result, generation):
                break
            assert result.error is not None and result.program is not None
            prompt = with_repair(prompt, result.program, result.error.render())
        result.seconds = time.perf_counter() - start
        return result

    def translate_many(self, questions: Sequence[str]) -> list[Translation]:
        """The questions in one batch where the backend generates batches (vLLM, llama.cpp)
        and no repair is asked for; else, and where the batch fails (one prompt too long
        spoils it), one by one, so that each question keeps its own program or error."""
        generate_many = getattr(self.backend, "generate_many", None)
        if generate_many is None or self.settings.repair:
            return [self.translate(q) for q in questions]
        start = time.perf_counter()
        results, requests = [], []
        for question in questions:
            result = Translation(question)
            prompt, result.examples = self.prompt(question)
            results.append(result)
            requests.append(self.request(prompt))
        try:
            generations = generate_many(requests)
        except QlangError:
            return [self.translate(q) for q in questions]
        for result, generation in zip(results, generations, strict=True):
            self._accept(result, generation)
        share = (time.perf_counter() - start) / max(1, len(results))
        for result in results:
            result.seconds = share
        return results

    def likelihoods(self, questions: Sequence[str],
                    programs: Sequence[Sequence[Node]]) -> list[list[float]] | None:
        """Per question, the log-probability the model gives each of its programs (printed in
        the translator's syntax) after the question's prompt, all in one batch; None where the
        backend cannot score (only generate)."""
        likelihoods = getattr(self.backend, "likelihoods", None)
        if likelihoods is None:
            return None
        printer = SYNTAXES[self.settings.syntax]
        requests = [self.request(self.prompt(question)[0]) for question in questions]
        scores: list[list[float]] = likelihoods(requests, [[printer.print(p) for p in ps] for ps in programs])
        return scores

    def _accept(self, result: Translation, generation: Generation) -> bool:
        """Clean, parse and check a generation into `result`; whether it was a program."""
        self._count(result, generation)
        text = clean(generation.text, self.settings.syntax)
        result.program = text
        try:
            root = parse(text, self.settings.syntax, name="<model output>")
            knowledge = self._knowledge(root)
            root = settle(root, result.question, knowledge)
            check(root, open_vocabulary=self.settings.open_vocabulary, knowledge=knowledge)
        except QlangError as exc:
            result.error = exc
            return False
        result.root, result.error = canonicalize(root), None
        result.program = SYNTAXES[self.settings.syntax].print(result.root)
        return True

    def _knowledge(self, root: Node) -> Knowledge | None:
        """The knowledge `root` is settled and checked against: the one in use, else for a
        program with a knowledge operation the bundled base, opened once for all of them (the
        check and `kindless` would each open it), else None (neither reads it)."""
        if self.settings.knowledge is not None:
            return self.settings.knowledge
        if not asks_knowledge(root):
            return None
        if self._bundled is None:
            from qlang.knowledge import sources

            self._bundled = sources.knowledge([])
        return self._bundled

    @staticmethod
    def _count(result: Translation, generation: Generation) -> None:
        result.raw.append(generation.text)
        result.prompt_tokens += generation.prompt_tokens
        result.completion_tokens += generation.completion_tokens
