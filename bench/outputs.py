"""Every command's output on the shared GQA data, recorded for a byte-for-byte before/after.

    .venv/bin/python bench/outputs.py OUT [--pythonpath DIR] [--python PY | --qlangc PATH]
    .venv/bin/python bench/outputs.py --compare DIR_A DIR_B

A restructuring must leave behaviour unchanged: this runs a fixed list of `qlangc`
commands (compile, check, fmt, lower, ops, grammar, solve, explain, translate, ask, eval,
oracle, data, perceive) on the real files under ``../shared/data`` and writes one file per
command into OUT, named after the command (stable across runs): the command line, its exit
status, its standard output and error, and the files it wrote.  ``--compare`` reports every
difference between two such folders and exits 1 if there is any.

Each command runs as its own process, in the checkout's root (``examples/`` and
``../shared/data`` are relative to it), one after another.  ``--pythonpath DIR`` runs another
checkout (a ``git worktree`` of an older commit): ``PYTHONPATH=DIR``, which comes before the
venv's editable install, and DIR as the working directory.  qlangc is started through the entry
point that checkout's own ``pyproject.toml`` names, because a restructuring may move it (the
venv's console script names only the newest); ``--qlangc PATH`` runs an executable instead.
``QLANG_NLTK_DATA`` is set to this repository's ``.cache/nltk_data`` (WordNet, for eval and
oracle) unless already set, so that both checkouts read the same WordNet.

The inputs the commands read (JSON lines and single programs cut from the shared files, a
small weighted scene) are written to OUT/inputs first; they depend only on the shared data.

Masked, because they differ from run to run whatever the code (nothing else is touched):
- the absolute paths of OUT/inputs and of scikit-image's photographs, shown as ``<inputs>`` and
  ``<photos>`` (command lines and error messages name their files);
- timings: the ``time:`` line of ``ask`` (standard output) and ``perceive`` (standard error),
  the "... loaded in N s" line of ``translate --jsonl``, the figures of eval's "seconds per
  question" line, and the value of every ``"seconds"``, ``"median_s"`` and ``"p90_s"`` key
  (``translate`` results, ``eval --json``'s latency), replaced by ``<masked>``, the key kept.
  Progress bars are not shown: standard error is not a terminal.
PNG files a command writes are recorded as their SHA-256.  Two runs on the same commit give
identical folders.  Without the vision extra the perceive commands are recorded as skipped.
Each command's wall time goes to standard error (about 3 minutes in all on the idle 2-core
machine, the model loads, eval and oracle most of it; llama.cpp slows most on busy cores).
"""

from __future__ import annotations

import argparse
import csv
import difflib
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: the shared data, as the commands name it (relative to the checkout they run in)
DATA = "../shared/data"
QUESTIONS = f"{DATA}/gqa/questions"
SCENES = f"{DATA}/gqa/scenes"
INPUTS = "inputs"
MASKED = "<masked>"
#: lines of a difference shown per file by --compare
DIFF_LINES = 60


@dataclass(frozen=True)
class Command:
    """One qlangc run: `args` may name ``{in}`` (the inputs folder); `stdin`: the name of an
    earlier command whose standard output this one reads; `writes` are paths in the inputs
    folder it writes (a folder: all its files), recorded after its output; `needs`: what is
    missing, so it is not run."""

    name: str
    args: tuple[str, ...]
    stdin: str | None = None
    writes: tuple[str, ...] = ()
    needs: str | None = None


@dataclass
class Inputs:
    """The files the commands read, written once into `root` from the shared data."""

    root: Path
    data: Path
    photos: Path | None = None
    made: list[str] = field(default_factory=list)

    def write(self, name: str, content: str | bytes) -> None:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        self.made.append(name)


