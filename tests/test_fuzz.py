"""Fuzzing parse and check: mutated real programs and random bytes raise only `QlangError`."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import qlang
from qlang.errors import QlangError
from qlang.syntax import SYNTAXES
from tests.conftest import all_questions

_REAL = [q["semanticStr"] for q in list(all_questions().values())[:300]]
_SEEDS = [qlang.convert(text, syntax) for text in _REAL[:100] for syntax in ("flat", "nested", "code")]
_SEEDS += _REAL[:100]
_ALPHABET = "()[],.:=->_ \n\"'%|?\\abcdez019"


def _survives(text: str, syntax: str | None) -> None:
    try:
        qlang.check(qlang.parse(text, syntax))
    except QlangError as exc:
        assert exc.diagnostics and exc.render()


@st.composite
def mutants(draw: st.DrawFn) -> str:
    """A real program with a few characters deleted, inserted, duplicated or swapped."""
    text = draw(st.sampled_from(_SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        match draw(st.sampled_from(["delete", "insert", "duplicate", "swap"])):
            case "delete":
                text = text[:i] + text[j:]
            case "insert":
                text = text[:i] + draw(st.text(_ALPHABET, max_size=4)) + text[i:]
            case "duplicate":
                text = text[:j] + text[i:j] + text[j:]
            case "swap":
                text = text[:i] + text[j:] + text[i:j]
    return text


@settings(max_examples=600, deadline=None)
@given(mutants(), st.sampled_from([None, *SYNTAXES]))
def test_mutated_real_programs_never_crash(text: str, syntax: str | None) -> None:
    _survives(text, syntax)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([None, *SYNTAXES]))
def test_random_bytes_never_crash(data: bytes, syntax: str | None) -> None:
    _survives(data.decode("utf-8", errors="replace"), syntax)


@settings(max_examples=200, deadline=None)
@given(st.text(_ALPHABET, max_size=120), st.sampled_from([None, *SYNTAXES]))
def test_random_token_soup_never_crashes(text: str, syntax: str | None) -> None:
    _survives(text, syntax)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "exist(" * 5000 + "scene()" + ")" * 5000
    _survives(deep, "nested")
    chain = " ".join(f"unique({i + 1}, {i})." for i in range(3000)) + " scene(0). end(3000)."
    _survives(chain, "flat")
    _survives("[" * 100_000, "gqa")
