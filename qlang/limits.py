"""How much qlang reads of each kind of input, and reading within that bound.

Every file or stream qlang reads whole (a program, a scene, a question file, a batch's output
being resumed) is read here, in chunks, and given up as soon as it passes its kind's limit, so
that no input (a huge file, ``/dev/zero``, a pipe that never ends) can take more memory than
the limit; a file handed to a native library (an image, a model) is checked here by its size
before anything opens it.  Each limit is an environment variable, ``QLANG_MAX_<KIND>_MB``:
one setting reaches every reader (the library's as well as the commands', and the workers
they fork), where an option would have to be threaded through a dozen commands.

>>> PROGRAM.variable, PROGRAM.default_mb
('QLANG_MAX_PROGRAM_MB', 16)
"""

from __future__ import annotations

import io
import math
import os
import stat
from dataclasses import dataclass
from typing import IO, Any, BinaryIO

from qlang.errors import QlangError, error
from qlang.integers import integer

#: Bytes in a megabyte, as the limits count them.
MB = 1_000_000
#: What one read takes at a time: the most a limit is overshot by before the read is given up.
CHUNK = 1 << 20


class TooLarge(QlangError):
    """An input is larger than its kind's limit (or a limit is set to no number)."""


@dataclass(frozen=True, slots=True)
class Limit:
    """The most bytes qlang reads of one kind of input: `default_mb` megabytes, unless the
    environment variable `variable` says otherwise."""

    what: str
    variable: str
    default_mb: int

    @property
    def mb(self) -> float:
        """The limit in force, in megabytes; raises `TooLarge` where the variable holds no
        positive number."""
        setting = os.environ.get(self.variable, "").strip()
        if not setting:
            return self.default_mb
        try:
            value = float(setting)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise error(TooLarge, "limit", f"{self.variable}={setting!r} is not a positive number "
                        "of megabytes")
        return value

    @property
    def bytes(self) -> int:
        return int(self.mb * MB)

    def bound(self) -> str:
        """The limit as messages give it: its size, what it bounds and how to raise it."""
        return f"{self.mb:g} MB, the limit for {self.what} (set {self.variable} to raise it)"

    def exceeded(self, name: str, size: str | None = None) -> QlangError:
        """The error for an input `name` larger than this limit (`size`: how large, where the
        file's own size is not what the limit counts)."""
        return error(TooLarge, "limit", f"{size + ' ' if size else ''}exceeds {self.bound()}", path=name)


PROGRAM = Limit("a program or concepts file", "QLANG_MAX_PROGRAM_MB", 16)
#: Rules are read whole as a program is, but are no program, and parsed they take about 300
#: times their size: a megabyte is a hundred times the most conditions they may have (`RULE_BODY`).
RULES = Limit("a rules file", "QLANG_MAX_RULES_MB", 1)
#: A model's JSON settings (an adapter's adapter_config.json), read whole: not its weights.
CONFIG = Limit("a model's settings file", "QLANG_MAX_CONFIG_MB", 16)
SCENE = Limit("a scene file", "QLANG_MAX_SCENE_MB", 512)
QUESTIONS = Limit("a question or JSON-lines file", "QLANG_MAX_QUESTIONS_MB", 512)
LINE = Limit("a JSON line", "QLANG_MAX_LINE_MB", 16)
OUTPUT = Limit("an output file being resumed", "QLANG_MAX_OUTPUT_MB", 512)
IMAGE = Limit("an image", "QLANG_MAX_IMAGE_MB", 64)
MODEL = Limit("a model file", "QLANG_MAX_MODEL_MB", 65_536)
#: An image's pixels as Pillow decodes them, 4 bytes each: 256 MB is 64 megapixels.
PIXELS = Limit("an image's decoded pixels", "QLANG_MAX_PIXELS_MB", 256)
#: A knowledge file, streamed (never read whole), counted once decompressed: ConceptNet's
#: assertions are 10 GB unpacked.
KNOWLEDGE = Limit("a knowledge file (decompressed)", "QLANG_MAX_KNOWLEDGE_MB", 20_000)
#: A documents file (`qlang.text.documents`), read whole: its texts are all searched.
DOCUMENTS = Limit("a documents file", "QLANG_MAX_DOCUMENTS_MB", 512)
#: One message to the language server (a document's whole text, as an editor sends it).
LSP_MESSAGE = Limit("a language server message", "QLANG_MAX_LSP_MESSAGE_MB", 64)
LIMITS = (PROGRAM, RULES, CONFIG, SCENE, QUESTIONS, LINE, OUTPUT, IMAGE, MODEL, PIXELS, KNOWLEDGE, DOCUMENTS,
          LSP_MESSAGE)


