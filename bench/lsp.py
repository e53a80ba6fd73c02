"""Change-to-diagnostics time of `qlangc lsp` on a 200-step program, over stdio, per syntax.

    .venv/bin/python bench/lsp.py [--changes N] [--steps N]

The program joins real GQA programs that answer yes/no with `and` until it has `--steps`
distinct steps.  A real client (pygls's) opens it in each call-shaped syntax, then sends
`--changes` edits, each replacing one class word with a misspelling or back (so every change
makes or clears a diagnostic), and times each from sending the change to receiving its
diagnostics; then completion and hover requests at that word.  "in process" is the server's
own share: the document read, parsed and checked, its diagnostics made, without the protocol.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import statistics
import sys
import time
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.workspace.position_codec import PositionCodec

from qlang.ir import Node, op, postorder
from qlang.lsp.diagnostics import diagnostics
from qlang.lsp.documents import Document
from qlang.paths import GQA_QUESTIONS
from qlang.signatures import Type
from qlang.syntax import SYNTAXES, gqa

SERVER = [sys.executable, "-c", "from qlang.commands.main import main; main()", "lsp"]
EXTENSIONS = {"nested": ".qn", "code": ".qc", "flat": ".qf"}


def program(steps: int) -> Node:
    """Real yes/no programs joined by `and` until the DAG has `steps` distinct steps."""
    roots: list[Node] = []
    questions: list[dict[str, Any]] = []
    for name in ("testdev_ood_head.json", "val_balanced_tail.json"):
        questions.extend(json.loads((GQA_QUESTIONS / name).read_text()).values())
    for question in questions:
        root = gqa.to_ir(gqa.steps_from_json(question["semantic"]))
        if root.signature is not None and root.signature.result is Type.BOOL:
            roots.append(root)
            joined = roots[0]
            for other in roots[1:]:
                joined = op("and", joined, other)
            if len(postorder(joined)) >= steps:
                return joined
    raise SystemExit("not enough real yes/no programs")


def milliseconds(times: list[float]) -> str:
    ordered = sorted(times)
    median, p90 = statistics.median(ordered), ordered[int(len(ordered) * 0.9)]
    return f"median {median * 1e3:5.1f}  p90 {p90 * 1e3:5.1f}  max {ordered[-1] * 1e3:5.1f} ms"


async def over_stdio(text: str, syntax: str, word: str,
                     changes: int) -> tuple[list[float], list[float], list[float]]:
    """Times of each change (to its diagnostics), completion and hover, over stdio."""
    client = LanguageClient("bench", "1")
    arrived: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: types.PublishDiagnosticsParams) -> None:
        arrived.put_nowait(params)

    await client.start_io(*SERVER)
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    uri = f"file:///tmp/bench{EXTENSIONS[syntax]}"
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="qlang", version=1, text=text)))
    await arrived.get()
    written = re.compile(rf"(?<=, ){re.escape(word)}(?=\))")  # select's class: ", word)"
    line, found = next((n, m) for n, line in enumerate(text.split("\n")) if (m := written.search(line)))
    column = found.start()
    where = types.Range(types.Position(line, column), types.Position(line, column + len(word)))
    change_times = []
    for version in range(2, changes + 2):
        spelled = word if version % 2 else word[::-1]
        start = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=where, text=spelled)]))
        params = await arrived.get()
        change_times.append(time.perf_counter() - start)
        assert bool(params.diagnostics) == (spelled != word), params.diagnostics
    document = types.TextDocumentIdentifier(uri)
    completion_times, hover_times = [], []
    for _ in range(changes):
        start = time.perf_counter()
        await client.text_document_completion_async(types.CompletionParams(document, where.end))
        completion_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(document, where.start))
        hover_times.append(time.perf_counter() - start)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return change_times, completion_times, hover_times


def in_process(text: str, syntax: str, changes: int) -> list[float]:
    times = []
    for _ in range(changes):
        start = time.perf_counter()
        document = Document(f"file:///tmp/bench{EXTENSIONS[syntax]}", text, 1, PositionCodec())
        diagnostics(document, open_vocabulary=False, related=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changes", type=int, default=100, help="edits timed per syntax")
    parser.add_argument("--steps", type=int, default=200, help="distinct steps of the program")
    args = parser.parse_args()
    root = program(args.steps)
    word = next(n.literals[0] for n in postorder(root) if n.op == "select" and n.literals[0].isalpha())
    print(f"a program of {len(postorder(root))} steps, {args.changes} changes, "
          f"Python {platform.python_version()}")
    for syntax in EXTENSIONS:
        text = SYNTAXES[syntax].print(root)
        changes, completions, hovers = asyncio.run(over_stdio(text, syntax, word, args.changes))
        print(f"{syntax:6} {len(text):6,} chars  change->diagnostics {milliseconds(changes)}")
        print(f"{'':21} in process         {milliseconds(in_process(text, syntax, args.changes))}")
        print(f"{'':21} completion         {milliseconds(completions)}")
        print(f"{'':21} hover              {milliseconds(hovers)}")


if __name__ == "__main__":
    main()
