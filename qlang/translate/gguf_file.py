"""A GGUF file's header, read and checked before llama.cpp is handed the file.

llama.cpp refuses most malformed files itself, but not safely for an adapter: when its LoRA
loader fails, llama-cpp-python keeps the null adapter it got back and the process dies of a
segmentation fault at the first token (a text file, an empty one, a real adapter cut short:
exit 139, no message).  So qlang reads the header first, as llama.cpp's `gguf.cpp` does: the
magic, the version, the key/values and the tensor table, every length and count bounded by
what is left of the file; each tensor's data where llama.cpp expects it (one after another,
each at the alignment `general.alignment` sets, 32 by default) and inside the file.  An
adapter must then pass what llama.cpp's adapter loader demands of it and its base model
(`check_adapter`).  Every refusal names the file and the byte where the header goes wrong.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path

from qlang import limits
from qlang.errors import Diagnostic, Source
from qlang.translate.backends import BackendError

MAGIC = b"GGUF"
#: The versions llama.cpp reads (version 1 is no longer supported).
VERSIONS = (2, 3)
#: The most bytes of key/values and tensor table read: no model's header comes near
#: (SmolLM2's is 2 MB, its vocabulary included), and it bounds the time spent reading one.
MAX_HEADER = 64 * limits.MB
#: ggml's limits: dimensions of a tensor, bytes of a tensor's name (its terminating NUL included).
MAX_DIMS, MAX_NAME = 4, 64
DEFAULT_ALIGNMENT = 32

#: GGUF's scalar value types: type -> struct format (little-endian, as GGUF files are).
SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
UINT32, FLOAT32, STRING, ARRAY = 4, 6, 8, 9
#: ggml's tensor types that llama.cpp reads: type -> (elements in a block, bytes in a block),
#: as ggml's type traits give them (the `gguf` package's GGML_QUANT_SIZES, tested to agree).
GGML_TYPES = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 6: (32, 22), 7: (32, 24), 8: (32, 34),
              9: (32, 40), 10: (256, 84), 11: (256, 110), 12: (256, 144), 13: (256, 176),
              14: (256, 210), 15: (256, 292), 16: (256, 66), 17: (256, 74), 18: (256, 98),
              19: (256, 50), 20: (32, 18), 21: (256, 110), 22: (256, 82), 23: (256, 136),
              24: (1, 1), 25: (1, 2), 26: (1, 4), 27: (1, 8), 28: (1, 8), 29: (256, 56), 30: (1, 2),
              34: (256, 54), 35: (256, 66), 39: (32, 17), 40: (64, 36), 41: (128, 18)}
#: The types an adapter's tensors may have: those llama.cpp's converter writes (F32, F16, Q8_0,
#: BF16), which its LoRA products take.
ADAPTER_TYPES = frozenset({0, 1, 8, 30})
_INT64_MAX = 2**63 - 1
_LENGTH = struct.Struct("<Q")
#: The fewest bytes a file, a key/value and a tensor's entry take: the counts must fit the file.
_SMALLEST, _SMALLEST_FIELD, _SMALLEST_TENSOR = 24, 8 + 1 + 4 + 1, 8 + 1 + 4 + 4 + 8


@dataclass(frozen=True, slots=True)
class Array:
    """An array value, by its element type and length (its elements are not kept)."""

    type: int
    length: int


@dataclass(frozen=True, slots=True)
class Field:
    """A key's value and its GGUF type (llama.cpp asks for both)."""

    type: int
    value: int | float | bool | str | Array


@dataclass(frozen=True, slots=True)
class Tensor:
    name: str
    #: ggml's order: the row length first
    shape: tuple[int, ...]
    type: int
    #: where its data starts, from the start of the data section
    offset: int
    size: int


@dataclass(frozen=True, slots=True)
class Gguf:
    """A GGUF file whose header has been read and checked."""

    path: Path
    version: int
    metadata: dict[str, Field]
    tensors: dict[str, Tensor]
    #: where the data section starts in the file
    data_offset: int