def jsonl(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def make_inputs(inputs: Inputs) -> None:
    """Gold programs, GPT-4o outputs, emma questions, GS-VQA scenes and programs, error cases."""
    data = inputs.data
    gold: list[dict[str, object]] = []
    for name in ("testdev_ood_head.json", "val_balanced_tail.json"):
        questions = json.loads((data / "gqa/questions" / name).read_text())
        gold += [{"id": qid, **q} for qid, q in questions.items()]
    inputs.write("gold.jsonl", jsonl([{"id": q["id"], "semantic": q["semantic"]} for q in gold]))
    inputs.write("gold-str.jsonl", jsonl([{"id": q["id"], "program": q["semanticStr"]} for q in gold]))
    with open(data / "llm_outputs/gpt4o_nested_val_eval.csv", newline="") as handle:
        raw = [r for r in csv.DictReader(handle) if r["agent"] == "gpt-4o_raw"]
    inputs.write("gpt4o.jsonl", jsonl([{"id": r["qid"], "program": r["answer"]} for r in raw]))
    emma = json.loads((data / "gqa/scenes/emma_questions.json").read_text())
    inputs.write("emma.jsonl", jsonl([{"id": qid, **q} for qid, q in emma.items()]))
    inputs.write("shorts.txt", next(r["answer"] for r in raw if r["qid"] == "041477").strip() + "\n")
    inputs.write("logo.gqa-str", emma["041438"]["semanticStr"] + "\n")
    inputs.write("shelf.json", json.dumps(emma["142457"]["semantic"], indent=1) + "\n")
    for path in sorted((data / "asp/encoded_questions").glob("*.lp")):
        scene, rest = path.read_text().split("% ------ question encoding ------")
        program = rest.split("% ------ NL question ------")[0]
        inputs.write(f"gsvqa/{path.stem}.lp", scene)
        inputs.write(f"gsvqa/{path.stem}.flat", program.strip() + "\n")
    inputs.write("weighted.json", json.dumps(WEIGHTED, indent=1) + "\n")
    for name, text in ERRORS.items():
        inputs.write(name, text)
    inputs.write("mixed.jsonl", MIXED)
    inputs.write("cup-on-table.txt", "verify_rel(unique(select(scene(), cup)), table, on, subject)\n")
    inputs.write("weighted-green.txt", "exist(filter(select(scene(), cup), color, green))\n")
    inputs.write("weighted-color.txt", "query(unique(select(scene(), table)), color)\n")
    (inputs.root / "written").mkdir()  # where commands write their files


#: An uncertain scene: two cups, each unlikely to be green; a table likely white, maybe brown.
WEIGHTED = json.loads((REPO / "tests" / "fixtures" / "weighted_scene.json").read_text())

#: Programs with errors: the error output is behaviour too.
ERRORS: dict[str, str | bytes] = {
    "typo.txt": "query(unique(select(scene(), dihs)), colour)\n",
    "unclosed.txt": "query(unique(select(scene(), dish), color)\n",
    "wrong-value.txt": "exist(filter(select(scene(), table), color, wooden))\n",
    "dangling.flat": "scene(0). select(1, 0, dish). query(3, 2, name). end(3).\n",
    "bad-operation.json": '[{"operation": "fly", "dependencies": [], "argument": "dish"}]\n',
    "code-typo.code": "var1 = unique(select(scene(), dihs))\nquery(var1, name)\n",
    "not-utf8.txt": b"query(unique(select(scene(), \xff)), name)\n",
    "empty.txt": "",
}

#: A batch with every kind of bad line among good ones.
MIXED = (
    '{"id": "ok", "program": "exist(select(scene(), cat))"}\n'
    "not json\n"
    '{"program": "exist(select(scene(), dog))"}\n'
    '{"id": "typo", "program": "exist(select(scene(), dgo))"}\n'
    '{"id": "unclosed", "program": "exist(select(scene(), dog)"}\n'
    '{"id": "gqa", "semantic": [{"operation": "select", "dependencies": [], "argument": "dog"}, '
    '{"operation": "exist", "dependencies": [0], "argument": "?"}]}\n'
    '{"id": "bad-semantic", "semantic": 3}\n'
    "\n"
    '{"id": "nothing"}\n'
    '{"id": "ok", "program": "exist(select(scene(), cat))"}\n'
)

SYNTAXES = ("code", "flat", "gqa", "gqa-str", "nested")
BATCH = ("--workers", "2")


def commands(inputs: Inputs) -> list[Command]:
    """The fixed list; a name is the file its output goes to."""
    c: list[Command] = [
        Command("help", ("--help",)),
        Command("compile-help", ("compile", "--help")),
        Command("usage-error", ("compile", "examples/truck_tire.json")),
        Command("ops", ("ops",)),
    ]
    programs = {"truck": "examples/truck_tire.json", "shorts": "{in}/shorts.txt",
                "logo": "{in}/logo.gqa-str", "shelf": "{in}/shelf.json",
                "gsvqa": "{in}/gsvqa/03127831.flat"}
    for name, path in programs.items():
        c += [Command(f"compile-{name}-to-{to}", ("compile", "--to", to, path)) for to in SYNTAXES]
        c += [Command(f"check-{name}", ("check", path)), Command(f"fmt-{name}", ("fmt", path)),
              Command(f"lower-{name}", ("lower", path))]
    c += [Command("compile-code-to-nested", ("compile", "--from", "code", "--to", "nested", "-"),
                  stdin="compile-truck-to-code"),
          Command("fmt-code", ("fmt", "--from", "code", "-"), stdin="compile-truck-to-code")]
    for name in ERRORS:
        stem = Path(name).stem
        c += [Command(f"check-error-{stem}", ("check", f"{{in}}/{name}")),
              Command(f"compile-error-{stem}", ("compile", "--to", "flat", f"{{in}}/{name}"))]
    c += [Command("check-open-vocabulary-typo", ("check", "--open-vocabulary", "{in}/typo.txt")),
          Command("compile-open-vocabulary-typo",
                  ("compile", "--open-vocabulary", "--to", "code", "{in}/typo.txt")),
          Command("lower-error-typo", ("lower", "{in}/typo.txt"))]
    c += _batches()
    c += [Command(f"grammar-{syntax}-{form}", ("grammar", "--syntax", syntax, "--format", form))
          for syntax in ("code", "flat", "nested") for form in ("gbnf", "lark")]
    c += _solving(inputs)
    c += _translating()
    c += _evaluating()
    c += _perceiving(inputs)
    return c


def _batches() -> list[Command]:
    c = [Command(f"compile-jsonl-gold-to-{to}", ("compile", "--jsonl", "--to", to, *BATCH, "{in}/gold.jsonl"))
         for to in SYNTAXES]
    c += [Command("compile-jsonl-gold-str-to-nested", ("compile", "--jsonl", "--from", "gqa-str", "--to",
                                                       "nested", *BATCH, "{in}/gold-str.jsonl")),
          Command("compile-jsonl-nested-to-code", ("compile", "--jsonl", "--from", "nested", "--to", "code",
                                                   *BATCH, "-"), stdin="compile-jsonl-gold-to-nested"),
          Command("compile-jsonl-code-to-flat", ("compile", "--jsonl", "--from", "code", "--to", "flat",
                                                 *BATCH, "-"), stdin="compile-jsonl-nested-to-code"),
          Command("compile-jsonl-flat-to-gqa", ("compile", "--jsonl", "--from", "flat", "--to", "gqa",
                                                *BATCH, "-"), stdin="compile-jsonl-code-to-flat"),
          Command("check-jsonl-gold", ("check", "--jsonl", *BATCH, "{in}/gold.jsonl")),
          Command("check-jsonl-gold-str", ("check", "--jsonl", *BATCH, "{in}/gold-str.jsonl")),
          Command("check-jsonl-gpt4o", ("check", "--jsonl", *BATCH, "{in}/gpt4o.jsonl")),
          Command("check-jsonl-gpt4o-open-vocabulary",
                  ("check", "--jsonl", "--open-vocabulary", *BATCH, "{in}/gpt4o.jsonl")),
          Command("compile-jsonl-gpt4o-to-flat", ("compile", "--jsonl", "--to", "flat", *BATCH,
                                                  "{in}/gpt4o.jsonl")),
          Command("check-jsonl-mixed", ("check", "--jsonl", "--workers", "1", "{in}/mixed.jsonl")),
          Command("compile-jsonl-mixed", ("compile", "--jsonl", "--to", "code", "--workers", "1",
                                          "{in}/mixed.jsonl")),
          Command("compile-jsonl-output", ("compile", "--jsonl", "--to", "nested", "--workers", "1",
                                           "--output", "{in}/written/mixed.jsonl", "{in}/mixed.jsonl"),
                  writes=("written/mixed.jsonl",))]
    return c


def _solving(inputs: Inputs) -> list[Command]:
    emma = ("solve", "--jsonl", "--program", "{in}/emma.jsonl", "--scene", f"{SCENES}/emma_sceneGraphs.json",
            "--workers", "1")
    scene = ("--scene", "examples/scene_2353884.json")
    weighted = ("--scene", "{in}/weighted.json")
    c = [Command("solve-jsonl-emma", emma),
         Command("solve-jsonl-emma-top3", (*emma, "--top-k", "3")),
         Command("solve-jsonl-emma-top3-distinct", (*emma, "--top-k", "3", "--distinct")),
         Command("solve-jsonl-emma-thesis", (*emma, "--semantics", "thesis")),
         Command("solve-shorts", ("solve", "--program", "{in}/shorts.txt", *scene)),
         Command("solve-shorts-top3", ("solve", "--program", "{in}/shorts.txt", *scene, "--top-k", "3")),
         Command("solve-shorts-thesis", ("solve", "--program", "{in}/shorts.txt", *scene,
                                         "--semantics", "thesis")),
         Command("solve-logo", ("solve", "--program", "{in}/logo.gqa-str", *scene)),
         Command("solve-shelf", ("solve", "--program", "{in}/shelf.json", "--scene",
                                 f"{SCENES}/emma_sceneGraphs.json", "--image-id", "2320168")),
         Command("solve-no-image-id", ("solve", "--program", "{in}/shelf.json", "--scene",
                                       f"{SCENES}/emma_sceneGraphs.json")),
         Command("solve-no-answer", ("solve", "--program", "{in}/gsvqa/03127831.flat", *scene)),
         Command("solve-error-typo", ("solve", "--program", "{in}/typo.txt", *scene)),
         Command("solve-bad-scene", ("solve", "--program", "{in}/shorts.txt", "--scene", "{in}/shorts.txt")),
         Command("explain-shorts", ("explain", "--program", "{in}/shorts.txt", *scene)),
         Command("explain-shorts-json", ("explain", "--program", "{in}/shorts.txt", *scene, "--json")),
         Command("explain-logo", ("explain", "--program", "{in}/logo.gqa-str", *scene)),
         Command("explain-shorts-other-answer", ("explain", "--program", "{in}/shorts.txt", *scene,
                                                 "--answer", "woman"))]
    for name in sorted(n for n in inputs.made if n.startswith("gsvqa/") and n.endswith(".flat")):
        stem = Path(name).stem
        c.append(Command(f"solve-gsvqa-{stem}", ("solve", "--program", f"{{in}}/{name}",
                                                 "--scene", f"{{in}}/gsvqa/{stem}.lp", "--top-k", "3")))
    verify = ("--program", "{in}/cup-on-table.txt", *weighted)
    green = ("--program", "{in}/weighted-green.txt", *weighted)
    color = ("--program", "{in}/weighted-color.txt", *weighted)
    c += [Command("solve-weighted-green-top3", ("solve", *green, "--top-k", "3")),
          Command("solve-weighted-green-top3-distinct", ("solve", *green, "--top-k", "3", "--distinct")),
          Command("solve-weighted-color-top5", ("solve", *color, "--top-k", "5")),
          Command("solve-weighted-color-top3-thesis", ("solve", *color, "--top-k", "3",
                                                       "--semantics", "thesis")),
          Command("solve-weighted-verify-top3", ("solve", *verify, "--top-k", "3")),
          Command("explain-weighted-green", ("explain", *green)),
          Command("explain-weighted-green-no-json", ("explain", *green, "--answer", "no", "--json"))]
    return c


def _translating() -> list[Command]:
    dev = ("--jsonl", f"{QUESTIONS}/testdev_ood_head.json", "--limit", "20")
    return [
        Command("translate-jsonl-dev20-cascade", ("translate", *dev)),
        Command("translate-jsonl-dev20-small", ("translate", *dev, "--translator", "small")),
        # the first 20 all go to the small parser; at this threshold 2 of the first 5 go on to the
        # fine-tuned model (llama.cpp: the slowest commands here, minutes when the cores are busy)
        Command("translate-jsonl-dev5-cascade-0.9999", ("translate", *dev[:2], "--limit", "5",
                                                        "--cascade-threshold", "0.9999")),
        Command("translate-jsonl-emma-small", ("translate", "--jsonl", "{in}/emma.jsonl", "--translator",
                                               "small", "--output", "{in}/written/emma-small.jsonl"),
                writes=("written/emma-small.jsonl",)),
        Command("translate-holding", ("translate", "What is the man holding?")),
        Command("translate-cup-verbose", ("translate", "Is the cup red?", "-v")),
        Command("translate-cup-finetuned", ("translate", "Is the cup red?", "--translator", "finetuned")),
        Command("translate-green-car-small-flat", ("translate", "Is there a green car left of the man?",
                                                   "--translator", "small", "--syntax", "flat")),
        Command("translate-empty", ("translate", " ")),
        Command("ask-shorts", ("ask", "Who wears shorts?", "--scene", "examples/scene_2353884.json")),
    ]


def _evaluating() -> list[Command]:
    gold = ("--questions", f"{QUESTIONS}/val_balanced_tail.json",
            "--questions", f"{SCENES}/emma_questions.json")
    judged = (*gold, "--scenes", f"{SCENES}/emma_sceneGraphs.json", "--workers", "1")
    small = ("eval", "{in}/written/emma-small.jsonl", "--questions", f"{SCENES}/emma_questions.json",
             "--scenes", f"{SCENES}/emma_sceneGraphs.json", "--workers", "1")
    oracle = ("oracle", f"{SCENES}/emma_questions.json", "--scenes", f"{SCENES}/emma_sceneGraphs.json")
    return [
        Command("eval-gpt4o", ("eval", "{in}/gpt4o.jsonl", *judged)),
        Command("eval-gpt4o-json", ("eval", "{in}/gpt4o.jsonl", *judged, "--json")),
        Command("eval-gpt4o-qlang-strict", ("eval", "{in}/gpt4o.jsonl", *judged, "--semantics", "qlang",
                                            "--reader", "strict")),
        Command("eval-gpt4o-unseen", ("eval", "{in}/gpt4o.jsonl", *gold, "--workers", "1", "--unseen",
                                      f"{QUESTIONS}/testdev_ood_head.json")),
        Command("eval-emma-small", small),
        Command("eval-emma-small-json", (*small, "--json")),
        Command("eval-not-questions", ("eval", "{in}/gpt4o.jsonl", "--questions", "{in}/gpt4o.jsonl")),
        Command("oracle-emma", oracle),
        Command("oracle-emma-wordnet-qlang", (*oracle, "--mode", "wordnet", "--semantics", "qlang")),
        Command("data-augment1", ("data", "--out", "{in}/written/data", "--augment", "1"),
                writes=("written/data",)),
    ]


def _perceiving(inputs: Inputs) -> list[Command]:
    if inputs.photos is None:
        return [Command("perceive-coffee", (), needs="the vision extra (scikit-image's photos)")]
    coffee = str(inputs.photos / "coffee.png")
    return [
        Command("perceive-coffee", ("perceive", coffee, "--question", "Is the cup on the table?",
                                    "-o", "{in}/written/coffee.json", "--draw", "{in}/written/coffee.png"),
                writes=("written/coffee.json", "written/coffee.png")),
        Command("perceive-chelsea-program", ("perceive", str(inputs.photos / "chelsea.png"),
                                             "--program", "{in}/cup-on-table.txt")),
        Command("solve-perceived-coffee-top3", ("solve", "--program", "{in}/cup-on-table.txt",
                                                "--scene", "{in}/written/coffee.json", "--top-k", "3")),
    ]


_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_TIME_LINE = re.compile(r"^(time:\s+).*$", re.MULTILINE)
_LOADED = re.compile(rf"( loaded in ){_NUMBER} s$", re.MULTILINE)
_LATENCY_LINE = re.compile(rf"^(seconds per question: median ){_NUMBER}(, p90 ){_NUMBER}$", re.MULTILINE)
_SECONDS = re.compile(rf'("(?:seconds|median_s|p90_s)": ){_NUMBER}')


def mask(text: str, inputs: Path, photos: Path | None) -> str:
    """What differs between runs whatever the code: paths of this run's folders and timings."""
    text = text.replace(str(inputs), f"<{INPUTS}>")
    if photos is not None:
        text = text.replace(str(photos), "<photos>")
    text = _TIME_LINE.sub(rf"\g<1>{MASKED}", text)
    text = _LOADED.sub(rf"\g<1>{MASKED} s", text)
    text = _LATENCY_LINE.sub(rf"\g<1>{MASKED}\g<2>{MASKED}", text)
    return _SECONDS.sub(rf'\g<1>"{MASKED}"', text)


@dataclass(frozen=True)
class Runner:
    """How to start qlangc: the command prefix, its environment and working directory."""

    prefix: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    python: str

    def run(self, args: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*self.prefix, *args], input=stdin, capture_output=True, env=self.env,
                              cwd=self.cwd, check=False)


