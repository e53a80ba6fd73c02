"""`qlang.paths.replacing`: the one way the library puts a file in its place whole (configs,
checkpoints, knowledge indexes and the caches)."""

from __future__ import annotations

import pytest

from qlang.paths import replacing


def test_the_new_file_replaces_the_old_when_the_block_ends(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text("old")
    with replacing(path) as partial:
        partial.write_text("new")
        assert path.read_text() == "old"  # a reader sees the old file until the end
    assert path.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


@pytest.mark.parametrize("stop", [OSError("disk full"), KeyboardInterrupt()])
def test_a_block_that_raises_leaves_the_old_file_and_nothing_beside_it(tmp_path, stop) -> None:
    path = tmp_path / "config.json"
    path.write_text("old")
    with pytest.raises(type(stop)), replacing(path) as partial:
        partial.write_text("half")
        raise stop
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_a_block_that_writes_nothing_leaves_the_file_as_it_was(tmp_path) -> None:
    """(A writer that raised before creating the partial file: nothing to move or remove.)"""
    path = tmp_path / "config.json"
    path.write_text("old")
    with pytest.raises(FileNotFoundError), replacing(path):
        pass
    assert path.read_text() == "old"
