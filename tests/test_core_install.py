"""The core installs alone: a fresh virtual environment with `pip install` of this checkout, no
extra, holds none of the translators', vision's, the web page's or training's packages, and its
`qlangc` compiles, checks, lowers, solves and explains the README's examples exactly as the
full install does, and its language server starts.

The install reaches the package index (pip's cache serves what it holds); where pip cannot
reach one, the test is skipped and says so.  It takes about a minute and a half: the venv, the
install (bench/README.md has its time), and the bundled knowledge base built once in the venv
from this install's WordNet (`QLANG_NLTK_DATA`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from qlang import wordnet
from qlang.paths import PACKAGE
from tests.conftest import QLANGC

ROOT = PACKAGE.parent
EXAMPLES = ROOT / "examples"
SCENE = str(EXAMPLES / "scene_2353884.json")
#: What the core must not bring (import names): the extras' packages.
EXTRAS_ONLY = ("numpy", "torch", "transformers", "llama_cpp", "safetensors", "cv2", "PIL", "fastapi",
               "uvicorn", "matplotlib", "peft", "ray")
#: The README's examples: arguments and standard input.
README_EXAMPLES = [
    *[pytest.param(["compile", "--to", to, str(EXAMPLES / "truck_tire.json")], "", id=f"compile-{to}")
      for to in ("code", "flat", "nested")],
    pytest.param(["check", str(EXAMPLES / "truck_tire.json")], "", id="check"),
    pytest.param(["lower", str(EXAMPLES / "truck_tire.json")], "", id="lower"),
    pytest.param(["check", "-"], "verify_know(unique(select(scene(), frisbee)), usedfor, toy)\n",
                 id="check-error"),
    pytest.param(["solve", "--scene", SCENE],
                 "query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)\n",
                 id="solve"),
    pytest.param(["solve", "--scene", SCENE, "--top-k", "2", "--distinct"],
                 "know(unique(select(scene(), man)), has_property)\n", id="solve-know"),
    pytest.param(["explain", "--scene", SCENE], "infer(select(scene(), frisbee), animal)\n",
                 id="explain-infer"),
    pytest.param(["solve", "--scene", SCENE, "--rules", str(EXAMPLES / "athlete.rules"), "--bindings"],
                 "query(unique(select(scene(), athlete)), name)\n", id="solve-rules"),
]


def _environment(*, alone: bool) -> dict[str, str]:
    """This process's environment with WordNet where this install has it; for the venv (`alone`),
    less what would make it import this checkout instead of what it installed."""
    env = os.environ | {wordnet.ENV_VAR: str(wordnet.data_dir())}
    return {k: v for k, v in env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")} if alone else env


def _index_unreachable(env: dict[str, str], where: Path) -> bool:
    probe = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--dest", str(where),
                            "lark"], capture_output=True, env=env, timeout=300)
    return probe.returncode != 0


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the core installed from this checkout: its `bin` folder."""
    folder = tmp_path_factory.mktemp("core")
    env = _environment(alone=True)
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, env=env,
                   timeout=300)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                           "--quiet", str(ROOT)], capture_output=True, env=env, timeout=900)
    seconds = time.perf_counter() - started
    if done.returncode != 0 and _index_unreachable(env, folder / "probe"):
        pytest.skip("pip cannot reach a package index: the core's install is not tested")
    assert done.returncode == 0, done.stderr.decode()
    print(f"the core installed in {seconds:.1f} s")
    return venv / "bin"


def _run(command: Sequence[str], args: list[str], stdin: str, cwd: Path, *, alone: bool
         ) -> tuple[int, str, str]:
    done = subprocess.run([*command, *args], input=stdin.encode(), capture_output=True, cwd=cwd,
                          env=_environment(alone=alone), timeout=600)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_the_core_brings_no_extra_s_package(core: Path) -> None:
    found = subprocess.run([str(core / "python"), "-c", "import importlib.util as u, sys; "
                            "print(*[m for m in sys.argv[1:] if u.find_spec(m)])", *EXTRAS_ONLY],
                           capture_output=True, text=True, env=_environment(alone=True), check=True)
    assert found.stdout.split() == []


def test_the_core_s_language_server_starts(core: Path) -> None:
    """`qlangc lsp` answers `initialize` and exits on `exit` (pygls over stdio)."""
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                          "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    exit_message = json.dumps({"jsonrpc": "2.0", "method": "exit"})
    framed = "".join(f"Content-Length: {len(m)}\r\n\r\n{m}" for m in (message, exit_message))
    done = subprocess.run([str(core / "qlangc"), "lsp"], input=framed.encode(), capture_output=True,
                          env=_environment(alone=True), timeout=120)
    assert b'"capabilities"' in done.stdout, done.stderr.decode()


@pytest.mark.parametrize(("args", "stdin"), README_EXAMPLES)
def test_the_core_answers_the_readme_s_examples_as_the_full_install(core: Path, tmp_path: Path,
                                                                   args: list[str], stdin: str) -> None:
    alone = _run([str(core / "qlangc")], args, stdin, tmp_path, alone=True)
    assert alone == _run(QLANGC, args, stdin, tmp_path, alone=False)
    assert alone[0] == (1 if "usedfor" in stdin else 0), alone[2]


def test_a_command_of_an_extra_names_its_pip_install(core: Path, tmp_path: Path) -> None:
    code, out, err = _run([str(core / "qlangc")], ["translate", "Is the cup red?"], "", tmp_path, alone=True)
    assert (code, out) == (1, "")
    assert re.fullmatch(r"error: qlangc translate needs '\w+', which is not installed "
                        r"\(pip install 'qlang\[translate\]'\)\n", err), err


@pytest.mark.parametrize("extractor", ["constrained", "lexical"])
def test_a_text_operation_names_the_extra_it_needs(core: Path, tmp_path: Path, extractor: str) -> None:
    """The text operations are in the core's language; searching documents is the extra's."""
    program = 'extract(select(scene(), frisbee), "What is it used for?")\n'
    code, out, err = _run([str(core / "qlangc")], ["solve", "--scene", SCENE, "--extractor", extractor],
                          program, tmp_path, alone=True)
    assert (code, out) == (1, "")
    assert re.fullmatch(r"<stdin>: error: .* needs the package \w+ \(pip install 'qlang\[translate\]'.*\)\n",
                        err), err