def runner(python: str, pythonpath: str | None, qlangc: str | None) -> Runner:
    checkout = Path(pythonpath).resolve() if pythonpath else REPO
    env = dict(os.environ, COLUMNS="100")
    if pythonpath:
        env["PYTHONPATH"] = str(checkout)
    wordnet = REPO / ".cache" / "nltk_data"
    if "QLANG_NLTK_DATA" not in env and wordnet.is_dir():
        env["QLANG_NLTK_DATA"] = str(wordnet)
    if qlangc is not None:
        return Runner((str(Path(qlangc).resolve()),), env, checkout, python)
    entry = tomllib.loads((checkout / "pyproject.toml").read_text())["project"]["scripts"]["qlangc"]
    module, function = entry.split(":")
    launch = f"import sys; sys.argv[0] = 'qlangc'; from {module} import {function}; sys.exit({function}())"
    return Runner((python, "-c", launch), env, checkout, python)


def photo_folder(run: Runner) -> Path | None:
    """scikit-image's photographs, where the vision extra is installed."""
    probe = subprocess.run([run.python, "-c", "import skimage; print(skimage.data_dir)"],
                           capture_output=True, env=run.env, cwd=run.cwd, check=False, text=True)
    folder = Path(probe.stdout.strip())
    return folder if probe.returncode == 0 and (folder / "coffee.png").is_file() else None


