"""Hostile knowledge at scale: a search over a dense or star-shaped index, a gzip bomb and a
build stopped by a signal each end with a bounded answer or a clear message naming the option or
limit that raises it, within the memory ceiling, and leave no half-written index.  The graphs
are small, the bounds set small to match, so that each test takes seconds."""

from __future__ import annotations

import gzip
import signal
import subprocess
import time
from pathlib import Path

import pytest

from qlang.knowledge.index import build
from qlang.knowledge.triples import Triple
from tests.conftest import QLANGC, memory_ceiling, qlangc_process


def complete(path: Path, nodes: int) -> Path:
    """An index of the complete graph on `nodes` words, every edge weighing alike."""
    build((Triple(f"w{a}", "related_to", f"w{b}", 0.5) for a in range(nodes) for b in range(nodes) if a != b),
          path, {"source": "test"})
    return path


def star(path: Path, leaves: int) -> Path:
    """An index of one hub with an edge to and from each of `leaves` words."""
    pairs = ((end, f"w{i}")[::way] for i in range(leaves) for end, way in (("hub", 1), ("hub", -1)))
    build((Triple(head, "related_to", tail, 0.5) for head, tail in pairs), path, {"source": "test"})
    return path


def clean(output: str) -> bool:
    return "Traceback" not in output and "internal error" not in output


def test_a_complete_graph_searched_six_hops_deep_ends_with_a_bound(tmp_path: Path) -> None:
    """300 words, each linked to every other (89,700 edges): every walk of six hops is a simple
    path, 10^14 of them.  Before the bounds, `--limit 1000` ended in MemoryError (exit 3)."""
    index = complete(tmp_path / "kb.sqlite", 300)
    code, output = qlangc_process("kb", "paths", "w1", "w2", "--max-hops", "6", "--limit", "1000",
                                  "--kb", str(index))
    assert code in (0, 1) and clean(output), output
    assert "the search stopped early" in output or "no path" in output, output
    assert any(option in output for option in ("--max-edges", "--max-visits", "--timeout")), output


def test_the_partial_paths_weighed_are_bounded_and_named(tmp_path: Path) -> None:
    index = complete(tmp_path / "kb.sqlite", 40)
    code, output = qlangc_process("kb", "paths", "w1", "w2", "--max-hops", "6", "--limit", "1000",
                                  "--max-visits", "5000", "--timeout", "600", "--kb", str(index))
    assert code == 0 and clean(output), output
    assert output.endswith("note: the search stopped early: it weighed --max-visits partial paths "
                           "(raise it to weigh more)\n"), output
    assert output.startswith("0.500  w1 -related_to-> w2\n"), output


def test_a_hub_is_read_up_to_the_edges_bound(tmp_path: Path) -> None:
    """A hub of 50,000 edges each way: the walks read the strongest up to --max-edges, and the
    path through the hub is still found."""
    index = star(tmp_path / "kb.sqlite", 50_000)
    code, output = qlangc_process("kb", "paths", "w1", "w2", "--max-hops", "6", "--max-edges", "1000",
                                  "--timeout", "600", "--kb", str(index))
    assert code == 0 and clean(output), output
    assert output.startswith("0.250  w1 -related_to-> hub -related_to-> w2\n"), output
    assert "up to --max-edges (raise it to read more)" in output, output


def test_a_search_out_of_time_says_so(tmp_path: Path) -> None:
    """A deadline no machine meets (a microsecond) stops SQLite's queries and the search."""
    index = complete(tmp_path / "kb.sqlite", 300)
    code, output = qlangc_process("kb", "paths", "w1", "w2", "--max-hops", "6", "--timeout", "0.000001",
                                  "--kb", str(index))
    assert (code, output) == (1, "no path of at most 6 edges from 'w1' to 'w2'; it ran out of time "
                                 "(raise --timeout to give it more)\n")


@pytest.mark.parametrize("option", ["--max-edges=1", "--max-visits=0", "--timeout=0", "--timeout=nan",
                                    "--max-edges=99999999999"])
