"""ASP-facts scenes: ground facts of the scene predicates, and nothing else.

A scene given as ASP text goes into the same program as the question and the theory, so a rule
in it (``ans(banana).``, ``object(1..20000).``, ``#const``) could change the answer or slip past
the grounding guard, which counts the facts it can see.  So a scene is read here first, in full:
facts of `PREDICATES` whose arguments are constants, quoted strings or integers that clingo
holds exactly, with comments between them.  Nothing else reaches clingo.

>>> problem("object(1). has_attr(1, class, cat). % a cat")
>>> message, where = problem("object(1).\\nans(banana).")
>>> message.split(" (")[0], (where.line, where.column)
('ans/1 is not a scene predicate', (2, 1))
"""

from __future__ import annotations

import re

from qlang.errors import Span

#: What the theory reads of a scene, by arity.
PREDICATES = {"object": 1, "has_attr": 3, "has_rel": 3, "has_obj_weight": 2}
#: clingo's integers are 32 bits wide and wrap silently beyond.
_INT_RANGE = range(-(2**31), 2**31)

_TERM = r'-?[0-9]+|_*[a-z][A-Za-z0-9_\']*|"(?:[^"\\\n]|\\.)*"'
_SKIP = re.compile(r"(?:\s+|%\*.*?\*%|%[^\n]*)*", re.DOTALL)
_FACT = re.compile(rf"([a-z][A-Za-z0-9_]*)\(\s*((?:{_TERM})(?:\s*,\s*(?:{_TERM}))*)\s*\)\s*\.")
_ARGUMENT = re.compile(_TERM)
_INTEGER = re.compile(r"-?[0-9]+")
_NAMES = ", ".join(f"{name}/{arity}" for name, arity in PREDICATES.items())


def problem(text: str) -> tuple[str, Span] | None:
    """Why `text` is not a scene of ground facts, and where; None if it is one."""
    position = _SKIP.match(text, 0).end()  # type: ignore[union-attr]  # it matches the empty string
    while position < len(text):
        fact = _FACT.match(text, position)
        if fact is None:
            return f"only ground facts of {_NAMES} may be in an ASP scene", _span(text, position)
        arguments = _ARGUMENT.findall(fact[2])
        if PREDICATES.get(fact[1]) != len(arguments):
            return f"{fact[1]}/{len(arguments)} is not a scene predicate ({_NAMES})", _span(text, position)
        if any(_INTEGER.fullmatch(a) and int(a) not in _INT_RANGE for a in arguments):
            return "an integer beyond clingo's 32 bits", _span(text, position)
        position = _SKIP.match(text, fact.end()).end()  # type: ignore[union-attr]
    return None


def _span(text: str, position: int) -> Span:
    line = text.count("\n", 0, position) + 1
    column = position - (text.rfind("\n", 0, position) + 1) + 1
    return Span(line, column, line, column + 1)
