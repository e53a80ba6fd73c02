"""What several test modules share (no test module imports another): the real GQA data, in
../shared/data (see its README) unless QLANG_DATA names another folder; scenes and questions
made from it or for the tests; qlangc run in-process, or killed part way."""

from __future__ import annotations

import json
import os
import queue
import re
import resource
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

from qlang.api import parse
from qlang.asp_names import from_term, to_term
from qlang.commands.main import cli
from qlang.interpret import Scene
from qlang.ir import Node, op
from qlang.ontology import load
from qlang.paths import SHARED_DATA
from qlang.signatures import END, SIGNATURES

DATA = SHARED_DATA
QUESTION_FILES = ("testdev_ood_head.json", "val_balanced_tail.json")
SCENES = DATA / "gqa" / "scenes"
EMMA = str(SCENES / "emma_sceneGraphs.json")
#: the real ASP material: the 50 yes/no examples and the GS-VQA encodings
ASP = DATA / "asp"
FIXTURES = Path(__file__).parent / "fixtures"

# Hypothesis, for every test module (registered here, before any module's @settings inherits
# from it): `qlang`, the suite's, draws the same examples on every run, and keeps no database
# that would replay one run's failures in the next, so the suite gives the same verdict every
# time; `explore` draws afresh and keeps its failures in .hypothesis/, to hunt for new cases
# (`HYPOTHESIS_PROFILE=explore pytest ...` or `pytest --hypothesis-profile explore ...`).
# 150 examples unless a test says otherwise; no deadline, as the solver's time varies with load.
settings.register_profile("qlang", max_examples=150, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", settings.get_profile("qlang"), derandomize=False,
                          database=settings.get_profile("default").database)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "qlang"))


@cache
def questions(name: str) -> dict[str, dict]:
    return json.loads((DATA / "gqa" / "questions" / name).read_text())


@cache
def all_questions() -> dict[str, dict]:
    """The 3,091 real GQA questions with gold programs, keyed by question id."""
    merged: dict[str, dict] = {}
    for name in QUESTION_FILES:
        merged.update(questions(name))
    return merged


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"the shared GQA data is missing: {DATA}")
    return DATA


#: `qlangc` with the batch's results cut off after `sys.argv[1]`: the process kills itself (as
#: `kill -9` would) when asked for the next one, which is once those before are written.
_KILLED = """
import os, signal, sys
from itertools import islice
from qlang import executors
from qlang.commands.main import main

after = int(sys.argv.pop(1))
for executor in (executors.Local, executors.Ray):
    def map(self, *args, _map=executor.map, **kwargs):
        yield from islice(_map(self, *args, **kwargs), after)
        os.kill(os.getpid(), signal.SIGKILL)
    executor.map = map
main()
"""


def killed_qlangc(after: int) -> list[str]:
    """The command line of a `qlangc` killed part way through a batch, once it has written
    `after` results: a test of what a killed run leaves chooses the moment instead of racing
    the run to it (which a busy or a fast machine can lose)."""
    return [sys.executable, "-c", _KILLED, str(after)]


#: `qlangc` in a process of its own
QLANGC = [sys.executable, "-c", "from qlang.commands.main import main; main()"]


@contextmanager
def serving(args: Sequence[str], log: Path, env: dict[str, str] | None = None,
            ) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`qlangc serve --port 0 ARGS` on loopback, its standard error in `log`: its address once it
    prints it (within 3 minutes), then stopped, which must end it cleanly (exit 0, no traceback)."""
    with log.open("wb") as errors:
        process = subprocess.Popen([*QLANGC, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                   stderr=errors, stdin=subprocess.DEVNULL, env=env or dict(os.environ))
    lines: queue.Queue[bytes] = queue.Queue()
    stdout = process.stdout
    assert stdout is not None
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        first = lines.get(timeout=180).decode()
    except queue.Empty:
        process.kill()
        pytest.fail("qlangc serve printed no address within 3 minutes")
    assert first.startswith("serving http://127.0.0.1:"), (first, log.read_text())
    try:
        yield first.split()[1].rstrip("/"), process
    finally:
        process.terminate()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in log.read_text()
#: The most address space a process of the hostile and fuzz tests may map: an
#: unbounded read or a decompression bomb fails the test instead of the machine.
MEMORY_CEILING = 2 << 30


def memory_ceiling() -> None:
    """A `preexec_fn`: the child process may map at most `MEMORY_CEILING` bytes."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CEILING, MEMORY_CEILING))


