"""Integers read from text, one way everywhere: a web form's field, an upload's declared size,
a port, a step's reference, a count in a file.

`str.isdigit` and `int` disagree (``'²'`` is a digit to one and no number to the other, and
``int`` takes ``' 7 '``, ``'+7'``, ``'7_000'`` and Arabic-Indic digits), and `int` of a 5,000-
digit string is an error of its own: so a number is ASCII digits only, at most `DIGITS` of them,
and within the bounds its reader gives.

>>> integer("42", most=100)
42
"""

from __future__ import annotations

import re

#: The most digits a number read from text may have (a 64-bit count has 20).
DIGITS = 20
_DIGITS = re.compile(r"[0-9]+")


def integer(text: str, *, least: int = 0, most: int) -> int:
    """The number `text` writes in ASCII digits (no sign, no spaces), in [least, most]; raises
    ValueError saying what is wrong.

    >>> integer("²", most=9)
    Traceback (most recent call last):
    ...
    ValueError: '²' is not a whole number written in the digits 0-9
    """
    if len(text) > DIGITS or not _DIGITS.fullmatch(text):
        raise ValueError(f"{text[:DIGITS + 1]!r} is not a whole number written in the digits 0-9")
    value = int(text)
    if not least <= value <= most:
        raise ValueError(f"{value} is not between {least} and {most}")
    return value


def is_integer(text: str) -> bool:
    """Whether `text` is a number `integer` reads (of any size within `DIGITS` digits)."""
    return len(text) <= DIGITS and _DIGITS.fullmatch(text) is not None
