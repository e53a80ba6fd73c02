"""The surface syntaxes: each a parser into the IR and a printer out of it.

Converting is "parse with one, print with another"; `detect` guesses a text's syntax.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from qlang.errors import Source
from qlang.ir import Node, op
from qlang.syntax import code, flat, gqa, nested


@dataclass(frozen=True, slots=True)
class Syntax:
    name: str
    parse: Callable[[Source], Node]
    print: Callable[[Node], str]
    example: str


SYNTAXES: dict[str, Syntax] = {
    s.name: s
    for s in (
        Syntax("gqa", gqa.parse, gqa.print_program,
               '[{"operation": "select", "dependencies": [], "argument": "dish"}, ...]'),
        Syntax("gqa-str", gqa.parse, gqa.print_semantic_str, "select: dish->query: name [0]"),
        Syntax("flat", flat.parse, flat.print_program,
               "scene(0). select(1, 0, dish). unique(2, 1). query(3, 2, name). end(3)."),
        Syntax("nested", nested.parse, nested.print_program,
               "query(unique(select(scene(), dish)), name)"),
        Syntax("code", code.parse, code.print_program,
               "var1 = unique(select(scene(), dish))\nquery(var1, name)"),
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
