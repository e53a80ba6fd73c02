"""Fuzzing: mutated real programs and random bytes raise only `QlangError`; random bytes and JSON
never make a command exit 3 or print a traceback."""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import qlang
from qlang.commands.main import cli
from qlang.errors import QlangError
from qlang.paths import package_data
from qlang.syntax import SYNTAXES
from tests.conftest import DATA, MEMORY_CEILING, all_questions, memory_ceiling, qlangc_process, write
from tests.strategies import MUTATION_ALPHABET, mutated

_REAL = [q["semanticStr"] for q in list(all_questions().values())[:300]]
_SEEDS = [qlang.convert(text, syntax) for text in _REAL[:100] for syntax in ("flat", "nested", "code")]
_SEEDS += _REAL[:100]


def _survives(text: str, syntax: str | None) -> None:
    try:
        qlang.check(qlang.parse(text, syntax))
    except QlangError as exc:
        assert exc.diagnostics and exc.render()


@st.composite
def mutants(draw: st.DrawFn) -> str:
    """A real program with a few characters deleted, inserted, duplicated or swapped."""
    return draw(mutated(draw(st.sampled_from(_SEEDS))))


@settings(max_examples=600, deadline=None)
@given(mutants(), st.sampled_from([None, *SYNTAXES]))
def test_mutated_real_programs_never_crash(text: str, syntax: str | None) -> None:
    _survives(text, syntax)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.sampled_from([None, *SYNTAXES]))
def test_random_bytes_never_crash(data: bytes, syntax: str | None) -> None:
    _survives(data.decode("utf-8", errors="replace"), syntax)


@settings(max_examples=200, deadline=None)
@given(st.text(MUTATION_ALPHABET, max_size=120), st.sampled_from([None, *SYNTAXES]))
def test_random_token_soup_never_crashes(text: str, syntax: str | None) -> None:
    _survives(text, syntax)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    deep = "exist(" * 5000 + "scene()" + ")" * 5000
    _survives(deep, "nested")
    chain = " ".join(f"unique({i + 1}, {i})." for i in range(3000)) + " scene(0). end(3000)."
    _survives(chain, "flat")
    _survives("[" * 100_000, "gqa")


# ----- the command line: random bytes and random JSON never give exit 3 or a traceback -----------

def _no_crash(*args: str, input: bytes = b"") -> str:
    result = CliRunner().invoke(cli, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2) and "Traceback" not in result.stdout + result.stderr
    return result.stdout


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.sampled_from(["id", "program", "semantic", "operation",
                                                        "argument", "dependencies", "question",
                                                        "objects", "name", "x", "attributes"]),
                                       inner, max_size=4),
                     max_leaves=12)
_LINES = st.lists(st.binary(max_size=60) | _JSON.map(lambda v: json.dumps(v).encode()), max_size=4)
_EMMA = str(DATA / "gqa" / "scenes" / "emma_sceneGraphs.json")


@settings(max_examples=60, deadline=None)
@given(_LINES, st.sampled_from([["check"], ["compile", "--to", "code"], ["compile", "--to", "nested"]]))
def test_check_and_compile_survive_random_input(lines: list[bytes], command: list[str]) -> None:
    _no_crash(*command, "-", input=b"\n".join(lines))
    _no_crash(*command, "--jsonl", "-", input=b"\n".join(lines))


@settings(max_examples=30, deadline=None)
@given(_LINES, _JSON)
def test_solve_survives_random_programs_and_scenes(lines: list[bytes], scene: object) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scene.json"
        path.write_text(json.dumps(scene))
        _no_crash("solve", "--scene", str(path), "--timeout", "2", "-", input=b"\n".join(lines))
        _no_crash("solve", "--jsonl", "--scene", _EMMA, "--timeout", "2", "--program", "-",
                  input=b"\n".join(lines))


