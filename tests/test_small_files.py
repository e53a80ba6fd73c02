"""Hostile small-parser model folders: every file is checked before its bytes are
read as numbers, and a bad one is a located error (exit 1), never a traceback or a crash.
The folders are the shipped model's files, cut, mutated or replaced."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qlang.errors import QlangError
from qlang.small import files
from qlang.small.parser import SMALL_MODEL
from tests.conftest import qlangc_process, run

REAL_CONFIG = json.loads((SMALL_MODEL / files.CONFIG).read_text())
REAL_WEIGHTS = (SMALL_MODEL / files.WEIGHTS).read_bytes()
_LENGTH = int.from_bytes(REAL_WEIGHTS[:8], "little")
REAL_HEADER = json.loads(REAL_WEIGHTS[8:8 + _LENGTH])
_TARGET = len(REAL_CONFIG["target"])


def _folder(tmp_path: Path, config: Any = REAL_CONFIG, weights: bytes = REAL_WEIGHTS) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    text = config if isinstance(config, str | bytes) else json.dumps(config)
    (folder / files.CONFIG).write_bytes(text if isinstance(text, bytes) else text.encode())
    (folder / files.WEIGHTS).write_bytes(weights)
    return folder


def _with_header(change: Callable[[dict[str, Any]], None], data: bytes | None = None) -> bytes:
    """The real weights under a changed header (the data after it as it is, or `data`)."""
    header = json.loads(json.dumps(REAL_HEADER))
    change(header)
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + (REAL_WEIGHTS[8 + _LENGTH:] if data is None else data)


def _infinite(name: str) -> bytes:
    """The real weights' data with one tensor's float16 values all infinite."""
    data = bytearray(REAL_WEIGHTS[8 + _LENGTH:])
    begin, end = REAL_HEADER[name]["data_offsets"]
    data[begin:end] = b"\x00\x7c" * ((end - begin) // 2)  # float16 +inf, little-endian
    return bytes(data)


def _config(**changes: Any) -> dict[str, Any]:
    return {**REAL_CONFIG, **changes}


def _set(name: str, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    return lambda header: header[name].__setitem__(key, value)


WEIGHTS = {
    "empty": (b"", "too short for a safetensors header"),
    "cut in its length": (REAL_WEIGHTS[:5], "too short for a safetensors header"),
    "cut in its header": (REAL_WEIGHTS[:500], "the header claims 1,976 bytes, but the file has 492"),
    "cut in its data": (REAL_WEIGHTS[:len(REAL_WEIGHTS) // 2], "does not hold its"),
    "text": (b"this is not a model, just some text\n" * 3, "the header claims"),
    "a header that is not JSON": (b"\x05\0\0\0\0\0\0\0hello", "the header is not JSON"),
    "a header 100,000 deep": ((100_000).to_bytes(8, "little") + b"[" * 100_000, "nested deeper"),
    "a header that is a list": (b"\x02\0\0\0\0\0\0\0[]", "the header is not a JSON object"),
    "a tensor past the end": (_with_header(_set("switch.bias", "data_offsets", [0, 10**12])),
                              "'switch.bias': byte range [0, 1000000000000]"),
    "sizes that disagree": (_with_header(_set("bridge.bias", "data_offsets", [0, 4])),
                            "does not hold its 1,024 bytes"),
    "an integer type": (_with_header(_set("bridge.bias", "dtype", "I64")), "not a float16 or float32"),
    "a list for a type": (_with_header(_set("bridge.bias", "dtype", ["F16"])), "not a float16 or float32"),
    "a tensor of infinities": (_with_header(lambda header: None, _infinite("combine.bias")),
                               "'combine.bias' holds a value that is not a finite number"),
    "a wrong shape": (_with_header(_set("output.weight", "shape", [_TARGET, 255])),
                      f"'output.weight' has shape [{_TARGET}, 255], the config implies [{_TARGET}, 256]"),
    "a missing tensor": (_with_header(lambda header: header.pop("attention.weight")),
                         "no tensor 'attention.weight'"),
    "an extra tensor": (_with_header(lambda header: header.__setitem__(
        "extra.weight", {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]})),
        "unexpected tensor 'extra.weight'"),
}

CONFIGS = {
    "empty": (b"", "not a JSON config"),
    "not JSON": ("{", "not a JSON config"),
    "not UTF-8": (b"\xff\xfe{}", "not a JSON config"),
    "100,000 deep": ("[" * 100_000 + "]" * 100_000, "nested deeper"),
    "a list": ([REAL_CONFIG], "the config is not a JSON object"),
    "no target": ({k: v for k, v in REAL_CONFIG.items() if k != "target"}, "'target' must be a list"),
    "a source of numbers": (_config(source=[1, 2, 3]), "'source' must be a list of tokens"),
    "no special tokens": (_config(source=REAL_CONFIG["source"][4:]), "must start with <pad>"),
    "a repeated token": (_config(target=[*REAL_CONFIG["target"], "car"]), "repeats a token"),
    "no operation": (_config(target=[t for t in REAL_CONFIG["target"] if t != "exist("]),
                     "lacks the operation 'exist('"),
    "a size as text": (_config(hidden="256"), "'hidden' must be an integer"),
    "an odd size": (_config(hidden=255), "'hidden' must be even"),
    "a huge size": (_config(embedding=10**15), "'embedding' must be an integer from 1 to 65536"),
    "no layers": (_config(layers=0), "'layers' must be an integer"),
    "a bool for a size": (_config(layers=True), "'layers' must be an integer"),
    "no room for a program": (_config(max_length=1), "'max_length' must be an integer from 2"),
    "a threshold above 1": (_config(threshold=1.5), "'threshold' must be a number from 0 to 1"),
    "a negative bonus": (_config(length_bonus=-1), "'length_bonus' must be a number from 0 to 100"),
    "a bonus as text": (_config(length_bonus="1"), "'length_bonus' must be a number from 0 to 100"),
    "an unknown setting": (_config(heads=8), "unknown setting 'heads'"),
    "notes that are text": (_config(notes="x"), "'notes' must be a JSON object"),
    "a scorer that is a path": (_config(scorer="../adapter.gguf"), "'scorer' must name a bundled model"),
    "a scorer that is a list": (_config(scorer=["gemma3-qlang"]), "'scorer' must name a bundled model"),
    "a back-off list": (_config(backoff=["car"]), "'backoff' must be a JSON object of words"),
    "a back-off to a number": (_config(backoff={"auto": 1}), "'backoff' must be a JSON object of words"),
    "a back-off to an unknown word": (_config(backoff={"auto": "automobile"}),
                                      "maps \"auto\" to \"automobile\": it must map a word the source"),
    "a back-off of a known word": (_config(backoff={"car": "truck"}), "maps \"car\" to \"truck\""),
    "a back-off to the unknown token": (_config(backoff={"auto": "<unk>"}), "maps \"auto\" to \"<unk>\""),
}


@pytest.mark.parametrize("case", WEIGHTS)
def test_bad_weights_are_a_located_error(tmp_path, case) -> None:
    weights, message = WEIGHTS[case]
    folder = _folder(tmp_path, weights=weights)
    with pytest.raises(QlangError) as caught:
        files.load(folder)
    assert f"{folder / files.WEIGHTS}: " in str(caught.value) and message in str(caught.value)


@pytest.mark.parametrize("case", CONFIGS)
def test_a_bad_config_is_a_located_error(tmp_path, case) -> None:
    config, message = CONFIGS[case]
    folder = _folder(tmp_path, config=config)
    with pytest.raises(QlangError) as caught:
        files.load(folder)
    assert str(folder / files.CONFIG) in str(caught.value) and message in str(caught.value)


def test_a_config_the_weights_disagree_with_is_found_in_the_header(tmp_path) -> None:
    folder = _folder(tmp_path, config=_config(hidden=128))
    with pytest.raises(QlangError, match=r"model\.safetensors: error: tensor 'encoder.weight_ih_l0' has "
                                         r"shape \[512, 128\], the config implies \[256, 128\]"):
        files.load(folder)


def test_an_older_calibrations_plausibility_is_read_and_dropped(tmp_path) -> None:
    """A model calibrated before the fine-tuned model's own program always competed still
    loads (`files.OBSOLETE`); calibrating it again writes its config without the setting."""
    network = files.load(_folder(tmp_path, config=_config(plausible=-0.784)))
    (tmp_path / "now").mkdir()
    assert network.config == files.load(_folder(tmp_path / "now")).config
    assert "plausible" not in REAL_CONFIG


def test_the_real_folder_reads_and_a_missing_file_is_named(tmp_path) -> None:
    network = files.load(_folder(tmp_path))
    assert network.config.threshold == REAL_CONFIG["threshold"]
    os.remove(tmp_path / "model" / files.WEIGHTS)
    with pytest.raises(QlangError, match=r"model\.safetensors: error: No such file"):
        files.load(tmp_path / "model")


def test_a_weights_file_past_the_model_limit_is_refused_unread(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("QLANG_MAX_MODEL_MB", "1")
    with pytest.raises(QlangError, match=r"model.safetensors: error: exceeds 1 MB, the limit for a model "
                                         r"file \(set QLANG_MAX_MODEL_MB to raise it\)"):
        files.load(_folder(tmp_path))


def test_a_config_past_the_settings_limit_is_refused_unread(tmp_path, monkeypatch) -> None:
    """The config is parsed whole, so it is bounded as JSON settings are (16 MB), not as
    weights are (64 GB): a config of a gigabyte of vocabulary would take many more in memory."""
    monkeypatch.setenv("QLANG_MAX_CONFIG_MB", "0.05")
    with pytest.raises(QlangError, match=r"config.json: error: exceeds 0.05 MB, the limit for a model's "
                                         r"settings file \(set QLANG_MAX_CONFIG_MB to raise it\)"):
        files.load(_folder(tmp_path))


def test_a_config_that_cannot_be_written_is_an_error_and_the_old_one_stays(tmp_path, monkeypatch) -> None:
    folder = _folder(tmp_path)
    before = (folder / files.CONFIG).read_bytes()
    config = files.read_config(folder)

    def full(*_args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(QlangError, match=r"config.json: error: cannot write the config: No space left"):
        files.write_config(folder, config)
    assert (folder / files.CONFIG).read_bytes() == before
    assert sorted(p.name for p in folder.iterdir()) == [files.CONFIG, files.WEIGHTS]


@pytest.mark.parametrize("command", [
    ["translate", "--translator", "small", "Is the cup red?"],
    ["translate", "Is the cup red?"],  # the cascade
    ["ask", "Who wears shorts?", "--scene", "examples/scene_2353884.json"],
])
def test_commands_given_a_bad_model_folder_exit_1(tmp_path, command) -> None:
    cut = _folder(tmp_path, weights=REAL_WEIGHTS[:len(REAL_WEIGHTS) // 3])
    status, out, err = run(*command, "--small-model", str(cut))
    assert status == 1, out + err
    assert f"{cut / files.WEIGHTS}: " in err and "not a small-parser model folder" in err


def test_a_fifo_in_the_folder_is_never_opened(tmp_path) -> None:
    """In a process of its own: opening a FIFO for reading would wait for a writer forever."""
    folder = _folder(tmp_path)
    os.remove(folder / files.CONFIG)
    os.mkfifo(folder / files.CONFIG)
    status, output = qlangc_process("translate", "--translator", "small", "--small-model", str(folder),
                                    "Is the cup red?", timeout=120)
    assert status == 1, output
    assert "config.json: error: not a regular file" in output and "Traceback" not in output


def test_calibrating_on_an_empty_dev_file_is_a_clear_error(tmp_path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(SMALL_MODEL, folder)
    empty = tmp_path / "dev.jsonl"
    empty.write_text("")
    status, out, err = run("calibrate", str(folder), "--dev", str(empty), "--fallback", str(empty))
    assert status == 1, out + err
    assert f"{empty}: error: no dev pairs to calibrate on" in err
    assert json.loads((folder / files.CONFIG).read_text()) == REAL_CONFIG  # left as it was