def qlangc_process(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> tuple[int, str]:
    """qlangc in a process of its own, under the memory ceiling and a hang guard: its exit status
    (minus a signal's number where it died of one, as a crash below Python does) and what it
    printed, output and errors.  Its standard input is empty."""
    done = subprocess.run([*QLANGC, *args], capture_output=True, timeout=timeout, preexec_fn=memory_ceiling,
                          stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    return done.returncode, (done.stdout + done.stderr).decode(errors="replace")


def run(*args: str, input: str | bytes | None = None) -> tuple[int, str, str]:
    """qlangc in this process: exit status, standard output and error; an exception that is
    not an exit, or a traceback printed, fails the test."""
    result = CliRunner().invoke(cli, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.stdout + result.stderr
    return result.exit_code, result.stdout, result.stderr


def write(path: Path, content: str | bytes) -> str:
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


# --- real scenes and questions -------------------------------------------------------------

def wide_program(classes: int) -> str:
    """A nested program of 3 × `classes` - 1 distinct steps: `or` over `exist(select(...))` of
    that many classes, paired up level by level (667 classes: 2,001 steps)."""
    parts = [f"exist(select(scene(), {to_term(c)}))" for c in sorted(load().classes)[:classes]]
    while len(parts) > 1:
        paired = [f"or({a}, {b})" for a, b in zip(parts[::2], parts[1::2], strict=False)]
        parts = paired + parts[len(paired) * 2:]
    return parts[0]


@cache
def graphs(name: str) -> dict[str, Any]:
    """The scene graphs of `SCENES/<name>_sceneGraphs.json` by image id."""
    return json.loads((SCENES / f"{name}_sceneGraphs.json").read_text())


def scene(name: str, image: str) -> Scene:
    return Scene.from_json(graphs(name)[image])


def emma_questions() -> list[dict[str, Any]]:
    """The four emma questions whose image has a scene graph."""
    questions = json.loads((SCENES / "emma_questions.json").read_text())
    return [q for q in questions.values() if q["imageId"] in graphs("emma")]


def batch_lines() -> list[str]:
    """Good and bad lines for a batch: every one must get exactly one result line."""
    questions = json.loads((SCENES / "emma_questions.json").read_text())
    lines = [json.dumps({"id": qid, **record}) for qid, record in questions.items()]
    lines += [
        '{"id": "nested", "program": "exist(select(scene(), man))", "image_id": "2353884"}',
        '{"id": "typo", "program": "exist(select(scene(), mna))", "image_id": "2353884"}',
        "not json at all",
        '{"id": "noscene", "program": "exist(scene())", "image_id": "999"}',
    ]
    return lines


_FACT = re.compile(r"(\w+)\(([^()]*)\)\.")
#: one `#pos` example of the ASP yes/no file: its gold answer and body
EXAMPLE = re.compile(r"#pos\(\{ans\((\w+)\)\},\s*\{\},\s*\{(.*?)\}\)\.", re.S)


@cache
def yesno_examples() -> list[tuple[str, str, str]]:
    """(gold answer, flat program, scene facts) of each `#pos` example."""
    examples = []
    for gold, body in EXAMPLE.findall((ASP / "gqa_yesno_examples_dev.pl").read_text()):
        program, facts = [], []
        for fact in _FACT.finditer(body):
            (program if fact[1] in SIGNATURES or fact[1] == END else facts).append(fact[0])
        examples.append((gold, " ".join(program), "\n".join(facts)))
    return examples


def encoded_question(path: Path) -> tuple[str, str, str]:
    """(scene facts, flat program, full gold answer) of a GS-VQA encoding."""
    facts, rest = path.read_text().split("% ------ question encoding ------")
    program, rest = rest.split("% ------ NL question ------")
    return facts, program, rest.split("% ------ Full answer ------")[1].strip("% \n")


_THIRD = {"left": 0.5, "top": 0.5, "middle": 1.5, "right": 2.5, "bottom": 2.5}


def asp_example(text: str) -> tuple[Node, Scene]:
    """The program, and the scene as a graph of a 3x3 image.  GS-VQA places an object in every
    third its box overlaps, a box centre is in one: the box goes to the first third stated, the
    others become attributes, which the position categories also read."""
    program, objects = [], {}
    for name, text_args in _FACT.findall(text):
        args = [a.strip() for a in text_args.split(",")]
        if name in SIGNATURES or name == END:
            program.append(f"{name}({text_args}).")
        elif name == "object":
            objects[args[0]] = {"name": "", "attributes": [], "relations": [], "w": 0, "h": 0}
        elif name == "has_rel":
            objects[args[0]]["relations"].append({"name": from_term(args[1]), "object": args[2]})
        elif name == "has_attr" and args[1] != "class":
            obj, category, value = objects[args[0]], args[1], from_term(args[2])
            if category == "name":
                obj["name"] = value
            elif category in ("hposition", "vposition") and ("x" if category[0] == "h" else "y") not in obj:
                obj["x" if category[0] == "h" else "y"] = _THIRD[value]
            else:
                obj["attributes"].append(value)
    boxes = {oid: {"x": 1.5, "y": 1.5} | obj for oid, obj in objects.items()}
    graph = {"width": 3, "height": 3, "objects": boxes}
    return parse(" ".join(program), "flat"), Scene.from_json(graph)


# --- scenes and programs made for the tests --------------------------------------------------

#: an uncertain scene (confidences on objects, attributes and relations)
WEIGHTED = json.loads((FIXTURES / "weighted_scene.json").read_text())


def box(x: int) -> dict[str, int]:
    return {"x": x, "y": 10, "w": 50, "h": 50}


#: A ground-truth scene with a tie: two dogs, one black and one white, nothing to prefer either.
TIE = {"width": 300, "height": 300, "objects": {
    "d1": {"name": "dog", "attributes": ["black"], "relations": [], **box(10)},
    "d2": {"name": "dog", "attributes": ["white"], "relations": [], **box(200)},
    "c": {"name": "cat", "attributes": ["black"], "relations": [], **box(100)},
}}


def pigeonhole_scene(path: Path, colours: int = 20) -> str:
    """One cup more than `colours`, each maybe any of them (at 0.3, so that the likeliest scene,
    every colour absent, is the first one clingo tries), a plate of every colour, and a table
    near every cup."""
    names = sorted(load().categories["color"])[:colours]
    cups = [f"c{n}" for n in range(colours + 1)]
    place = {"x": 0, "y": 0, "w": 1, "h": 1}
    objects = {cup: {"name": "cup", **place, "relations": [],
                     "attributes": [{"value": c, "confidence": 0.3} for c in names]} for cup in cups}
    objects["plate"] = {"name": "plate", **place, "attributes": names, "relations": []}
    objects["table"] = {"name": "table", **place, "attributes": [],
                        "relations": [{"name": "near", "object": cup} for cup in cups]}
    return write(path, json.dumps({"width": 100, "height": 100, "objects": objects}))


#: The table's name, over the pigeonhole scene, where every cup has a colour (one the plate has)
#: and no two cups share one: with one cup more than colours, there is no such scene.  Proving
#: it is the pigeonhole principle, which takes clingo's search (resolution) exponentially many
#: steps (Haken 1985): 0.26 s with 8 colours, 2.9 s with 9, each colour about ten times the last;
#: with 20, no machine answers, and a timeout of any length fires.
HOPELESS = ("query(unique(negate("
            "relate(relate_attr(select(scene(), cup), cup, color), table, near, subject), "
            "negate(relate(negate(relate_attr(select(scene(), plate), cup, color), select(scene(), cup)), "
            "table, near, subject), select(scene(), table)))), name)")

#: the translator examples the README and docs/translating.md show, and the programs they show
#: for them (GQA's conventions: what a gold program for the question would be)
SHOWN = {
    "Who wears shorts?": "query(unique(relate(select(scene(), shorts), person, wearing, subject)), name)",
    "What is the man holding?": "query(unique(relate_any(select(scene(), man), holding, object)), name)",
    "Is the cup red?": "verify_attr(unique(select(scene(), cup)), color, red)",
}

# "Does the truck tire look round and black?" (seed thesis Listings 9-11)
TIRE = op("unique", op("relate", op("select", op("scene"), "truck"), "tire", "of", "subject"))
TRUCK_TIRE = op("and", op("verify_attr", TIRE, "color", "black"), op("verify_attr", TIRE, "shape", "round"))
#: the thesis's example in every syntax
FORMS = {
    "gqa": '[{"operation": "select", "dependencies": [], "argument": "truck"},'
           ' {"operation": "relate", "dependencies": [0], "argument": "tire,of,s (2)"},'
           ' {"operation": "verify color", "dependencies": [1], "argument": "black"},'
           ' {"operation": "verify shape", "dependencies": [1], "argument": "round"},'
           ' {"operation": "and", "dependencies": [2, 3], "argument": ""}]',
    "gqa-str": "select: truck (1) -> relate: tire,of,s (2) [0] -> verify color: black [1] -> "
               "verify shape: round [1] -> and: [2, 3]",
    "flat": "scene(0). select(1, 0, truck). relate(2, 1, tire, of, subject). unique(3, 2).\n"
            "verify_attr(4, 3, color, black). unique(5, 2). verify_attr(6, 5, shape, round).\n"
            "and(7, 4, 6). end(7).",
    "nested": "and(verify_attr(unique(relate(select(scene(), truck), tire, of, subject)), color, black),\n"
              "    verify_attr(unique(relate(select(scene(), truck), tire, of, subject)), shape, round))",
    "code": "truck = unique(relate(select(scene(), truck), tire, of, subject))\n"
            "and(verify_attr(truck, color, black), verify_attr(truck, shape, round))",
}


def template_programs(pairs: Sequence[Any]) -> tuple[Any, Any, list[tuple[Any, list[int]]]]:
    """The small parser's vocabularies over template `pairs`, its automaton, and each pair with
    its program as target ids: checked here to hold no unknown token and to read back as the
    program, so a test of one family of templates asserts only what the family adds."""
    from qlang.small.automaton import Automaton
    from qlang.small.tokens import UNK, Vocabularies, prefix, source_vocabulary, target_vocabulary

    vocabularies = Vocabularies(source_vocabulary(p.question for p in pairs), target_vocabulary())
    target, written = vocabularies.target, []
    for pair in pairs:
        tokens = prefix(parse(pair.program, "nested"))
        ids = vocabularies.program_ids(pair.question, tokens)
        assert target.id(UNK) not in ids, pair
        assert vocabularies.said(pair.question, [target.tokens[i] for i in ids]) == tuple(tokens)
        written.append((pair, ids))
    return vocabularies, Automaton(target), written


def assert_held_out(families: Sequence[Any], *made: Sequence[Any]) -> None:
    """In each set of template pairs `made`, a pair is held out for dev exactly when its
    phrasing is its family's held-out one, and every family is both learnt and measured."""
    held_out = {f.name: f.held_out for f in families}
    for pairs in made:
        for pair in pairs:
            assert (pair.record["template"] == held_out[pair.record["family"]]) == (pair.split == "dev")
        for family in families:
            splits = {p.split for p in pairs if p.record["family"] == family.name}
            assert splits == {"train", "dev"}, family.name