@settings(max_examples=30, deadline=None)
@given(_LINES, _LINES)
def test_eval_survives_random_translations_and_question_files(translations: list[bytes],
                                                                questions: list[bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = Path(folder) / "t.jsonl", Path(folder) / "q.json"
        paths[0].write_bytes(b"\n".join(translations))
        paths[1].write_bytes(b"\n".join(questions))
        _no_crash("eval", str(paths[0]), "--questions", str(paths[1]))
        _no_crash("eval", str(paths[0]), "--questions", str(DATA / "gqa" / "questions" /
                                                           "testdev_ood_head.json"))


def test_translate_batch_survives_hostile_lines_with_the_bundled_model(tmp_path: Path) -> None:
    """A handful only: the model is slow."""
    questions = tmp_path / "q.jsonl"
    questions.write_bytes(b"\n".join([b'{"id": 1, "question": "Is the cat red?"}', b"\xff\xfe",
                                      b'{"id": 2, "question": "\xe2\x80\xa8"}', b"[]",
                                      b'{"question": 5}']))
    out = _no_crash("translate", "--jsonl", str(questions), "--examples", "1", "--max-tokens", "16")
    assert len(out.splitlines()) == 5  # one result per line, the bad ones included


# ----- deep and huge JSON wherever a file is read; ASP scenes with unicode ---------------------

@st.composite
def _hostile_json(draw: st.DrawFn) -> str:
    """A JSON document at the edges: a value (a random one, an integer of up to 10,000 digits, a
    lone or paired surrogate escape) inside brackets nested up to 100,000 deep, closed or not."""
    core = draw(_JSON.map(json.dumps) | st.integers(1, 10_000).map(lambda n: "-" * (n % 2) + "7" * n)
                | st.sampled_from(['"\\ud800"', '"\\udc80 x"', '"\\ud83d\\ude00"', '"\\\\ud800"']))
    depth = draw(st.sampled_from([0, 1, 199, 200, 201, 5000, 100_000]))
    opener, closer = draw(st.sampled_from([("[", "]"), ('{"objects": ', "}"), ('[{"id": ', "}]")]))
    return opener * depth + core + closer * depth * draw(st.booleans())


@settings(max_examples=40, deadline=None)
@given(_hostile_json())
def test_every_reader_of_a_json_file_survives_deep_and_huge_json(document: str) -> None:
    from qlang.translate.examples import read_pool
    from qlang.vision.perceiving import read_concepts

    with tempfile.TemporaryDirectory() as folder:
        path, program = Path(folder) / "hostile.json", Path(folder) / "q.txt"
        path.write_text(document, encoding="utf-8")
        program.write_text("exist(select(scene(), cat))")
        _no_crash("check", str(path))
        _no_crash("check", "--jsonl", str(path))
        _no_crash("solve", "--program", str(program), "--scene", str(path), "--timeout", "2")
        _no_crash("eval", str(path), "--questions", str(path))
        for reader in (read_pool, read_concepts):
            with contextlib.suppress(QlangError):
                reader(str(path))


_ASP_PIECES = ["object(1).", "has_attr(1, class, cat).", "has_attr(1, name, ", '"', '").', "(", ")", ",",
               ".", " ", "\n", "\t", "\u00a0", "\u3000", "\u2028", "\x0b", "\x85", "\ufeff", "%", "%*",
               "*%", "\\", "\\n", "\\q", "\u00e9", "\U0001f600", "0", "007", "-", "a'", "X"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(_ASP_PIECES), max_size=12).map("".join))
def test_solve_survives_asp_scenes_with_unicode(scene: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path, program = Path(folder) / "scene.lp", Path(folder) / "q.txt"
        path.write_text(scene, encoding="utf-8")
        program.write_text("exist(select(scene(), cat))")
        _no_crash("solve", "--program", str(program), "--scene", str(path), "--timeout", "2")


# ----- files handed to native code: mutated photos and adapters, under the memory ceiling ---------

def _mutants(seeds: dict[str, bytes], folder: Path, count: int, rng: random.Random,
             within: tuple[int, int] = (0, 4096)) -> list[str]:
    """`count` files, each a seed cut short, or with a few bytes or a 32-bit word in the part
    `within` overwritten (where the headers are), named after its seed's suffix."""
    paths = []
    for index in range(count):
        name = rng.choice(sorted(seeds))
        data = bytearray(seeds[name])
        start, end = within[0], min(within[1], len(data) - 4)
        how = rng.choice(["cut", "bytes", "word"])
        if how == "cut":
            data = data[:rng.randrange(len(data))]
        elif how == "bytes":
            for _ in range(rng.randint(1, 8)):
                data[rng.randrange(start, end)] = rng.randrange(256)
        else:
            at = rng.randrange(start, end)
            data[at:at + 4] = rng.randrange(2**32).to_bytes(4, "little")
        path = folder / f"{index}-{how}-{name}"
        path.write_bytes(data)
        paths.append(str(path))
    return paths


def _each(script: str, paths: list[str]) -> list[str]:
    """What `script` says of each path, run in a process of its own under the memory ceiling: a
    crash below Python or an exception that is not a QlangError fails the test."""
    done = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True,
                          timeout=600, preexec_fn=memory_ceiling)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line.split()[0] for line in done.stdout.splitlines()]


