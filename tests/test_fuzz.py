"""Fuzzing: mutated real programs and random bytes raise only `QlangError`; random bytes and JSON
never make a command exit 3 or print a traceback."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import qlang
from qlang.commands.main import cli
from qlang.errors import QlangError
from qlang.syntax import SYNTAXES
from tests.conftest import DATA, all_questions
from tests.strategies import MUTATION_ALPHABET, mutated

_REAL = [q["semanticStr"] for q in list(all_questions().values())[:300]]
_SEEDS = [qlang.convert(text, syntax) for text in _REAL[:100] for syntax in ("flat", "nested", "code")]
_SEEDS += _REAL[:100]


def _survives(text: str, syntax: str | None) -> None:
    try:
        qlang.check(qlang.parse(text, syntax))
    except QlangError as exc:
        assert exc.diagnostics and exc.render()


@st.composite
def mutants(draw: st.DrawFn) -> str:
    """A real program with a few characters deleted, inserted, duplicated or swapped."""
    return draw(mutated(draw(st.sampled_from(_SEEDS))))


@settings(max_examples=600, deadline=None)
@given(mutants(), st.sampled_from([None, *SYNTAXES]))
def test_mutated_real_programs_never_crash(text: str, syntax: str | None) -> None:
    _survives(text, syntax)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([None, *SYNTAXES]))
def test_random_bytes_never_crash(data: bytes, syntax: str | None) -> None:
    _survives(data.decode("utf-8", errors="replace"), syntax)


@settings(max_examples=200, deadline=None)
@given(st.text(MUTATION_ALPHABET, max_size=120), st.sampled_from([None, *SYNTAXES]))
def test_random_token_soup_never_crashes(text: str, syntax: str | None) -> None:
    _survives(text, syntax)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "exist(" * 5000 + "scene()" + ")" * 5000
    _survives(deep, "nested")
    chain = " ".join(f"unique({i + 1}, {i})." for i in range(3000)) + " scene(0). end(3000)."
    _survives(chain, "flat")
    _survives("[" * 100_000, "gqa")


# ----- the command line: random bytes and random JSON never give exit 3 or a traceback -----------

def _no_crash(*args: str, input: bytes = b"") -> str:
    result = CliRunner().invoke(cli, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2) and "Traceback" not in result.stdout + result.stderr
    return result.stdout


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.sampled_from(["id", "program", "semantic", "operation",
                                                        "argument", "dependencies", "question",
                                                        "objects", "name", "x", "attributes"]),
                                       inner, max_size=4),
                     max_leaves=12)
_LINES = st.lists(st.binary(max_size=60) | _JSON.map(lambda v: json.dumps(v).encode()), max_size=4)
_EMMA = str(DATA / "gqa" / "scenes" / "emma_sceneGraphs.json")


@settings(max_examples=60, deadline=None)
@given(_LINES, st.sampled_from([["check"], ["compile", "--to", "code"], ["compile", "--to", "nested"]]))
def test_check_and_compile_survive_random_input(lines: list[bytes], command: list[str]) -> None:
    _no_crash(*command, "-", input=b"\n".join(lines))
    _no_crash(*command, "--jsonl", "-", input=b"\n".join(lines))


@settings(max_examples=30, deadline=None)
@given(_LINES, _JSON)
def test_solve_survives_random_programs_and_scenes(lines: list[bytes], scene: object) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scene.json"
        path.write_text(json.dumps(scene))
        _no_crash("solve", "--scene", str(path), "--timeout", "2", "-", input=b"\n".join(lines))
        _no_crash("solve", "--jsonl", "--scene", _EMMA, "--timeout", "2", "--program", "-",
                  input=b"\n".join(lines))


@settings(max_examples=30, deadline=None)
@given(_LINES, _LINES)
def test_eval_survives_random_translations_and_question_files(translations: list[bytes],
                                                                questions: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = Path(folder) / "t.jsonl", Path(folder) / "q.json"
        paths[0].write_bytes(b"\n".join(translations))
        paths[1].write_bytes(b"\n".join(questions))
        _no_crash("eval", str(paths[0]), "--questions", str(paths[1]))
        _no_crash("eval", str(paths[0]), "--questions", str(DATA / "gqa" / "questions" /
                                                           "testdev_ood_head.json"))


def test_translate_batch_survives_hostile_lines_with_the_bundled_model(tmp_path: Path) -> None:
    """A handful only: the model is slow."""
    questions = tmp_path / "q.jsonl"
    questions.write_bytes(b"\n".join([b'{"id": 1, "question": "Is the cat red?"}', b"\xff\xfe",
                                      b'{"id": 2, "question": "\xe2\x80\xa8"}', b"[]",
                                      b'{"question": 5}']))
    out = _no_crash("translate", "--jsonl", str(questions), "--examples", "1", "--max-tokens", "16")
    assert len(out.splitlines()) == 5  # one result per line, the bad ones included