def invalid(path: Path, message: str) -> BackendError:
    """The error for a file that is no GGUF file llama.cpp can take, located at its name."""
    return BackendError([Diagnostic("model", message)], Source("", str(path)))


class _Cursor:
    """Reads the header's fields in order, each bounded by the header limit and the file."""

    def __init__(self, path: Path, data: mmap.mmap) -> None:
        self.path, self.data, self.at = path, data, 0
        self.end = min(len(data), MAX_HEADER)

    def fail(self, message: str, at: int | None = None) -> BackendError:
        return invalid(self.path, f"byte {self.at if at is None else at}: {message}")

    def overrun(self, what: str, at: int) -> BackendError:
        end = ("the file" if self.end == len(self.data)
               else f"the first {MAX_HEADER // limits.MB} MB, the most of a header qlang reads")
        return self.fail(f"{what} runs past the end of {end}", at)

    def take(self, size: int, what: str) -> int:
        """Moves past `size` bytes holding `what`; returns where they start."""
        start = self.at
        if size > self.end - start:
            raise self.overrun(f"{what} ({size:,} bytes)", start)
        self.at += size
        return start

    def scalar(self, fmt: str, what: str) -> int | float | bool:
        start = self.take(struct.calcsize(fmt), what)
        value: int | float | bool = struct.unpack_from("<" + fmt, self.data, start)[0]
        return value

    def integer(self, fmt: str, what: str) -> int:
        return int(self.scalar(fmt, what))

    def count(self, what: str, least: int) -> int:
        """A 64-bit count of items of at least `least` bytes each, which the rest must hold."""
        start = self.at
        count = self.integer("Q", what)
        if count * least > self.end - self.at:
            raise self.fail(f"{what} is {count:,}: more than the rest of the file can hold", start)
        return count

    def string(self, what: str) -> str:
        size = self.integer("Q", f"the length of {what}")
        start = self.take(size, what)
        return bytes(self.data[start:start + size]).decode("utf-8", errors="replace")

    def skip_strings(self, count: int, key: str) -> None:
        """Moves past `count` strings (a vocabulary's hundred thousand: one tight loop)."""
        at, end, data, unpack = self.at, self.end, self.data, _LENGTH.unpack_from
        for index in range(count):
            if at + 8 > end:
                raise self.overrun(f"string {index} of the array {key!r}", at)
            at += 8 + unpack(data, at)[0]
        if at > end:
            raise self.overrun(f"the last string of the array {key!r}", self.at)
        self.at = at

    def field(self, key: str) -> Field:
        kind = self.integer("I", f"the type of {key!r}")
        if kind in SCALARS:
            return Field(kind, self.scalar(SCALARS[kind], f"the value of {key!r}"))
        if kind == STRING:
            return Field(kind, self.string(f"the value of {key!r}"))
        if kind != ARRAY:
            raise self.fail(f"the key {key!r} has the unknown value type {kind}", self.at - 4)
        element = self.integer("I", f"the element type of {key!r}")
        if element == STRING:
            length = self.count(f"the length of the array {key!r}", 8)
            self.skip_strings(length, key)
        elif element in SCALARS:
            size = struct.calcsize(SCALARS[element])
            length = self.count(f"the length of the array {key!r}", size)
            self.take(length * size, f"the array {key!r}")
        else:
            raise self.fail(f"the array {key!r} has elements of the type {element}, which GGUF "
                            "arrays cannot hold", self.at - 4)
        return Field(kind, Array(element, length))


def read(path: Path) -> Gguf:
    """The header of the GGUF file `path`, checked as llama.cpp reads it; raises `BackendError`
    where it is no such file (`limits.TooLarge` where it is larger than a model file may be)."""
    try:
        limits.check_file(path, limits.MODEL)
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            if size < _SMALLEST:
                raise invalid(path, f"{size} bytes: too short for a GGUF file")
            with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return _read(path, data)
    except OSError as exc:
        raise invalid(path, f"cannot read the file ({exc.strerror or exc})") from None


