"""Reversible spelling of vocabulary words as ASP terms.

A word becomes a bare constant when that is safe and unambiguous (``to the left of`` ->
``to_the_left_of``), otherwise a quoted string (``"t-shirt"``).  Since natural words are
spelled with spaces, a word that itself contains ``_`` is always quoted, which keeps the
mapping reversible.  Nothing but these two forms is ever emitted, so no word can inject ASP.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

import clingo

from qlang.errors import UnsupportedOperation, error, shown
from qlang.signatures import SIGNATURES, Kind

_CONSTANT = re.compile(r"[a-z][A-Za-z0-9_]*")
#: what clingo cannot read in a string: NUL ends its text, a surrogate is no UTF-8
_UNSPELLABLE = re.compile(r"[\x00\ud800-\udfff]")  # escaped for re: mypyc refuses surrogates
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n"}
_UNESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


@lru_cache(maxsize=1 << 16)
def to_term(word: str) -> str:
    """The term spelling `word` (remembered: a program's words come from a small vocabulary)."""
    candidate = word.replace(" ", "_")
    if "_" not in word and _CONSTANT.fullmatch(candidate) and candidate not in _RESERVED:
        return candidate
    return _quoted(word)


def to_literal(word: str, kind: Kind | None) -> str:
    """A literal of `kind` as the call-shaped syntaxes write it: free text always quoted, so that
    it reads as text even when it is one word; any other word as `to_term` spells it."""
    return _quoted(word) if kind is Kind.TEXT else to_term(word)


#: How a word at one argument position is spelled (`SPELLERS`).
Speller = Callable[[str], str]


def _quoted(word: str) -> str:
    """`word` as an ASP string, escaped; what clingo cannot read is an error, not a term."""
    if (unspellable := _UNSPELLABLE.search(word)) is not None:
        found = unspellable[0]
        what = "NUL" if found == "\0" else f"a lone surrogate ({ascii(found)[1:-1]}), which is no text"
        raise error(UnsupportedOperation, "literal", f"ASP cannot spell {shown(word)}: it contains {what}")
    return '"' + "".join(_ESCAPES.get(c, c) for c in word) + '"'


@lru_cache(maxsize=1 << 16)
def from_term(term: str) -> str:
    if term.startswith('"'):
        return re.sub(r'\\[\\"n]', lambda m: _UNESCAPES[m.group()], term[1:-1])
    return term.replace("_", " ")


@lru_cache(maxsize=1 << 16)
def to_symbol(word: str) -> clingo.Symbol:
    """The clingo symbol of a word as `to_term` spells it: a constant, or else a string (for what
    goes into clingo as structures: a question's facts, rules, knowledge triples)."""
    term = to_term(word)
    return clingo.String(word) if term.startswith('"') else clingo.Function(term)


def literal_symbol(word: str, kind: Kind | None) -> clingo.Symbol:
    """The clingo symbol of a literal of `kind` as `to_literal` spells it: free text a string."""
    if kind is Kind.TEXT:
        _quoted(word)  # what clingo cannot read is an error here too
        return clingo.String(word)
    return to_symbol(word)


def relation_symbol(name: str) -> clingo.Symbol:
    """The clingo symbol of a knowledge relation's name (``used_for``) as programs spell it, the
    word ``used for``: the one spelling of knowledge facts, the theory's and the rules' alike."""
    return to_symbol(name.replace("_", " "))


#: Words clingo reads as keywords in term position.
_RESERVED = frozenset({"not"})

#: How each argument position (operands first) of an operation that takes free text spells
#: its word, as `to_literal` would for the position's kind: looked up per operation rather
#: than per word.  Every word of any other operation, or past the positions listed (an
#: argument too many), is `to_term`'s.
SPELLERS: dict[str, tuple[Speller, ...]] = {
    name: tuple([_quoted if signature.kind(position) is Kind.TEXT else to_term
                 for position in range(signature.arity)])
    for name, signature in SIGNATURES.items() if Kind.TEXT in signature.literals
}
