"""Hostile knowledge indexes: a damaged, cut, crafted or lying SQLite file given as `--kb` is a
located error naming the file and how to build it again (exit 1), never an internal error.
Each runs in a process of its own under the memory ceiling (`conftest.qlangc_process`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from qlang.knowledge import sources
from qlang.knowledge.index import build
from qlang.knowledge.triples import Triple
from tests.conftest import qlangc_process, run, write

SCENE = str(Path(__file__).parents[1] / "examples" / "scene_2353884.json")
PROGRAM = "infer(select(scene(), man), person)"


def built(path: Path) -> Path:
    """An index of a few thousand edges (enough pages that garbage lands among the edges), with
    the edge the commands below walk: man is a person."""
    edges = [Triple(f"word{i}", "related_to", f"word{i + 1}", 0.5) for i in range(5000)]
    build([Triple("man", "is_a", "person"), *edges], path, {"source": "test"})
    return path


def garbage_at(fraction: float) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        content = bytearray(path.read_bytes())
        at = int(len(content) * fraction)
        content[at:at + 8192] = bytes(range(256)) * 32
        path.write_bytes(bytes(content[:len(content)]))
    return damage


def truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:len(path.read_bytes()) // 2])


def executed(*statements: str) -> Callable[[Path], None]:
    def craft(path: Path) -> None:
        with sqlite3.connect(path) as db:
            for statement in statements:
                db.execute(statement)
        db.close()
    return craft


def weighing(weight: str) -> Callable[[Path], None]:
    """The edge man -is_a-> person given another weight (in a table that lets it hold anything)."""
    return executed("ALTER TABLE edges RENAME TO old",
                    "CREATE TABLE edges (head, relation, tail, weight, PRIMARY KEY (head, relation, tail))",
                    "INSERT INTO edges SELECT * FROM old", "DROP TABLE old",
                    f"UPDATE edges SET weight = {weight} WHERE head = 'man'")


DAMAGE = {
    "garbage at 30%": garbage_at(0.3),
    "garbage at 60%": garbage_at(0.6),
    "truncated": truncated,
    "no edges table": executed("DROP TABLE edges"),
    "edges of other columns": executed("DROP TABLE edges", "CREATE TABLE edges (a, b)"),
    "no meta table": executed("DROP TABLE meta"),
    "relations a list": executed("UPDATE meta SET value = '[1, 2]' WHERE key = 'relations'"),
    "relations not json": executed("UPDATE meta SET value = '{' WHERE key = 'relations'"),
    "relations an unknown one": executed("""UPDATE meta SET value = '{"x": 1}' WHERE key = 'relations'"""),
    "words not a count": executed("UPDATE meta SET value = '²' WHERE key = 'words'"),
    "words huge": executed(f"UPDATE meta SET value = '{'9' * 5000}' WHERE key = 'words'"),
    "another version": executed("UPDATE meta SET value = '99' WHERE key = 'version'"),
    "weight 0": weighing("0"),
    "weight NULL": weighing("NULL"),
    "weight inf": weighing("9e999"),
    "weight text": weighing("'heavy'"),
    "weight 1e300": weighing("1e300"),
    "weight negative": weighing("-0.5"),
    "relation unknown": executed("UPDATE edges SET relation = 'x' WHERE head = 'man'"),
    "tail a number": executed("ALTER TABLE edges RENAME TO old",
                              "CREATE TABLE edges (head, relation, tail, weight)",
                              "INSERT INTO edges SELECT * FROM old", "DROP TABLE old",
                              "INSERT INTO edges VALUES ('man', 'is_a', 7, 1.0)"),
}

COMMANDS = {
    "kb paths": ("kb", "paths", "man", "person"),
    "solve": ("solve", "--program", PROGRAM, "--scene", SCENE),
}


@pytest.mark.parametrize("damage", DAMAGE.values(), ids=DAMAGE.keys())
@pytest.mark.parametrize("command", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_damaged_or_crafted_index_is_a_located_error(tmp_path: Path, damage: Callable[[Path], None],
                                                       command: tuple[str, ...]) -> None:
    index = built(tmp_path / "kb.sqlite")
    damage(index)
    args = [arg if arg != PROGRAM else write(tmp_path / "q.qn", PROGRAM) for arg in command]
    code, output = qlangc_process(*args, "--kb", str(index))
    assert code == 1, output
    assert "Traceback" not in output and "internal error" not in output, output
    assert output.startswith(f"{index}: error: "), output
    assert "qlangc kb build" in output, output


def test_a_sound_index_still_answers(tmp_path: Path) -> None:
    index = built(tmp_path / "kb.sqlite")
    code, output = qlangc_process("kb", "paths", "man", "person", "--kb", str(index))
    assert (code, output) == (0, "1.000  man -is_a-> person\n")


def test_a_damaged_cached_index_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index qlang keeps of a file of triples is a cache: damaged, it is made again."""
    monkeypatch.setattr(sources, "CACHE", tmp_path / "cache")
    kb = write(tmp_path / "mine.tsv", "man\tis_a\tperson\n")
    assert run("kb", "paths", "man", "person", "--kb", kb)[:2] == (0, "1.000  man -is_a-> person\n")
    (cached,) = sources.CACHE.glob("mine.tsv-*.sqlite")
    cached.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 16)
    assert run("kb", "paths", "man", "person", "--kb", kb)[:2] == (0, "1.000  man -is_a-> person\n")


def test_meta_counts_are_read_as_built(tmp_path: Path) -> None:
    index = built(tmp_path / "kb.sqlite")
    with sqlite3.connect(index) as db:
        relations = json.loads(db.execute("SELECT value FROM meta WHERE key = 'relations'").fetchone()[0])
    db.close()
    assert relations == {"is_a": 1, "related_to": 5000}
