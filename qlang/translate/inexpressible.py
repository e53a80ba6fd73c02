"""The forms of a question that ask for what no operation of the language computes.

GQA asks no question that counts, and qlang's operation table has no count: a translator still
writes some program, so "How many cups are there?" came back as the cups' size and was answered
"large", an answer to another question.  A form is listed with the operation it would need,
and it holds only while the table lacks that operation (`SIGNATURES`), so the day the language
counts, the form is asked again like any other question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qlang.errors import Diagnostic, Span, shown
from qlang.signatures import SIGNATURES


@dataclass(frozen=True, slots=True)
class Form:
    #: how questions say it (whole words, any case)
    said: re.Pattern[str]
    #: the operation it would need, and what it asks for
    operation: str
    asks: str


FORMS = (Form(re.compile(r"\bhow\s+(?:many|much)\b", re.IGNORECASE), "count", "a count or an amount"),)


@dataclass(frozen=True, slots=True)
class Inexpressible:
    #: the form as the question says it, and where (line 1: the question is one line)
    phrase: str
    span: Span
    asks: str

    @property
    def message(self) -> str:
        return (f"{shown(self.phrase)} asks for {self.asks}, which qlang's language cannot express; "
                "the program answers another question")

    def to_json(self) -> dict[str, object]:
        return {"phrase": self.phrase, "column": self.span.column, "message": self.message}

    def diagnostic(self) -> Diagnostic:
        return Diagnostic("language", self.message, self.span, warning=True)


def inexpressible(question: str) -> tuple[Inexpressible, ...]:
    """Where `question` asks for what no operation computes, in the order said."""
    return tuple(Inexpressible(m.group(), Span(1, m.start() + 1, 1, m.end() + 1), form.asks)
                 for form in FORMS if form.operation not in SIGNATURES
                 for m in form.said.finditer(question))
