"""Integers read from text, one way everywhere: a web form's field, an upload's declared size,
a port, a step's reference, a count in a file.

`str.isdigit` and `int` disagree (``'²'`` is a digit to one and no number to the other, and
``int`` takes ``' 7 '``, ``'+7'``, ``'7_000'`` and Arabic-Indic digits, but no string of more
than 4,300 digits): so a number is ASCII digits only, and is judged against its bounds before
`int` sees it, whatever its length.

>>> integer("42", most=100)
42
"""

from __future__ import annotations

import re

from qlang.errors import shown

_DIGITS = re.compile(r"[0-9]+")


class OutOfRange(ValueError):
    """A whole number, but outside the bounds its reader allows."""


def is_digits(text: str) -> bool:
    """Whether `text` is ASCII digits only (a number of any length, which `integer` reads).

    >>> is_digits("12"), is_digits("²"), is_digits(" 1"), is_digits("")
    (True, False, False, False)
    """
    return _DIGITS.fullmatch(text) is not None


def integer(text: str, *, least: int = 0, most: int) -> int:
    """The number `text` writes in ASCII digits (no sign, no spaces), in [least, most]; raises
    ValueError saying what is wrong (`OutOfRange` for a number beyond the bounds).

    >>> integer("²", most=9)
    Traceback (most recent call last):
    ...
    ValueError: '²' is not a whole number written in the digits 0-9
    >>> integer("9" * 5000, most=9)
    Traceback (most recent call last):
    ...
    qlang.integers.OutOfRange: a number of 5000 digits is not between 0 and 9
    """
    if not is_digits(text):
        raise ValueError(f"{shown(text)} is not a whole number written in the digits 0-9")
    significant = text.lstrip("0") or "0"
    if len(significant) > len(str(most)):
        raise OutOfRange(f"a number of {len(significant)} digits is not between {least} and {most}")
    value = int(significant)
    if not least <= value <= most:
        raise OutOfRange(f"{value} is not between {least} and {most}")
    return value
