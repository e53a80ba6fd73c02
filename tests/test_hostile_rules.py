"""Hostile rules files: a body of thousands of conditions, thousands of small rules, a file of
megabytes.  clingo's grounding cannot be interrupted, so what would ground for minutes (or run
out of memory) is refused before grounding, naming the setting that raises the bound, and what
is let through grounds within the time a question has."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import qlangc_process, write

SCENE = str(Path(__file__).parents[1] / "examples" / "scene_2353884.json")
PROGRAM = "query(unique(select(scene(), man)), name)"
_VALUES = ("color, red", "color, white", "material, wood", "size, small", "shape, round")


def body(conditions: int, shift: int = 0) -> str:
    """A body of `conditions` conditions on one object (a man of five attributes, repeated)."""
    return ", ".join(f"attr(X, {_VALUES[(i + shift) % 5]})" if i % 2 else "class(X, man)"
                     for i in range(conditions))


def rules(tmp_path: Path, *bodies: str) -> str:
    return write(tmp_path / "r.rules", "class lb.\n" + "".join(f"class(X, lb) :- {b}.\n" for b in bodies))


def solve(tmp_path: Path, rules_file: str, *more: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    program = write(tmp_path / "q.qn", PROGRAM)
    return qlangc_process("solve", "--program", program, "--scene", SCENE, "--rules", rules_file,
                          "--timeout", "5", *more, env=env)


def test_a_body_of_two_thousand_conditions_is_refused_before_grounding(tmp_path: Path) -> None:
    """Before, `solve --timeout 5` was still grounding it at 120 s."""
    file = rules(tmp_path, body(2000))
    start = time.monotonic()
    code, output = solve(tmp_path, file)
    assert code == 1, output
    assert output.startswith(f"{file}:2:1: error: a body of 2,000 conditions: at most 32 conditions in a "
                             "rule's body (set QLANG_MAX_RULE_BODY to raise it)\n"), output
    assert time.monotonic() - start < 60  # a hang guard: it is refused as it is read


def test_a_body_within_a_raised_bound_is_read(tmp_path: Path) -> None:
    code, output = solve(tmp_path, rules(tmp_path, body(40)), env={"QLANG_MAX_RULE_BODY": "40"})
    assert (code, output) == (0, "man\n")


def test_thousands_of_conditions_in_small_rules_are_refused(tmp_path: Path) -> None:
    file = rules(tmp_path, *(body(10, k) for k in range(201)))
    code, output = solve(tmp_path, file)
    assert (code, output) == (1, f"{file}: error: 2,010 conditions in all: at most 2,000 conditions in a "
                                 "rules file (set QLANG_MAX_RULE_CONDITIONS to raise it)\n")


def test_a_rule_of_three_hundred_thousand_conditions_is_refused_by_size(tmp_path: Path) -> None:
    """4.5 MB of one rule: before, solve ran past 300 s (the file's 16 MB limit let it
    through, and parsed, rules take about 300 times their size)."""
    file = rules(tmp_path, body(300_000))
    code, output = solve(tmp_path, file)
    assert code == 1 and "exceeds 1 MB, the limit for a rules file (set QLANG_MAX_RULES_MB" in output, output


def test_the_largest_rules_let_through_keep_the_timeout(tmp_path: Path) -> None:
    """62 rules of 32 conditions, each (1,984): grounded and solved within the timeout, or
    stopped by it, in seconds."""
    file = rules(tmp_path, *(body(32, k) for k in range(62)))
    start = time.monotonic()
    code, output = solve(tmp_path, file, "--timeout", "2")
    assert code in (0, 1) and "Traceback" not in output and "internal error" not in output, output
    assert time.monotonic() - start < 60  # a hang guard: about 2 s on an idle machine


@pytest.mark.parametrize("setting", ["0", "abc", "²", "-5", "9" * 30])
def test_a_bound_that_is_no_count_stops_the_command(tmp_path: Path, setting: str) -> None:
    code, output = solve(tmp_path, rules(tmp_path, body(2)), env={"QLANG_MAX_RULE_BODY": setting})
    assert code == 1 and "QLANG_MAX_RULE_BODY=" in output and "is not a whole number" in output, output