def record(command: Command, run: Runner, inputs: Path, photos: Path | None,
           outputs: dict[str, bytes]) -> str:
    """Run one command; its output file's text (the raw standard output is kept in `outputs`)."""
    args = [a.replace("{in}", str(inputs)) for a in command.args]
    shown = mask(shlex.join(["qlangc", *args]), inputs, photos)
    if command.needs is not None:
        return f"$ {command.name}\nskipped: needs {command.needs}\n"
    done = run.run(args, outputs[command.stdin] if command.stdin else b"")
    outputs[command.name] = done.stdout
    parts = [f"$ {shown}" + (f" < ({command.stdin})" if command.stdin else ""), f"exit: {done.returncode}",
             "--- stdout", _text(done.stdout), "--- stderr", _text(done.stderr)]
    for written in command.writes:
        path = inputs / written
        for file in sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]:
            parts += [f"--- file <{INPUTS}>/{file.relative_to(inputs)}", _file_text(file)]
    return "\n".join(mask(p, inputs, photos) for p in parts) + "\n"


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="backslashreplace")


def _file_text(path: Path) -> str:
    if not path.exists():
        return "(not written)"
    data = path.read_bytes()
    return f"sha256 {hashlib.sha256(data).hexdigest()}" if path.suffix == ".png" else _text(data)


