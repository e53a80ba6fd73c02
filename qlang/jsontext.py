"""JSON read within bounds: how qlang reads every JSON document that comes from outside.

Python's decoder trusts its input three ways that hostile text breaks: it recurses once per
nesting level (100,000 ``[`` end in RecursionError, sooner on a deep stack), it converts
integers of any length (past 4,300 digits a ValueError, after work that grows with the square
of the length), and it decodes ``"\\ud800"`` into a str that no UTF-8 writer, and not clingo,
can take.  `loads` refuses all three as the `json.JSONDecodeError` malformed JSON raises, at
the place it names, so every caller's handling of bad JSON (a located error, a batch line's
error record) holds for them too.

>>> loads('{"id": 7, "box": [0.5, -3], "name": "caf\\\\u00e9 \\\\ud83d\\\\ude00"}')
{'id': 7, 'box': [0.5, -3], 'name': 'café 😀'}
>>> loads('[' * 300)
Traceback (most recent call last):
...
json.decoder.JSONDecodeError: nested deeper than 200 levels: line 1 column 201 (char 200)
>>> loads('{"id": 123456789012345678901}')
Traceback (most recent call last):
...
json.decoder.JSONDecodeError: an integer of more than 20 digits: line 1 column 8 (char 7)
>>> loads('["ok", "\\\\udc80"]')
Traceback (most recent call last):
...
json.decoder.JSONDecodeError: a lone surrogate (\\udc80), which is no text: line 1 column 9 (char 8)
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any, NoReturn

#: The deepest nesting read: GQA's scene graphs and question files nest 6 deep, and Python's
#: decoder fails near 1,000, less the stack its caller already uses.
MAX_DEPTH = 200
#: The most digits of an integer qlang reads (64-bit integers have at most 20): ids, step
#: numbers and coordinates need far fewer, and Python's `int` refuses 4,300.
MAX_DIGITS = 20

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING, re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_NESTING = {"[": 1, "{": 1, "]": -1, "}": -1}
_BRACKETS = re.compile(rf"{_STRING}|[\[\]{{}}]", re.DOTALL)
_NUMBERS = re.compile(rf"{_STRING}|-?([0-9]+)(\.[0-9]+)?([eE][-+]?[0-9]+)?", re.DOTALL)
#: an escape: a surrogate (its code point) or any other
_ESCAPES = re.compile(r"\\(?:u([dD][89a-fA-F][0-9a-fA-F]{2})|.)", re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")


class _TooLong(Exception):
    """An integer of more than `MAX_DIGITS` digits (raised inside the decoder, located after)."""


def loads(text: str) -> Any:
    """The JSON value of `text`; raises `json.JSONDecodeError` where it is no JSON, nests deeper
    than `MAX_DEPTH`, holds an integer of more than `MAX_DIGITS` digits or a lone surrogate."""
    deep = _too_deep(text)
    try:
        value = _decode(text[:deep])  # up to the deep bracket: a problem before it comes first
    except _TooLong:
        raise json.JSONDecodeError(f"an integer of more than {MAX_DIGITS} digits", text,
                                   _long_integer(text)) from None
    except json.JSONDecodeError as exc:
        if deep is None or exc.pos < deep:
            raise
    if deep is not None:
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, deep)
    _check_surrogates(text)
    return value


def _decode(text: str) -> Any:
    if text.startswith("\ufeff"):
        return json.loads(text)  # raises, as Python's reader does: a byte-order mark is no JSON
    return _DECODER.decode(text)


def _integer(digits: str) -> int:
    if len(digits) - digits.startswith("-") > MAX_DIGITS:
        raise _TooLong
    return int(digits)


#: Built once: `json.loads` given a `parse_int` builds a decoder per call, which cost a short
#: line (a batch's) as much as reading it.
_DECODER = json.JSONDecoder(parse_int=_integer)


def _too_deep(text: str) -> int | None:
    """Where the first bracket nested deeper than `MAX_DEPTH` is, if one is (brackets in
    strings do not count); the common case costs a few scans at C speed."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None
    # where no quote is escaped, every other piece between quotes is outside the strings
    outside = _STRINGS.sub("", text) if '\\"' in text else "".join(text.split('"')[::2])
    brackets = _NOT_BRACKETS.sub("", outside)
    if max(accumulate(map(_NESTING.__getitem__, brackets)), default=0) <= MAX_DEPTH:
        return None
    depth = 0
    for token in _BRACKETS.finditer(text):
        depth += _NESTING.get(token[0], 0)
        if depth > MAX_DEPTH:
            return token.start()
    raise AssertionError("the scans disagree")  # pragma: no cover - they read the same tokens


def _long_integer(text: str) -> int:
    """Where the first integer of more than `MAX_DIGITS` digits is (not in a string, nor the
    digits of a fraction)."""
    for token in _NUMBERS.finditer(text):
        if token[1] and not (token[2] or token[3]) and len(token[1]) > MAX_DIGITS:
            return token.start()
    raise AssertionError("the decoder read an integer the scan did not")  # pragma: no cover


def _check_surrogates(text: str) -> None:
    """Raise at the first surrogate that is not the high half of an escaped pair followed
    straight away by its low half (text decoded from UTF-8 holds none as itself)."""
    if not text.isascii() and (found := _SURROGATE.search(text)):
        _lone(text, found.start())
    if "\\u" not in text:
        return
    high: tuple[int, int] | None = None  # where an escaped high half waiting for its low starts, ends
    for escape in _ESCAPES.finditer(text):
        code = int(escape[1], 16) if escape[1] else None
        if high is not None:
            if code is None or code < 0xDC00 or escape.start() != high[1]:
                _lone(text, high[0])
            high = None
        elif code is not None:
            if code >= 0xDC00:
                _lone(text, escape.start())
            high = (escape.start(), escape.end())
    if high is not None:
        _lone(text, high[0])


def _lone(text: str, position: int) -> NoReturn:
    written = text[position:position + 6] if text[position] == "\\" else ascii(text[position])[1:-1]
    raise json.JSONDecodeError(f"a lone surrogate ({written}), which is no text", text, position)


def split_lines(data: bytes) -> list[bytes]:
    """The lines of JSON-lines `data`, a byte-order mark dropped, split on "\\n" alone (a JSON
    string may hold U+2028 or U+0085, which `str.splitlines` would split on) and left undecoded,
    so that one line that is not UTF-8 costs only itself."""
    return data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
