"""Where a program of each syntax starts and ends in free text: what cleaning a model's output
(`qlang.translate.postprocess`) needs to know of a syntax, on its `Syntax` record.

A model keeps writing after the program (a completion model invents the next question), so each
syntax says where its program ends:

- flat: after the ``end(...)`` fact;
- nested: after the parenthesis that closes the first top-level call;
- code: after the assignments and the balanced answer expression that follows them;
- gqa (JSON): after the bracket that closes the list; gqa-str: at the end of its line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from qlang.frozen import by_fields
from qlang.signatures import SIGNATURES


@dataclass(frozen=True, slots=True)
class Extent:
    #: where a program may start
    start: re.Pattern[str]
    #: what may stand right before that start and still be part of the program (repeatedly)
    enclosing: re.Pattern[str] | None
    #: the text, which starts with the program, cut where the program ends
    cut: Callable[[str], str]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return by_fields(self)  # compiled, a frozen dataclass cannot unpickle field by field


_OPERATIONS = "|".join(sorted(SIGNATURES, key=len, reverse=True))
_CALL = re.compile(rf"\b(?:{_OPERATIONS})\s*\(")
_FACT = re.compile(rf"\b(?:{_OPERATIONS}|end)\s*\(\s*[0-9]")
_NAME = r"[A-Za-z_][A-Za-z0-9_']*+"
#: what may stand right before a program's first known call: a call of an operation the model
#: made up (``two_diff(unique(...``), and in code-like a variable it assigns to
_ENCLOSING = re.compile(rf"\b{_NAME}\s*\(\s*\Z")
_ENCLOSING_CODE = re.compile(rf"\b{_NAME}\s*[(=]\s*\Z")
_ASSIGNED = re.compile(rf"({_NAME})\s*=(?!=)")
_VARIABLE = re.compile(rf"{_NAME}(?!\s*\()")
_ANSWER_CALL = re.compile(rf"{_NAME}\s*\(")
_END = re.compile(r"\bend\s*\([^()]*\)(?:\s*\.)?")
_JSON_LIST = re.compile(r"\[\s*\{")
_GQA_STR = re.compile(r"\bselect\s*:")
_LINE_END = re.compile(r"(?<!->)\n(?![ \t]*->)")


def _cut_flat(text: str) -> str:
    end = _END.search(text)
    return text if end is None else text[:end.end()]


def _cut_nested(text: str) -> str:
    return text[:_balanced(text, 0, "(", ")")]


def _cut_code(text: str) -> str:
    """Assignments while they last, then the answer: a balanced call or an assigned variable.

    Anything else after the assignments is prose, and the last assignment is the answer.
    """
    position, assigned = 0, set()
    while assignment := _ASSIGNED.match(text, _skip_space(text, position)):
        assigned.add(assignment[1])
        position = _balanced(text, assignment.end(), "(", ")")
    answer_at = _skip_space(text, position)
    variable = _VARIABLE.match(text, answer_at)
    if variable is not None and variable[0] in assigned:
        return text[:variable.end()]
    if _ANSWER_CALL.match(text, answer_at):
        return text[:_balanced(text, answer_at, "(", ")")]
    return text[:position]


def _cut_json(text: str) -> str:
    return text[:_balanced(text, 0, "[", "]")]


def _cut_semantic_str(text: str) -> str:
    """The line the program is on (continued by lines starting with ``->``), to its last ``]``."""
    line_end = _LINE_END.search(text)
    text = text if line_end is None else text[:line_end.start()]
    last = text.rfind("]")
    return text[:last + 1] if last >= 0 and "->" not in text[last:] else text


def _balanced(text: str, start: int, open_: str, close: str) -> int:
    """Where the first `open_` after `start` is closed (quoted text aside), else the text's end."""
    depth, quoted, escaped = 0, False, False
    for position in range(start, len(text)):
        char = text[position]
        if quoted:
            escaped, quoted = (not escaped and char == "\\"), escaped or char != '"'
        elif char == '"':
            quoted = True
        elif char == open_:
            depth += 1
        elif char == close and depth > 0:
            depth -= 1
            if depth == 0:
                return position + 1
    return len(text)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


FLAT = Extent(_FACT, None, _cut_flat)
NESTED = Extent(_CALL, _ENCLOSING, _cut_nested)
CODE = Extent(_CALL, _ENCLOSING_CODE, _cut_code)
GQA = Extent(_JSON_LIST, None, _cut_json)
GQA_STR = Extent(_GQA_STR, None, _cut_semantic_str)
