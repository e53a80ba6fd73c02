"""The surface syntaxes: each a parser into the IR and a printer out of it.

Converting is "parse with one, print with another"; `detect` guesses a text's syntax.  A
syntax's `Syntax` record is all there is to it: every reader of syntaxes (the parsers, the
decoding grammars, the editor's server, the clean-up of model output) takes what it needs from
the record, and nothing outside this package names a syntax to decide what to do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum

from qlang.errors import Source
from qlang.ir import Node, op
from qlang.syntax import code, extent, flat, gqa, nested
from qlang.syntax.descent import CallShape
from qlang.syntax.extent import Extent
from qlang.syntax.parsing import Grammar


class Decoding(Enum):
    """How the decoding grammar of a syntax (`qlang.translate.grammar`) lays a program out."""

    #: one expression (nested)
    EXPRESSION = "expression"
    #: ``varK = expression`` lines, then the answer (code-like)
    ASSIGNMENTS = "assignments"
    #: numbered facts, then ``end(N).`` (flat)
    FACTS = "facts"


@dataclass(frozen=True, slots=True)
class Syntax:
    name: str
    parse: Callable[[Source], Node]
    print: Callable[[Node], str]
    example: str
    #: the extension of its files (and so of the file a conversion writes)
    extension: str
    #: the grammar of `grammars/` it is read with (None: GQA's JSON, read as JSON)
    grammar: Grammar | None
    #: the character a comment starts with (None: the syntax has no comments)
    comment: str | None
    #: the decoding grammar a model writing it is held to (None: it is decoded freely)
    decoding: Decoding | None
    #: where its program starts and ends in a model's free text
    extent: Extent
    #: the reader of its numbered steps, for a syntax written as GQA's steps (None: as calls)
    steps: Callable[[Source], list[gqa.GqaStep]] | None = None

    @property
    def calls(self) -> CallShape | None:
        """How a call-shaped syntax strings its calls (None: the syntax is not call-shaped)."""
        return self.grammar.shape if self.grammar is not None else None


SYNTAXES: dict[str, Syntax] = {
    s.name: s
    for s in (
        Syntax("gqa", gqa.parse, gqa.print_program,
               '[{"operation": "select", "dependencies": [], "argument": "dish"}, ...]',
               extension=".json", grammar=None, comment=None, decoding=None, extent=extent.GQA,
               steps=gqa.parse_steps),
        Syntax("gqa-str", gqa.parse, gqa.print_semantic_str, "select: dish->query: name [0]",
               extension=".qg", grammar=gqa.GRAMMAR, comment=None, decoding=None,
               extent=extent.GQA_STR, steps=gqa.parse_steps),
        Syntax("flat", flat.parse, flat.print_program,
               "scene(0). select(1, 0, dish). unique(2, 1). query(3, 2, name). end(3).",
               extension=".qf", grammar=flat.GRAMMAR, comment="%", decoding=Decoding.FACTS,
               extent=extent.FLAT),
        Syntax("nested", nested.parse, nested.print_program, "query(unique(select(scene(), dish)), name)",
               extension=".qn", grammar=nested.GRAMMAR, comment="%", decoding=Decoding.EXPRESSION,
               extent=extent.NESTED),
        Syntax("code", code.parse, code.print_program,
               "var1 = unique(select(scene(), dish))\nquery(var1, name)",
               extension=".qc", grammar=code.GRAMMAR, comment="%", decoding=Decoding.ASSIGNMENTS,
               extent=extent.CODE),
    )
}


def load(names: Iterable[str]) -> None:
    """Build these syntaxes' parsers now: before worker processes fork, so that they share them."""
    probe = op("exist", op("scene"))
    for name in names:
        syntax = SYNTAXES[name]
        syntax.parse(Source(syntax.print(probe)))


_GQA_STR = re.compile(r"^\s*[A-Za-z][A-Za-z ]*:")
_FACT_END = re.compile(r"\)\s*\.")
_ASSIGNMENT = re.compile(r"^\s*[a-z][A-Za-z0-9_']*\s*=", re.MULTILINE)
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def detect(text: str) -> str:
    """The syntax a program is most likely written in (quoted words don't count)."""
    text = _STRING.sub('""', text)
    stripped = text.lstrip()
    if stripped.startswith(("[", "{")):
        return "gqa"
    if _GQA_STR.match(stripped):
        return "gqa-str"
    if _FACT_END.search(text):
        return "flat"
    if _ASSIGNMENT.search(text):
        return "code"
    return "nested"
