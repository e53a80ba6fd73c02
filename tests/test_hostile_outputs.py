"""Outputs that never replace what they must not: `kb build --out` refuses a device, a FIFO, a
folder that does not exist and an existing file that is no index of qlang's (unless --force);
two outputs of one command never name one file.  Each command runs in a process of its own
under the memory ceiling (`conftest.qlangc_process`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from qlang.knowledge.index import check_target
from qlang.knowledge.triples import KnowledgeError
from tests.conftest import qlangc_process, write

TRIPLES = "cup\tused_for\tdrinking\n"


def refused(code: int, output: str, *said: str) -> None:
    assert code == 1, output
    assert "Traceback" not in output and "internal error" not in output, output
    assert all(part in output for part in said), output


def test_a_fifo_as_out_is_refused_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, output = qlangc_process("kb", "build", write(tmp_path / "k.tsv", TRIPLES), "--out", str(fifo))
    refused(code, output, f"{fifo}: error: not a regular file")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_device_as_out_is_refused_and_stays_a_device(tmp_path: Path) -> None:
    """Through a link in the test's folder, so that a regression replaces the link, never the
    device; and the device itself, checked alone (nothing is written)."""
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    code, output = qlangc_process("kb", "build", write(tmp_path / "k.tsv", TRIPLES), "--out", str(link))
    refused(code, output, "not a regular file")
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(KnowledgeError, match="not a regular file"):
        check_target(Path("/dev/null"))


def test_an_unrelated_file_is_replaced_only_with_force(tmp_path: Path) -> None:
    notes = write(tmp_path / "notes.tsv", TRIPLES)
    kept = tmp_path / "notes.sqlite"
    kept.write_text("my notes, no index\n")
    code, output = qlangc_process("kb", "build", notes)
    refused(code, output, f"{kept}: error: an existing file that is no knowledge index", "--force")
    assert kept.read_text() == "my notes, no index\n"
    assert qlangc_process("kb", "build", notes, "--force")[0] == 0
    assert qlangc_process("kb", "paths", "cup", "drinking", "--kb", str(kept))[0] == 0


def test_an_index_of_qlangs_is_built_again_without_force(tmp_path: Path) -> None:
    notes = write(tmp_path / "notes.tsv", TRIPLES)
    assert qlangc_process("kb", "build", notes)[0] == 0
    write(tmp_path / "notes.tsv", "cup\tused_for\tpouring\n")
    assert qlangc_process("kb", "build", notes)[0] == 0
    assert qlangc_process("kb", "paths", "cup", "pouring", "--kb", str(tmp_path / "notes.sqlite"))[0] == 0


def test_a_missing_output_folder_is_an_error_not_made(tmp_path: Path) -> None:
    out = tmp_path / "nowhere" / "k.sqlite"
    code, output = qlangc_process("kb", "build", write(tmp_path / "k.tsv", TRIPLES), "--out", str(out))
    refused(code, output, "the output folder", "does not exist")
    assert not out.parent.exists()


@pytest.mark.parametrize("same", ["same", "link"])
def test_two_outputs_of_perceive_never_name_one_file(tmp_path: Path, same: str) -> None:
    image = write(tmp_path / "photo.png", b"not read: the outputs are checked first")
    out = tmp_path / "scene.json"
    other = out
    if same == "link":
        out.write_text("{}")
        other = tmp_path / "link.json"
        other.symlink_to(out)
    code, output = qlangc_process("perceive", image, "-o", str(out), "--draw", str(other))
    refused(code, output, "-o and --draw name one file")
    assert not out.exists() or out.read_text() == "{}"


def _perceive(tmp_path: Path, *args: str) -> tuple[int, str]:
    image = write(tmp_path / "photo.png", b"not read: the outputs are checked first")
    return qlangc_process("perceive", image, *args)


@pytest.mark.parametrize(("option", "what"), [("-o", "weighted scene"), ("--draw", "PNG")])
def test_perceive_replaces_an_unrelated_file_only_with_force(tmp_path: Path, option: str, what: str) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    code, output = _perceive(tmp_path, option, str(notes))
    refused(code, output, f"{notes}: error: an existing file that is no {what}: writing would replace it",
            "--force")
    assert notes.read_text() == "my notes\n"
    code, output = _perceive(tmp_path, option, str(notes), "--force")  # past the check: the photo is read
    refused(code, output, "photo.png: error: cannot read the image")


@pytest.mark.parametrize(("option", "kept"), [("-o", '{\n "width": 3,\n "objects": {}\n}\n'),
                                              ("--draw", "\x89PNG\r\n\x1a\n")])
def test_perceive_replaces_its_own_kind_of_file(tmp_path: Path, option: str, kept: str) -> None:
    earlier = tmp_path / "earlier"
    earlier.write_text(kept, encoding="latin-1")
    refused(*_perceive(tmp_path, option, str(earlier)), "photo.png: error: cannot read the image")


def test_perceive_writes_to_a_device_never_replacing_it(tmp_path: Path) -> None:
    link = tmp_path / "null"
    link.symlink_to("/dev/null")
    refused(*_perceive(tmp_path, "-o", str(link)), "photo.png: error: cannot read the image")
    assert link.is_symlink() and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_export_replaces_an_unrelated_file_only_with_force(tmp_path: Path) -> None:
    (tmp_path / "adapter").mkdir()
    notes = tmp_path / "notes.gguf"
    notes.write_text("my notes\n")
    code, output = qlangc_process("export", str(tmp_path / "adapter"), "--out", str(notes))
    refused(code, output, f"{notes}: error: an existing file that is no GGUF file", "--force")
    assert notes.read_text() == "my notes\n"
    code, output = qlangc_process("export", str(tmp_path / "adapter"), "--out", str(notes), "--force")
    assert code == 1 and "no GGUF file" not in output, output  # past the check: the adapter is read