_READ_PHOTOS = """
import sys
from qlang.errors import QlangError
from qlang.vision.image import read
for path in sys.argv[1:]:
    try:
        pixels = read(path)
        assert pixels.dtype.name == "uint8" and pixels.ndim == 3 and pixels.shape[2] == 3, path
        print("read", path)
    except QlangError:
        print("refused", path)
"""


def test_mutated_photos_are_read_or_refused(tmp_path: Path) -> None:
    import io

    import numpy as np
    from PIL import Image

    data = pytest.importorskip("skimage.data")
    seeds = {}
    for name in ("chelsea", "coffee", "camera"):
        photo = Image.fromarray(getattr(data, name)())
        for form, mode in (("png", "RGB"), ("jpeg", "RGB"), ("gif", "P"), ("tiff", "RGB"), ("webp", "RGB"),
                           ("bmp", "RGB"), ("png", "LA"), ("png", "RGBA"), ("jpeg", "CMYK"), ("tiff", "F"),
                           ("png", "I;16")):
            picture = (Image.fromarray(np.asarray(photo.convert("L")).astype(np.uint16) * 257)
                       if mode == "I;16" else photo.convert(mode))
            encoded = io.BytesIO()
            picture.save(encoded, form)
            seeds[f"{name}-{mode.replace(';', '')}.{form}"] = encoded.getvalue()
    said = _each(_READ_PHOTOS, _mutants(seeds, tmp_path, 600, random.Random(23), within=(0, 1024)))
    assert len(said) == 600 and {"read", "refused"} == set(said)


_LOAD_ADAPTERS = """
import sys
from qlang.errors import QlangError
from qlang.translate.backends import Request
from qlang.translate.backends.llama import LlamaCppBackend
for path in sys.argv[1:]:
    try:
        backend = LlamaCppBackend(lora=path, n_ctx=256)
        backend.generate(Request((("user", "Is the cat red?"),), "", max_tokens=2))
        print("loaded", path)
    except QlangError:
        print("refused", path)
"""


def test_mutated_adapters_never_crash_llama_cpp(tmp_path: Path) -> None:
    """The shipped adapter cut short or overwritten, in its header (the first 28,768 bytes) and
    in its tensors' data: llama.cpp loads it or qlang refuses it, and nothing crashes."""
    from qlang.translate.models import ADAPTER

    seeds = {"adapter.gguf": ADAPTER.read_bytes()}
    rng = random.Random(23)
    paths = _mutants(seeds, tmp_path, 16, rng, within=(0, 28_768))
    (tmp_path / "data").mkdir()
    paths += _mutants(seeds, tmp_path / "data", 4, rng, within=(28_768, len(seeds["adapter.gguf"])))
    said = _each(_LOAD_ADAPTERS, paths)
    assert len(said) == 20 and {"loaded", "refused"} == set(said)


# ----- under a memory ceiling; special files for every command that reads a file ---------------