def _read(path: Path, data: mmap.mmap) -> Gguf:
    cursor = _Cursor(path, data)
    if data[:4] != MAGIC:
        raise cursor.fail(f"not a GGUF file (it starts {bytes(data[:4])!r}, not {MAGIC!r})")
    cursor.at = 4
    version = cursor.integer("I", "the version")
    if version not in VERSIONS:
        raise cursor.fail(f"GGUF version {version}; llama.cpp reads versions "
                          f"{', '.join(map(str, VERSIONS))}", 4)
    tensor_count = cursor.count("the number of tensors", _SMALLEST_TENSOR)
    kv_count = cursor.count("the number of key/values", _SMALLEST_FIELD)
    metadata: dict[str, Field] = {}
    for _ in range(kv_count):
        start = cursor.at
        key = cursor.string("a key")
        if not key or key in metadata:
            raise cursor.fail(f"the key {key!r} is empty or repeated", start)
        metadata[key] = cursor.field(key)
    alignment = metadata.get("general.alignment", Field(UINT32, DEFAULT_ALIGNMENT))
    step = alignment.value
    if alignment.type != UINT32 or not isinstance(step, int) or step <= 0 or step & (step - 1):
        raise cursor.fail(f"general.alignment is {step!r}, not a power of 2 held in 32 bits")
    tensors: dict[str, Tensor] = {}
    size = 0  # of the data section: each tensor's data padded to the alignment
    for _ in range(tensor_count):
        start = cursor.at
        tensor = _tensor(cursor)
        if tensor.name in tensors:
            raise cursor.fail(f"the tensor {tensor.name!r} is named twice", start)
        if tensor.offset != size:
            raise cursor.fail(f"the tensor {tensor.name!r} starts at {tensor.offset:,} in the data, "
                              f"not at {size:,} where the tensor before it ends", start)
        tensors[tensor.name] = tensor
        size += -(-tensor.size // step) * step
    data_offset = -(-cursor.at // step) * step
    if size and data_offset + size > len(data):
        raise invalid(path, f"the tensors' data ends at byte {data_offset + size:,}, past the end of "
                      f"the file ({len(data):,} bytes): is it cut short?")
    return Gguf(path, version, metadata, tensors, data_offset)


def _tensor(cursor: _Cursor) -> Tensor:
    start = cursor.at
    name = cursor.string("a tensor name")
    if not name or len(name.encode()) >= MAX_NAME:
        raise cursor.fail(f"the tensor name {name[:MAX_NAME]!r} is empty or of {MAX_NAME} bytes or more",
                          start)
    dims = cursor.integer("I", f"the number of dimensions of {name!r}")
    if dims > MAX_DIMS:
        raise cursor.fail(f"the tensor {name!r} has {dims} dimensions, more than {MAX_DIMS}", start)
    shape = tuple(cursor.integer("q", f"a dimension of {name!r}") for _ in range(dims))
    kind = cursor.integer("I", f"the type of {name!r}")
    offset = cursor.integer("Q", f"the offset of {name!r}")
    elements = 1
    for length in shape:
        elements *= max(length, 0)
    if min(shape, default=0) < 0 or elements > _INT64_MAX:
        raise cursor.fail(f"the tensor {name!r} has the shape {shape}", start)
    if kind not in GGML_TYPES:
        raise cursor.fail(f"the tensor {name!r} has the type {kind}, no ggml type llama.cpp reads", start)
    block, block_bytes = GGML_TYPES[kind]
    row = shape[0] if shape else 1
    if row % block:
        raise cursor.fail(f"the tensor {name!r} has rows of {row} elements, not a multiple of its "
                          f"type's block of {block}", start)
    return Tensor(name, shape, kind, offset, elements // block * block_bytes)


def _value(gguf: Gguf, key: str, kind: int, default: int | float | bool | str | Array) -> object:
    """The value of `key`, which must be of the GGUF type `kind` where it is there at all."""
    field = gguf.metadata.get(key, Field(kind, default))
    if field.type != kind:
        raise invalid(gguf.path, f"{key} is of the GGUF type {field.type}, not {kind}")
    return field.value


def check_adapter(adapter: Gguf, base: Gguf) -> None:
    """That llama.cpp's LoRA loader takes `adapter` for the model `base` (its checks, in its
    order): a LoRA adapter of the base's architecture, with pairs of A and B tensors, each of
    a tensor of the base, in shapes that multiply into it."""
    if (kind := _value(adapter, "general.type", STRING, "")) != "adapter":
        raise invalid(adapter.path, f"not an adapter (general.type is {kind!r}, not 'adapter')")
    architecture = _value(adapter, "general.architecture", STRING, "")
    wanted = _value(base, "general.architecture", STRING, "")
    if architecture != wanted:
        raise invalid(adapter.path, f"an adapter for {architecture!r} models, but {base.path.name} "
                      f"is a {wanted!r} model")
    if (kind := _value(adapter, "adapter.type", STRING, "")) != "lora":
        raise invalid(adapter.path, f"not a LoRA adapter (adapter.type is {kind!r}, not 'lora')")
    _value(adapter, "adapter.lora.alpha", FLOAT32, 0.0)
    tokens = _value(adapter, "adapter.alora.invocation_tokens", ARRAY, Array(UINT32, 0))
    if not isinstance(tokens, Array) or tokens.type != UINT32:
        raise invalid(adapter.path, "adapter.alora.invocation_tokens is not an array of 32-bit integers")
    pairs: dict[str, dict[str, Tensor]] = {}
    for name, tensor in adapter.tensors.items():
        side = name[-len(".lora_a"):]
        if side in (".lora_a", ".lora_b"):
            pairs.setdefault(name.replace(side, ""), {})[side] = tensor
        elif not name.endswith("_norm.weight"):  # llama.cpp leaves norms out
            raise invalid(adapter.path, f"the tensor {name!r} is neither a LoRA A nor a LoRA B")
    for name, pair in pairs.items():
        _check_pair(adapter.path, base, name, pair)


def _check_pair(path: Path, base: Gguf, name: str, pair: dict[str, Tensor]) -> None:
    if len(pair) != 2:
        raise invalid(path, f"the tensor {name!r} has a LoRA A or a LoRA B but not both")
    a, b = pair[".lora_a"], pair[".lora_b"]
    target = base.tensors.get(name)
    if target is None:
        raise invalid(path, f"adapts the tensor {name!r}, which {base.path.name} does not have "
                      "(an adapter for another model?)")
    if a.type not in ADAPTER_TYPES or b.type not in ADAPTER_TYPES:
        raise invalid(path, f"the LoRA tensors of {name!r} have the types {a.type} and {b.type}, not "
                      "F32, F16, BF16 or Q8_0")
    (out0, out1, *outer), (a0, a1, *a_outer), (b0, b1, *b_outer) = (_dims(t) for t in (target, a, b))
    if name.endswith("token_embd.weight"):  # A and B trade places for the embedding
        fits = out0 == b1 and out1 == a1
    else:
        fits = out0 == a0 and out1 == b1 and a1 == b0
    if not fits or a_outer != outer or b_outer != outer:  # a stack of matrices (experts) as the base's
        raise invalid(path, f"the LoRA tensors of {name!r}, {a.shape} and {b.shape}, do not fit its "
                      f"shape {target.shape} in {base.path.name} (an adapter for another model?)")


def _dims(tensor: Tensor) -> tuple[int, ...]:
    """ggml's four dimensions of a tensor (1 where it has fewer)."""
    return (*tensor.shape, 1, 1, 1, 1)[:MAX_DIMS]