@dataclass(frozen=True, slots=True)
class Count:
    """The most of something counted, not read (a rule's conditions): `default`, unless the
    environment variable `variable` says otherwise."""

    what: str
    variable: str
    default: int

    @property
    def most(self) -> int:
        """The count in force; raises `TooLarge` where the variable holds no positive whole number."""
        setting = os.environ.get(self.variable, "").strip()
        if not setting:
            return self.default
        try:
            return integer(setting, least=1, most=10**9)
        except ValueError:
            raise error(TooLarge, "limit", f"{self.variable}={setting!r} is not a whole number from 1 "
                        "to 1,000,000,000") from None

    def bound(self) -> str:
        """The count as messages give it: how many, of what, and how to raise it."""
        return f"at most {self.most:,} {self.what} (set {self.variable} to raise it)"


#: clingo's grounding, which no deadline interrupts, takes a second for a few dozen rules of 32
#: conditions, but grows steeply with a body's length (a body of 2,000: minutes): so both the
#: body and the whole file are bounded, before grounding.
RULE_BODY = Count("conditions in a rule's body", "QLANG_MAX_RULE_BODY", 32)
RULE_CONDITIONS = Count("conditions in a rules file", "QLANG_MAX_RULE_CONDITIONS", 2_000)
#: A knowledge file's lines, blank ones too (ConceptNet's assertions are 34 million): a stream of
#: empty lines is read at about a million a second, so its bytes alone would bound it at hours.
KNOWLEDGE_LINES = Count("lines in a knowledge file", "QLANG_MAX_KNOWLEDGE_LINES", 100_000_000)
#: A perceived scene's relations: every pair of objects may hold each relation asked about, so
#: `perceive --top-n 1000 --relation-threshold 0` over a page of 400 words made 2.4 million
#: (3.9 GB) where the default 20 objects make at most a few thousand.
RELATIONS = Count("relations in a perceived scene", "QLANG_MAX_RELATIONS", 200_000)
COUNTS = (RULE_BODY, RULE_CONDITIONS, KNOWLEDGE_LINES, RELATIONS)


def check_settings() -> None:
    """That every limit set in the environment is a number (`TooLarge` where one is not), so
    that a bad setting stops a command before it starts, not a batch part way."""
    for limit in (*LIMITS, *COUNTS):
        limit.bound()  # reads the setting


def read_stream(stream: BinaryIO, name: str, limit: Limit) -> bytes:
    """What is left of `stream` (a file, a pipe, a device), read in chunks; raises `TooLarge`
    once it passes `limit`, having held no more than the limit and a chunk."""
    most = limit.bytes
    chunks, size = [], 0
    while chunk := stream.read(min(CHUNK, most + 1 - size)):
        chunks.append(chunk)
        size += len(chunk)
        if size > most:
            raise limit.exceeded(name)
    return b"".join(chunks)


def read_file(handle: BinaryIO, name: str, limit: Limit) -> bytes:
    """What is left of the open file `name`, within `limit` (`read_stream`); a regular file is
    judged by its size before it is read."""
    if is_regular(handle) and os.fstat(handle.fileno()).st_size > limit.bytes:
        raise limit.exceeded(name)
    return read_stream(handle, name, limit)


def read(path: str | os.PathLike[str], limit: Limit) -> bytes:
    """The bytes of the file `path`, within `limit` (`read_file`).  Raises `TooLarge`, or
    OSError where it cannot be read."""
    with open(path, "rb") as handle:
        return read_file(handle, str(path), limit)


def is_regular(handle: IO[Any]) -> bool:
    """Whether an open file is a regular file (not a pipe, a device, a socket or a stream
    in memory)."""
    try:
        descriptor = handle.fileno()
    except io.UnsupportedOperation:
        return False
    return stat.S_ISREG(os.fstat(descriptor).st_mode)


def check_file(path: str | os.PathLike[str], limit: Limit) -> None:
    """That `path`, which a native library is about to open, is a regular file within `limit`;
    raises `TooLarge`, a QlangError for a file that is not regular, or OSError."""
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        raise error(QlangError, "input", "not a regular file", path=path)
    if status.st_size > limit.bytes:
        raise limit.exceeded(str(path))