@pytest.fixture(autouse=True, scope="module")
def _memory_ceiling() -> Iterator[None]:
    """The fuzz in this process may map at most `MEMORY_CEILING` bytes more than the tests had
    mapped before it (its processes: `memory_ceiling`), so that an unbounded read fails a test
    instead of the machine."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    ceiling = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize() + MEMORY_CEILING
    resource.setrlimit(resource.RLIMIT_AS, (ceiling if hard == resource.RLIM_INFINITY else min(ceiling, hard),
                                            hard))
    yield
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


_QUESTIONS = str(DATA / "gqa" / "questions" / "testdev_ood_head.json")
#: Every command that reads a file, with SPECIAL in the place of one file (P: a program, T:
#: translations, IMG: a photo, OUT: an output folder).
_READERS = [
    ["check", "SPECIAL"], ["compile", "--to", "code", "SPECIAL"], ["fmt", "SPECIAL"], ["lower", "SPECIAL"],
    ["check", "--jsonl", "SPECIAL"], ["check", "--jsonl", "T", "--output", "SPECIAL"],
    ["solve", "--program", "SPECIAL", "--scene", _EMMA], ["solve", "--program", "P", "--scene", "SPECIAL"],
    ["solve", "--jsonl", "--program", "SPECIAL", "--scene", _EMMA],
    ["explain", "--program", "SPECIAL", "--scene", _EMMA],
    ["explain", "--program", "P", "--scene", "SPECIAL"],
    ["solve", "--program", "P", "--scene", _EMMA, "--rules", "SPECIAL"],
    ["solve", "--program", "P", "--scene", _EMMA, "--kb", "SPECIAL"],
    ["translate", "--translator", "small", "--jsonl", "SPECIAL"],
    ["ask", "Is there a cat?", "--scene", "SPECIAL"],
    ["eval", "SPECIAL", "--questions", _QUESTIONS], ["eval", "T", "--questions", "SPECIAL"],
    ["eval", "T", "--questions", _QUESTIONS, "--scenes", "SPECIAL"],
    ["eval", "T", "--questions", _QUESTIONS, "--unseen", "SPECIAL"],
    ["oracle", "SPECIAL", "--scenes", _EMMA], ["oracle", _QUESTIONS, "--scenes", "SPECIAL"],
    ["experiment", "prompts", "--questions", "SPECIAL", "--out", "OUT"],
    ["data", "SPECIAL", "--out", "OUT"], ["data", _QUESTIONS, "--exclude", "SPECIAL", "--out", "OUT"],
    ["train", "--data", "SPECIAL", "--out", "OUT"],
    ["calibrate", str(package_data("models", "small-qlang")), "--dev", "SPECIAL", "--fallback", "T"],
    ["perceive", "SPECIAL"], ["perceive", "IMG", "--program", "SPECIAL"],
    ["perceive", "IMG", "--concepts", "SPECIAL"],
]
#: each command's first way of reading a file
_FIRSTS = [args for n, args in enumerate(_READERS) if all(args[0] != other[0] for other in _READERS[:n])]
#: Small limits, so that an endless file ends soon (`tests/test_hostile_io.py` tries the defaults).
_SMALL = {f"QLANG_MAX_{kind}_MB": "8" for kind in ("PROGRAM", "SCENE", "QUESTIONS", "OUTPUT")}


def _slot(args: list[str]) -> str:
    return f"{args[0]} {args[args.index('SPECIAL') - 1]}"


@pytest.mark.parametrize("args", _READERS, ids=_slot)
def test_every_reader_of_a_file_survives_an_endless_device(args: list[str], tmp_path: Path) -> None:
    _survives_special(args, "/dev/zero", tmp_path)


@pytest.mark.parametrize("special", ["/dev/urandom", "/dev/null", "/dev/full", "fifo"])
@pytest.mark.parametrize("args", _FIRSTS, ids=_slot)
def test_every_command_survives_special_files(args: list[str], special: str, tmp_path: Path) -> None:
    if special != "fifo":
        _survives_special(args, special, tmp_path)
        return
    fifo = tmp_path / "fifo"  # a named pipe a writer fills without end, until its reader is gone
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat /dev/zero > '{fifo}'"], stderr=subprocess.DEVNULL)
    try:
        _survives_special(args, str(fifo), tmp_path)
    finally:
        writer.kill()
        writer.wait(10)


def _survives_special(args: list[str], special: str, tmp_path: Path) -> None:
    """The command with `special` in the place of SPECIAL, in a process of its own under the
    memory ceiling and a hang guard: exit 0, 1 or 2, and never an internal error."""
    from PIL import Image

    program = "exist(select(scene(), cat))"
    Image.new("RGB", (32, 32), "white").save(tmp_path / "photo.png")
    files = {"SPECIAL": special, "OUT": str(tmp_path / "out"), "IMG": str(tmp_path / "photo.png"),
             "P": write(tmp_path / "p.txt", program),
             "T": write(tmp_path / "t.jsonl", json.dumps({"id": "1", "program": program}))}
    code, said = qlangc_process(*(files.get(a, a) for a in args), env=_SMALL, timeout=120)
    assert code in (0, 1, 2), said
    assert "internal error" not in said and "Traceback" not in said, said