def test_bounds_out_of_range_are_usage_errors(option: str) -> None:
    code, output = qlangc_process("kb", "paths", "w1", "w2", option, "--kb", "none")
    assert code == 2 and clean(output), output


def test_a_gzip_bomb_is_refused_by_its_expansion(tmp_path: Path) -> None:
    """About 1 GB of valid lines in 2 MB: refused within seconds, long before the 20 GB limit."""
    bomb = tmp_path / "bomb.tsv.gz"
    block = gzip.compress(b"cup\tis_a\tcontainer\n" * 5_000_000, compresslevel=9)
    bomb.write_bytes(block * 10)
    start = time.monotonic()
    code, output = qlangc_process("kb", "build", str(bomb), "--out", str(tmp_path / "kb.sqlite"), timeout=120)
    assert code == 1 and clean(output), output
    assert output.startswith(f"{bomb}: error: expands more than 200 times, as a gzip bomb does"), output
    assert "QLANG_MAX_KNOWLEDGE_MB" in output
    assert time.monotonic() - start < 60  # a hang guard: it is refused after reading about 2 MB
    assert list(tmp_path.iterdir()) == [bomb]


def test_a_small_file_may_expand_any_amount(tmp_path: Path) -> None:
    """Only what expands past the first megabyte is judged: a small repetitive file is read."""
    kb = tmp_path / "kb.tsv.gz"
    kb.write_bytes(gzip.compress(b"cup\tis_a\tcontainer\n" * 10_000))
    code, output = qlangc_process("kb", "build", str(kb), "--out", str(tmp_path / "kb.sqlite"))
    assert code == 0 and "1 edges" in output, output


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_a_build_cleanly(tmp_path: Path, number: signal.Signals) -> None:
    """`kb build -` reading a pipe that stays open, signalled: a message, exit 1, and the index
    that was there before is as it was, with no partial file beside it."""
    out = tmp_path / "kb.sqlite"
    build([Triple("cup", "is_a", "container")], out, {"source": "before"})
    before = out.read_bytes()
    process = subprocess.Popen([*QLANGC, "kb", "build", "-", "--out", str(out)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=memory_ceiling)
    assert process.stdin is not None
    process.stdin.write(b"cup\tused_for\tdrinking\n" * 1000)
    process.stdin.flush()
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".kb.sqlite.*.partial")):  # the build has started
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    process.send_signal(number)
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 1, errors
    assert errors.decode() == (f"{out}: error: stopped by {number.name} before the index was complete; "
                               "nothing was written\n")
    assert list(tmp_path.iterdir()) == [out] and out.read_bytes() == before


def test_a_build_stopped_inside_sqlite_leaves_nothing(tmp_path: Path) -> None:
    """A signal that arrives while SQLite works (a long statement) stops the statement: the
    build looks at `stopped` and raises KeyboardInterrupt, leaving no file."""
    with pytest.raises(KeyboardInterrupt):
        build((Triple(f"w{i}", "is_a", "container") for i in range(20_000)), tmp_path / "kb.sqlite", {},
              stopped=lambda: True)
    assert list(tmp_path.iterdir()) == []


def test_a_file_of_endless_blank_lines_is_bounded_by_its_lines(tmp_path: Path) -> None:
    """Blank lines say nothing and cost little each, but a stream of them would be read for
    hours within the bytes' bound: the lines are counted too (a small bound set here)."""
    blank = tmp_path / "blank.tsv"
    blank.write_text("\n" * 1000 + "cup\tis_a\tcontainer\n")
    code, output = qlangc_process("kb", "build", str(blank), "--out", str(tmp_path / "kb.sqlite"),
                                  env={"QLANG_MAX_KNOWLEDGE_LINES": "1000"})
    assert (code, output) == (1, f"{blank}: error: too many lines: at most 1,000 lines in a knowledge file "
                                 "(set QLANG_MAX_KNOWLEDGE_LINES to raise it)\n")
    assert qlangc_process("kb", "build", str(blank), "--out", str(tmp_path / "kb.sqlite"),
                          env={"QLANG_MAX_KNOWLEDGE_LINES": "1001"})[0] == 0
