"""A model folder, read and checked: `config.json` (the sizes, both vocabularies, the decoding
length, the cascade's threshold) and `model.safetensors` (the weights).

A folder may come from anywhere (`--small-model DIR`), so nothing is taken on trust: both files
must be regular files within the model-file limit (`qlang.limits`), the config must be the
expected shape, and the weights' header (an 8-byte length, a JSON table of names, types, shapes
and byte ranges, then the raw little-endian arrays) must name exactly the tensors the config
implies, with their shapes, inside the file, before a byte of them is read as numbers.  The
format is that simple, so numpy reads the checked ranges itself and no native reader sees an
unchecked file.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from qlang import jsontext, limits
from qlang.errors import Diagnostic, QlangError, Source
from qlang.paths import replacing
from qlang.signatures import SIGNATURES
from qlang.small.automaton import shortest_program
from qlang.small.network import Config, Floats, Network, shapes
from qlang.small.tokens import SPECIAL, op_token

WEIGHTS, CONFIG = "model.safetensors", "config.json"
#: bounds on the sizes a config may name (the shipped model: 128, 256, 1 and 48)
MAX_WIDTH, MAX_LAYERS, MAX_LENGTH = 1 << 16, 16, 1024
#: the largest rescoring weight and bonus a config may set
MAX_WEIGHT = 100.0
#: settings of older calibrations that no longer apply, read and dropped: `plausible` (the
#: least log-likelihood per token at which a rescored candidate answered without the
#: fine-tuned model's own program competing)
OBSOLETE = frozenset({"plausible"})
_DTYPES: dict[str, np.dtype[Any]] = {"F16": np.dtype("<f2"), "F32": np.dtype("<f4")}
_DEFAULT = Config((), ())
_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def load(folder: Path) -> Network:
    """The network of a model folder, checked (a located QlangError otherwise)."""
    config, weights = read(folder)
    return Network.of(config, weights)


def read(folder: Path) -> tuple[Config, dict[str, Floats]]:
    """The config and the weights (float32) of a model folder, checked."""
    config = read_config(folder)
    return config, _weights(_bytes(folder / WEIGHTS, limits.MODEL), folder / WEIGHTS, shapes(config))


def read_config(folder: Path) -> Config:
    path = folder / CONFIG
    try:
        data = jsontext.loads(_bytes(path, limits.CONFIG).decode("utf-8"))
    except ValueError as exc:  # not UTF-8, not JSON, nested too deep
        raise _bad(path, f"not a JSON config: {exc}") from None
    return _config(data, path)


def write_config(folder: Path, config: Config) -> None:
    """Replace the folder's config whole: a run killed while writing (calibration, back-off)
    leaves the config it had, never half of one, and a folder it cannot write is an error."""
    path = folder / CONFIG
    try:
        with replacing(path) as partial:
            partial.write_text(json.dumps(asdict(config), indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise QlangError([Diagnostic("output", f"cannot write the config: {exc.strerror or exc}")],
                         Source("", str(path))) from None


def _bad(path: Path, message: str) -> QlangError:
    """An error located at the file (``path: error: message``)."""
    return QlangError([Diagnostic("input", f"{message} (not a small-parser model folder)")],
                      Source("", str(path)))


def _bytes(path: Path, limit: limits.Limit) -> bytes:
    """A regular file's bytes, within `limit` (a FIFO or a device is never opened): the
    weights within the model-file limit, the config, parsed whole, within the settings one."""
    try:
        limits.check_file(path, limit)
        return limits.read(path, limit)
    except OSError as exc:
        raise _bad(path, exc.strerror or str(exc)) from None


def _config(data: Any, path: Path) -> Config:
    if not isinstance(data, dict):
        raise _bad(path, "the config is not a JSON object")
    unknown = sorted(set(data) - {f.name for f in fields(Config)} - OBSOLETE)
    if unknown:
        raise _bad(path, f"unknown setting {unknown[0]!r}")
    config = Config(
        _tokens(data, "source", path), _tokens(data, "target", path),
        embedding=_integer(data, "embedding", 1, MAX_WIDTH, path),
        hidden=_integer(data, "hidden", 2, MAX_WIDTH, path),
        layers=_integer(data, "layers", 1, MAX_LAYERS, path),
        dropout=_fraction(data, "dropout", path),
        max_length=_integer(data, "max_length", shortest_program(), MAX_LENGTH, path),
        threshold=None if data.get("threshold") is None else _fraction(data, "threshold", path),
        rescore_weight=_number(data, "rescore_weight", 0, MAX_WEIGHT, path),
        length_bonus=_number(data, "length_bonus", 0, MAX_WEIGHT, path),
        scorer=_name(data, "scorer", path),
        notes=data.get("notes", {}))
    config = replace(config, backoff=_backoff(data, config.source, path))
    if config.hidden % 2:
        raise _bad(path, "'hidden' must be even (the encoder reads each way with half of it)")
    if not isinstance(config.notes, dict):
        raise _bad(path, "'notes' must be a JSON object")
    # a model trained before the knowledge or text operations decodes all the others: the
    # automaton offers an operation only where the model has its token
    missing = [op_token(name) for name, signature in SIGNATURES.items()
               if not (signature.knowledge or signature.documents) and op_token(name) not in config.target]
    if missing:
        raise _bad(path, f"the target vocabulary lacks the operation {missing[0]!r}")
    return config


def _integer(data: dict[str, Any], name: str, low: int, high: int, path: Path) -> int:
    value = data.get(name, getattr(_DEFAULT, name))
    if type(value) is not int or not low <= value <= high:
        raise _bad(path, f"{name!r} must be an integer from {low} to {high}, not {_short(value)}")
    return value


def _fraction(data: dict[str, Any], name: str, path: Path) -> float:
    return _number(data, name, 0, 1, path)


def _number(data: dict[str, Any], name: str, low: float, high: float, path: Path) -> float:
    value = data.get(name, getattr(_DEFAULT, name))
    if type(value) not in (int, float) or not low <= value <= high:
        raise _bad(path, f"{name!r} must be a number from {low:g} to {high:g}, not {_short(value)}")
    return float(value)


def _name(data: dict[str, Any], name: str, path: Path) -> str | None:
    """A setting that names a bundled model: lower-case words joined by dashes, or null."""
    value = data.get(name)
    if value is not None and not (isinstance(value, str) and _NAME.fullmatch(value)):
        raise _bad(path, f"{name!r} must name a bundled model (like 'gemma3-qlang'), not {_short(value)}")
    return value


def _tokens(data: dict[str, Any], name: str, path: Path) -> tuple[str, ...]:
    tokens = data.get(name)
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise _bad(path, f"{name!r} must be a list of tokens")
    if tuple(tokens[:len(SPECIAL)]) != SPECIAL:
        raise _bad(path, f"the {name} vocabulary must start with {', '.join(SPECIAL)}")
    if len(set(tokens)) != len(tokens):
        raise _bad(path, f"the {name} vocabulary repeats a token")
    return tuple(tokens)


def _backoff(data: dict[str, Any], source: tuple[str, ...], path: Path) -> dict[str, str]:
    """Words the source vocabulary lacks, each to a word it has: a word of its own would never
    be looked up, and an unknown one would be read as nothing."""
    table = data.get("backoff", {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise _bad(path, "'backoff' must be a JSON object of words")
    known = set(source)
    for word, read in table.items():
        if word in known or read not in known or read in SPECIAL:
            raise _bad(path, f"'backoff' maps {_short(word)} to {_short(read)}: it must map a word "
                             "the source vocabulary lacks to a word it has")
    return table


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:40] + "…"


def _weights(data: bytes, path: Path, expected: dict[str, tuple[int, ...]]) -> dict[str, Floats]:
    """The tensors `expected` names, from a safetensors file's bytes, after the header is checked."""
    if len(data) < 8:
        raise _bad(path, f"{len(data)} bytes, too short for a safetensors header")
    size = int.from_bytes(data[:8], "little")
    if size > len(data) - 8:
        raise _bad(path, f"the header claims {size:,} bytes, but the file has {len(data) - 8:,} "
                   "after its length")
    try:
        header = jsontext.loads(data[8:8 + size].decode("utf-8"))
    except ValueError as exc:
        raise _bad(path, f"the header is not JSON: {exc}") from None
    if not isinstance(header, dict):
        raise _bad(path, "the header is not a JSON object")
    header.pop("__metadata__", None)
    names = set(header)
    if names != set(expected):
        extra, lacking = sorted(names - set(expected)), sorted(set(expected) - names)
        raise _bad(path, f"no tensor {lacking[0]!r}" if lacking else f"unexpected tensor {extra[0]!r}")
    start, end = 8 + size, len(data)
    tensors: dict[str, Floats] = {}
    for name, shape in expected.items():
        begin, dtype = _entry(header[name], name, shape, end - start, path)
        array = np.frombuffer(data, dtype, math.prod(shape), start + begin).reshape(shape)
        if not np.isfinite(array).all():
            raise _bad(path, f"tensor {name!r} holds a value that is not a finite number")
        tensors[name] = array.astype(np.float32)
    return tensors


def _entry(entry: Any, name: str, shape: tuple[int, ...], room: int,
           path: Path) -> tuple[int, np.dtype[Any]]:
    """A tensor's byte range and type, checked against its expected shape and the file."""
    if (not isinstance(entry, dict) or entry.get("dtype") not in tuple(_DTYPES)  # a list is no key
            or not isinstance(entry.get("shape"), list) or not isinstance(entry.get("data_offsets"), list)):
        raise _bad(path, f"tensor {name!r}: not a float16 or float32 entry with a shape and offsets")
    if entry["shape"] != list(shape):
        raise _bad(path, f"tensor {name!r} has shape {_short(entry['shape'])}, the config implies "
                   f"{list(shape)}")
    dtype = _DTYPES[entry["dtype"]]
    offsets = entry["data_offsets"]
    if (len(offsets) != 2 or not all(type(o) is int for o in offsets)
            or not 0 <= offsets[0] <= offsets[1] <= room
            or offsets[1] - offsets[0] != math.prod(shape) * dtype.itemsize):
        raise _bad(path, f"tensor {name!r}: byte range {_short(offsets)} does not hold its "
                   f"{math.prod(shape) * dtype.itemsize:,} bytes within the file's {room:,}")
    return offsets[0], dtype