def capture(out: Path, run: Runner, only: list[str]) -> None:
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} is not empty: give a new folder")
    inputs = Inputs((out / INPUTS).resolve(), (run.cwd / DATA).resolve(), photo_folder(run))
    if not inputs.data.is_dir():
        raise SystemExit(f"no shared data at {inputs.data}")
    make_inputs(inputs)
    outputs: dict[str, bytes] = {}
    started = time.perf_counter()
    for command in commands(inputs):
        if only and not any(command.name.startswith(prefix) for prefix in only):
            continue
        began = time.perf_counter()
        text = record(command, run, inputs.root, inputs.photos, outputs)
        (out / f"{command.name}.txt").write_text(text, encoding="utf-8")
        print(f"{time.perf_counter() - began:6.1f} s  {command.name}", file=sys.stderr)
    print(f"{time.perf_counter() - started:.0f} s in all", file=sys.stderr)


def _outputs(root: Path) -> set[str]:
    """The output files of a folder (the inputs are made from the shared data, not by qlang)."""
    return {str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and p.relative_to(root).parts[0] != INPUTS}


def compare(a: Path, b: Path) -> bool:
    """Print every difference between two output folders; True if there is none."""
    left, right = _outputs(a), _outputs(b)
    same = True
    for name in sorted(left ^ right):
        print(f"only in {a if name in left else b}: {name}")
        same = False
    for name in sorted(left & right):
        old, new = (a / name).read_bytes(), (b / name).read_bytes()
        if old == new:
            continue
        same = False
        diff = list(difflib.unified_diff(_text(old).splitlines(), _text(new).splitlines(),
                                         str(a / name), str(b / name), lineterm=""))
        print("\n".join(diff[:DIFF_LINES]))
        if len(diff) > DIFF_LINES:
            print(f"... {len(diff) - DIFF_LINES} more diff lines")
    print(f"{len(left & right)} outputs compared: " + ("identical" if same else "DIFFERENT"))
    return same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", type=Path, help="Folder to write the outputs to (new or empty).")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("DIR_A", "DIR_B"),
                        help="Report every difference between two output folders (exit 1 if any).")
    parser.add_argument("--pythonpath", help="Run the qlang of this checkout (PYTHONPATH=DIR, run in DIR).")
    parser.add_argument("--python", default=str(REPO / ".venv" / "bin" / "python"),
                        help="Interpreter that starts the checkout's qlangc entry point.")
    parser.add_argument("--qlangc", help="Run this qlangc executable instead of the checkout's entry point.")
    parser.add_argument("--only", action="append", default=[], metavar="PREFIX",
                        help="Only the commands whose name starts so (repeatable; for debugging).")
    args = parser.parse_args()
    if args.compare:
        sys.exit(0 if compare(*args.compare) else 1)
    if args.out is None:
        parser.error("give OUT, or --compare DIR_A DIR_B")
    args.out.mkdir(parents=True, exist_ok=True)
    capture(args.out, runner(args.python, args.pythonpath, args.qlangc), args.only)


if __name__ == "__main__":
    main()
