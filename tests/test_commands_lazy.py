"""The command line starts at once: a command's module is imported only when it runs, so
`compile` and `check` load none of the language server, translators, vision, web or seeking
(nor the heavy packages under them); `--help` lists every command from the table alone; and a
command whose extra is missing names the `pip install` that brings it."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest

import qlang
from qlang.commands import lazy
from qlang.commands.main import COMMANDS, cli, main
from qlang.paths import PACKAGE
from qlang.syntax import nested, parsing
from tests.conftest import FORMS

#: What compiling or checking a program must not import.
HEAVY = ("qlang.lsp", "qlang.web", "qlang.vision", "qlang.translate", "qlang.seek", "qlang.small",
         "lsprotocol", "pygls", "torch", "numpy", "fastapi", "transformers", "llama_cpp", "matplotlib")
#: `qlangc ARGS`, then the names of the modules the process imported, written to a file.
_LOADED = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
from qlang.commands.main import main
main()
"""


def _loaded(tmp_path: Path, *args: str, input: str = "") -> list[str]:
    out = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", _LOADED, str(out), *args], input=input.encode(),
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return list(json.loads(out.read_text()))


@pytest.mark.parametrize("args", [["compile", "--to", "code", "-"], ["check", "-"], ["--help"]],
                         ids=" ".join)
def test_compile_and_check_import_nothing_heavy(tmp_path: Path, args: list[str]) -> None:
    modules = _loaded(tmp_path, *args, input=FORMS["nested"])
    heavy = [m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY)]
    assert heavy == []
    if args == ["--help"]:  # the table answers: no command's module is imported
        assert not [m for m in modules if m.startswith("qlang.commands.") and
                    m not in ("qlang.commands.main", "qlang.commands.lazy", "qlang.commands.console")]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_table_s_short_help_is_the_command_s(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    assert COMMANDS[name].help == command.get_short_help_str(limit=1 << 30)


@click.command()
def _needs_llama() -> None:
    raise ModuleNotFoundError("No module named 'llama_cpp'", name="llama_cpp")


def _main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "argv", ["qlangc", *args])
    with pytest.raises(SystemExit) as exited:
        main()
    return int(exited.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize("target", ["not_installed_anywhere:command", f"{__name__}:_needs_llama"],
                         ids=["importing", "running"])
def test_a_missing_extra_names_its_pip_install(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str], target: str) -> None:
    """A command of an extra whose module, or whose run, meets a missing package says which
    extra brings it (exit 1); a command of the core that does is a bug (exit 3)."""
    monkeypatch.setitem(cli.lazy, "translate", lazy.Lazy(target, "Translate.", "translate"))
    module = target.partition(":")[0] if target.startswith("not_") else "llama_cpp"
    assert _main(monkeypatch, capsys, "translate") == (
        1, f"error: qlangc translate needs {module!r}, which is not installed "
           "(pip install 'qlang[translate]')\n")
    monkeypatch.setitem(cli.lazy, "translate", lazy.Lazy(target, "Translate."))
    code, err = _main(monkeypatch, capsys, "translate")
    assert code == 3 and "internal error: ModuleNotFoundError" in err and "Traceback" not in err


def test_every_command_s_extra_is_one_of_pyproject_s() -> None:
    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    named = {e for entry in COMMANDS.values() if entry.extra for e in entry.extra.split(",")}
    assert named and named <= set(extras)


def test_a_damaged_parser_cache_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`compile` loads the grammar's tables from the cache; a file there that is not what Lark
    wrote is ignored and written again."""
    damaged = tmp_path / "nested-fast.pickle"
    damaged.write_bytes(b"not a parser\n")
    monkeypatch.setattr(parsing, "cache_dir", lambda name: tmp_path)  # a name it imports: compiled too
    built = parsing.parser.__wrapped__(nested.GRAMMAR, True)
    assert built.parse(FORMS["nested"]) == qlang.parse(FORMS["nested"])
    assert damaged.read_bytes() != b"not a parser\n"
    loaded = parsing.parser.__wrapped__(nested.GRAMMAR, True)
    assert loaded.parse(FORMS["nested"]) == qlang.parse(FORMS["nested"])
