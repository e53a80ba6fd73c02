"""`qlangc experiment seek`: the fixed pipeline against seeking, and seeking without the
transition graph (AVIS's ablation), on labelled photo questions and on real GQA scenes.

- **photos**: questions about photos that ship in installable packages (scikit-image's data,
  matplotlib's sample data), labelled by hand, each photo's provenance in the file
  (`qlang/data/seek/photos.json`: the first 39 questions, reported whole).
- **photo set**: 178 such questions about 26 photos (`qlang/data/seek/photo_set.json`, with
  scikit-learn's sample images too): outdoor scenes, close-ups, drawings, documents, each
  question typed (exist, colour, relation, what, kind), split by photo into a calibration half
  (for whatever is tuned) and a test half (the figures; `--half`).  A photo names a source of
  `SOURCES` and a relative path inside it: the file is checked as it is read, nothing it names
  is imported, and nothing outside the package is read.
- **gqa**: real GQA scene graphs with gold answers from `../shared/data`: the emma questions
  whose images have scene graphs (translated from their text), and the 50 yes/no examples of
  the ASP file (their flat programs given, their scenes as graphs of a 3x3 image); then the same
  scenes perturbed where the gold answer rests on an object (the first object the gold
  program's first `select` keeps, in the solver's explanation): that object **removed**, or its
  confidence **lowered** to 0.3, below the detection threshold a perceiver keeps (0.4).

A scene stands for a perception: the pipeline and the seeker look at its objects of at least
the detection threshold, as at a photo's detections.  The configurations: **pipeline** (one
translation, one look, one solve: `ask` before seeking was added), **ask** (the same, with today's
refusals on a photo: of a "no" about what the perceiver cannot see, of a name that only
repeats the class asked, and of an answer less likely than seek's cut for its kind), **seek**
(the graph, the priority planner), **seek, no graph** (every tool in every state, the
cheapest first); `--llm` adds the LLM planner with and without the graph.  Each
(configuration, question) result is a line of `results.jsonl`, written as it comes (a killed
run resumes); `report.md` and `seek.png` are made from the log alone, and `--before` an
earlier run's folder adds the two compared, in a table and `before-after.png`.  A photo
question's result also says how far perception reaches its answer at the configuration's cut
(`qlang.evaluate.reach`): the report's "at most", the most a reasoner that gives no unsound
"no" could get right (a blind "no", the fixed pipeline's, is right beyond it by luck).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from qlang import jsontext, limits
from qlang.api import parse
from qlang.asp.explain import explain
from qlang.asp.scene import SceneLibrary, encode
from qlang.asp_names import from_term
from qlang.errors import QlangError, Source, Span, error
from qlang.evaluate.experiments import LOG, open_log
from qlang.evaluate.matching import matches
from qlang.evaluate.reach import IN_REACH, REASONS, Probe, Reach, probe, reach
from qlang.ir import Node
from qlang.passes.lower import facts
from qlang.paths import SHARED_DATA, package_data
from qlang.records.batch import Progress
from qlang.seek import GRAPHS, TOOLS, Bounds, Context, load_planner, seek
from qlang.seek.memory import Memory, Programmed, Widened
from qlang.signatures import END, SIGNATURES
from qlang.syntax import gqa
from qlang.vision import image
from qlang.vision.recall import blind_no
from qlang.vision.withhold import withheld

#: the first labelled photos (9 photos, 39 questions), reported whole
PHOTOS = package_data("seek", "photos.json")
#: the labelled photo set, split by photo into a calibration half and a test half
PHOTO_SET = package_data("seek", "photo_set.json")
#: The packages a labelled photo may come from, by the name a file gives: their photos are
#: found where the package is installed, and nothing else is ever looked up or imported.
SOURCES = {"skimage": "skimage", "matplotlib": "matplotlib", "sklearn": "sklearn"}
CALIBRATION, TEST = "calibration", "test"
#: the confidence a lowered object gets: below the detection threshold, above `look_closer`'s
LOWERED = 0.3
#: configuration -> (planner, graph); None: the fixed pipeline (True: with ask's refusal)
CONFIGS: dict[str, tuple[str, str] | bool] = {
    "pipeline": False, "ask": True, "seek": ("priority", "avis"), "seek, no graph": ("priority", "none"),
}
LLM_CONFIGS: dict[str, tuple[str, str] | bool] = {
    "seek, llm planner": ("llm", "avis"), "seek, llm planner, no graph": ("llm", "none"),
}


@dataclass(frozen=True)
class Item:
    id: str
    #: `photos`, `gqa`, `gqa, object removed` or `gqa, confidence lowered`
    group: str
    gold: str
    question: str | None = None
    image: str | None = None
    scene: dict[str, Any] | None = None
    #: a program given (flat), where the question's text is not
    program: str | None = None
    #: other answers a person would accept
    also: tuple[str, ...] = ()
    #: a labelled photo question's type: exist, colour, relation, what, kind
    type: str | None = None


def photo_items(path: Path = PHOTOS, half: str | None = TEST) -> list[Item]:
    """The labelled questions of a photo file, each photo found in its source package; of a
    file split by photo, those of one `half` (None: all).  The file is checked as it is read:
    a photo names a known source and a file inside it that is a photo, a question a photo of
    the file."""
    photos = read_photos(path)
    if half is not None and photos.split:
        chosen = {name for name, photo in photos.photos.items() if photo.half == half}
        group = f"{photos.name}, {half}"
    else:
        chosen, group = set(photos.photos), photos.name
    return [Item(q["id"], group, q["answer"], q["question"], image=str(photos.photos[q["photo"]].path),
                 also=tuple(q.get("also", ())), type=q.get("type"))
            for q in photos.questions if q["photo"] in chosen]


@dataclass(frozen=True)
class LabelledPhoto:
    path: Path
    #: outdoor, close-up, drawing, ...: the split takes turns within each kind
    kind: str
    #: `CALIBRATION` or `TEST`, where the file is split by photo
    half: str | None


@dataclass(frozen=True)
class LabelledPhotos:
    """A labelled photo file, checked."""

    name: str
    split: bool
    photos: dict[str, LabelledPhoto]
    questions: list[dict[str, Any]]


def read_photos(path: Path) -> LabelledPhotos:
    """A labelled photo file, every entry checked, an error located in the file."""
    try:
        text = limits.read(path, limits.QUESTIONS).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(QlangError, "input", f"cannot read the photo file: {exc}", path=path) from None

    def fail(message: str, span: Span | None = None) -> QlangError:
        return error(QlangError, "photos", message, span, Source(text, str(path)))

    try:
        data = jsontext.loads(text)
    except json.JSONDecodeError as exc:
        at = Span(exc.lineno, exc.colno, exc.lineno, exc.colno + 1)
        raise fail(f"malformed JSON: {exc.msg}", at) from None
    if not isinstance(data, dict) or not isinstance(data.get("photos"), dict) \
            or not isinstance(data.get("questions"), list) or not isinstance(data.get("name"), str):
        raise fail("a photo file is an object with a name, its photos and its questions")
    found: dict[str, tuple[Path, str]] = {}
    for name, entry in data["photos"].items():
        where = _where(text, "photos", _key(name))
        if not isinstance(entry, dict) or not isinstance(entry.get("source"), str) \
                or not isinstance(entry.get("file"), str) or not isinstance(entry.get("kind", ""), str):
            raise fail(f"the photo {name!r} needs a source and a file (and a kind), each a word", where)
        problem, photo = _source_file(entry["source"], entry["file"])
        if photo is None:
            raise fail(f"the photo {name!r}: {problem}", where)
        try:  # here, not when its first question is asked, part way through the experiment
            image.check(photo)
        except QlangError as exc:
            raise fail(f"the photo {name!r}, {entry['source']}'s {entry['file']!r}: "
                       f"{exc.diagnostics[0].message}", where) from None
        found[name] = photo, entry.get("kind", "")
    seen: Counter[str] = Counter()
    for number, question in enumerate(data["questions"], start=1):
        ident = question.get("id") if isinstance(question, dict) else None
        if not isinstance(ident, str):
            raise fail(f"question {number} needs an id")
        seen[ident] += 1
        where = _where(text, "questions", rf'"id"\s*:\s*{re.escape(json.dumps(ident, ensure_ascii=False))}',
                       seen[ident])
        if seen[ident] > 1:
            raise fail(f"the id {ident!r} is another question's", where)
        if question.get("photo") not in found:
            raise fail(f"the question {ident!r} is about no photo of this file", where)
        also = question.get("also", [])
        if not all(isinstance(question.get(k), str) for k in ("question", "answer")) \
                or not isinstance(question.get("type", ""), str) \
                or not isinstance(also, list) or not all(isinstance(a, str) for a in also):
            raise fail(f"the question {ident!r} needs a question and an answer (and words `also`, a word "
                       "`type`)", where)
    split = data.get("split") == "photo"
    kinds = {kind: [name for name, (_, k) in found.items() if k == kind] for _, kind in found.values()}
    photos = {name: LabelledPhoto(photo, kind, _half(name, kinds[kind]) if split else None)
              for name, (photo, kind) in found.items()}
    return LabelledPhotos(data["name"], split, photos, data["questions"])


def _key(name: str) -> str:
    """A pattern for an object's key `name` as JSON writes it."""
    return re.escape(json.dumps(name, ensure_ascii=False)) + r"\s*:"


def _where(text: str, section: str, pattern: str, nth: int = 1) -> Span | None:
    """Where the `nth` match of `pattern` after the key `section` begins, as a span."""
    start = re.search(_key(section), text)
    found = list(re.finditer(pattern, text[start.end():])) if start else []
    if len(found) < nth:
        return None
    at = start.end() + found[nth - 1].start() if start else 0
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    return Span(line, column, line, column + len(found[nth - 1].group()))


def _source_file(source: str, file: str) -> tuple[str, Path | None]:
    """A file inside a known source package (a relative path that stays in it), or what is
    wrong with it."""
    if source not in SOURCES:
        return f"{source!r} is no known source of photos ({', '.join(SOURCES)})", None
    parts = PurePosixPath(file).parts
    if not parts or file.startswith("/") or "\\" in file or any(p in ("..", ".") for p in parts) \
            or not file.isprintable():
        return f"{file!r} is no plain relative path inside {source}", None
    spec = importlib.util.find_spec(SOURCES[source])  # a top-level package: found, not imported
    if spec is None or not spec.submodule_search_locations:
        return f"the package {source!r} is not installed", None
    root = Path(next(iter(spec.submodule_search_locations))).resolve()
    path = (root / file).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return f"{source} has no file {file!r}", None
    return "", path


def _half(name: str, kind: list[str]) -> str:
    """The photo's half: its kind's photos in the order of their names' SHA-256 take turns,
    calibration first."""
    order = sorted(kind, key=lambda n: hashlib.sha256(n.encode("utf-8")).hexdigest())
    return (CALIBRATION, TEST)[order.index(name) % 2]


def gqa_items(data: Path = SHARED_DATA) -> list[Item]:
    """The real GQA questions with scene graphs and gold answers, and their perturbed copies."""
    scenes = data / "gqa" / "scenes"
    library = SceneLibrary(Source((scenes / "emma_sceneGraphs.json").read_text(encoding="utf-8")))
    records = json.loads((scenes / "emma_questions.json").read_text(encoding="utf-8"))
    base = [(Item(f"emma-{qid}", "gqa", r["answer"], r["question"], scene=library.graph(r["imageId"])),
             gqa.to_ir(gqa.steps_from_json(r["semantic"])))
            for qid, r in records.items() if r["imageId"] in library.image_ids]
    text = (data / "asp" / "gqa_yesno_examples_dev.pl").read_text(encoding="utf-8")
    for number, (gold, body) in enumerate(_EXAMPLE.findall(text), start=1):
        program, scene = _example(body)
        base.append((Item(f"yesno-{number}", "gqa", gold, scene=scene, program=program),
                     parse(program, "flat")))
    items = [item for item, _ in base]
    for item, root in base:
        assert item.scene is not None
        kept = _rests_on(root, item.scene, item.gold)
        if kept is not None:
            items.append(Item(f"{item.id}-removed", "gqa, object removed", item.gold, item.question,
                              scene=_without(item.scene, kept), program=item.program))
            items.append(Item(f"{item.id}-lowered", "gqa, confidence lowered", item.gold, item.question,
                              scene=_lowered(item.scene, kept), program=item.program))
    return items


_EXAMPLE = re.compile(r"#pos\(\{ans\((\w+)\)\},\s*\{\},\s*\{(.*?)\}\)\.", re.S)
_FACT = re.compile(r"(\w+)\(([^()]*)\)\.")
_THIRD = {"left": 0, "top": 0, "middle": 1, "right": 2, "bottom": 2}


def _example(body: str) -> tuple[str, dict[str, Any]]:
    """A `#pos` example's flat program, and its scene facts as a graph of a 3x3 image: a
    1x1 box in the third each position names, the names, attributes and relations as stated."""
    program: list[str] = []
    objects: dict[str, dict[str, Any]] = {}
    for name, arguments in _FACT.findall(body):
        args = [a.strip() for a in arguments.split(",")]
        if name in SIGNATURES or name == END:
            program.append(f"{name}({arguments}).")
        elif name == "object":
            objects.setdefault(args[0], {"attributes": [], "relations": [], "x": 1, "y": 1, "w": 1, "h": 1})
        elif name == "has_attr" and args[1] == "name":
            objects[args[0]]["name"] = from_term(args[2])
        elif name == "has_attr" and args[1] in ("hposition", "vposition"):
            objects[args[0]]["x" if args[1] == "hposition" else "y"] = _THIRD[args[2]]
        elif name == "has_attr" and args[1] != "class":
            objects[args[0]]["attributes"].append(from_term(args[2]))
        elif name == "has_rel":
            objects[args[0]]["relations"].append({"name": from_term(args[1]), "object": args[2]})
    return " ".join(program), {"width": 3, "height": 3, "objects": objects}


def _rests_on(root: Node, scene: dict[str, Any], gold: str) -> str | None:
    """The first object the gold program's first `select` keeps when it gives the gold answer."""
    explanation = explain(facts(root), encode(scene, "<scene>"), answer=gold)
    if explanation is None:
        return None
    for step in explanation.steps:
        if step.op == "select" and step.objects:
            return from_term(step.objects[0])
    return None


def _without(scene: dict[str, Any], oid: str) -> dict[str, Any]:
    objects = {key: {**obj, "relations": [r for r in obj.get("relations", []) if str(r["object"]) != oid]}
               for key, obj in scene["objects"].items() if key != oid}
    return {**scene, "objects": objects}


def _lowered(scene: dict[str, Any], oid: str) -> dict[str, Any]:
    objects = dict(scene["objects"])
    objects[oid] = {**objects[oid], "confidence": LOWERED}
    return {**scene, "objects": objects}


# ----- running ----------------------------------------------------------------------------------

def run(items: list[Item], out: Path, configs: dict[str, tuple[str, str] | bool], context: Context,
        progress: bool = True) -> Path:
    """Answer every item under every configuration, logging each result as it comes."""
    planners = {name: load_planner(name) for name in {c[0] for c in configs.values() if isinstance(c, tuple)}}
    with open_log(out) as output:
        todo = output.pending.todo([(c, i) for c in configs for i in items],
                                   lambda pair: json.dumps([pair[0], pair[1].id]))
        probes: dict[tuple[str, str], Probe] = {}
        for config, item in Progress("experiment seek", len(todo), shown=progress).over(todo):
            output.write(_result(config, configs[config], item, context, planners, probes))
    return out / LOG


def _result(label: str, config: tuple[str, str] | bool, item: Item, context: Context,
            planners: dict[str, Any], probes: dict[tuple[str, str], Probe]) -> dict[str, Any]:
    root = parse(item.program, "flat") if item.program is not None else None
    start = time.perf_counter()
    if isinstance(config, tuple):
        planner, graph = config
        sought = seek(item.question, context, image=item.image, scene=item.scene, program=root,
                      planner=planners[planner], graph=GRAPHS[graph], bounds=Bounds())
        answer, reason, steps, program = sought.answer, sought.reason, len(sought.steps), sought.program
    else:
        answer, reason, steps, program = _fixed(item, root, context, refuse=config)
    seconds = time.perf_counter() - start
    unseen = [] if program is None or item.image is None else \
        list(blind_no(context.sight, parse(program), "no"))
    reached = None if item.image is None else _reach(item, item.image, program, config, context, probes)
    return {"config": label, "id": item.id, "group": item.group, "question": item.question,
            "program": program, "gold": item.gold, "answer": answer, "cannot_tell": answer is None,
            "correct": answer is not None and any(matches(answer, g) for g in (item.gold, *item.also)),
            "reason": reason, "type": item.type, "unseen": unseen,
            "reach": None if reached is None else reached.to_json(),
            "steps": steps, "ms": round(seconds * 1000, 1)}


def _reach(item: Item, image: str, program: str | None, config: tuple[str, str] | bool, context: Context,
           probes: dict[tuple[str, str], Probe]) -> Reach:
    """How far perception reaches the item's answer at the configuration's cut: seek looks
    closer, the fixed pipeline keeps what `ask` keeps; each photo and program probed once."""
    cut = context.closer if isinstance(config, tuple) else context.vision.thresholds.detection
    if program is not None and (image, program) not in probes:
        probes[image, program] = probe(parse(program), image, context)
    return reach(None if program is None else probes[image, program], item.gold, cut, context)


def _fixed(item: Item, root: Node | None, context: Context,
           refuse: bool) -> tuple[str | None, str, int, str | None]:
    """The fixed pipeline, the same tools in a row: translate, (on a photo) widen as `ask` does,
    look, solve; the best answer."""
    memory = Memory(item.question, item.image, item.scene)
    steps = 0
    if root is not None:
        memory.add(Programmed("given", root))
    else:
        steps += 1
        translated = TOOLS["translate"].run(memory, context)
        assert isinstance(translated, Programmed)
        if translated.root is None:
            return None, translated.error or "no program", steps, None
        memory.add(translated)
    if item.image is not None:  # as plain `ask` on a photo: each class with its WordNet kinds,
        # and the class above one it cannot see, which "the man" is taken to be
        memory.add(Widened.by_wordnet(context.sight, memory.classes()))
    for name in ("look", "solve"):
        memory.add(TOOLS[name].run(memory, context))
        steps += 1
    assert memory.solved is not None and memory.root is not None
    program = memory.program.brief() if memory.program is not None else None
    if not memory.solved.answers:
        return None, memory.solved.error or "no answer", steps, program
    solved = memory.solved
    if refuse and item.image is not None:
        _, doubts = withheld(context.sight, memory.root, solved.answers, solved.base,
                             context.vision.thresholds.detection,
                             {p.cls for p in memory.presumed(context.sight)})
        if doubts:
            return None, "; ".join(doubts), steps, program
    return solved.answers[0].value, "the best answer", steps, program


# ----- the report -------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeekingRow:
    """A row of the seeking experiment's table: one configuration over one group of questions."""

    config: str
    group: str
    n: int
    accuracy: float
    answered: float
    cannot_tell: float
    #: "no" answers about a word the perceiver cannot see
    blind_no: int
    wrong: int
    steps: float
    ms: float
    #: questions whose answer perception reaches (`qlang.evaluate.reach`), the most a sound reasoner
    #: could get right (None: not photos, or logged before reach was)
    reach: float | None = None


def rows(results: Iterable[dict[str, Any]]) -> list[SeekingRow]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for result in results:
        groups.setdefault((result["config"], result["group"]), []).append(result)
    table = []
    for (config, group), found in groups.items():
        n, told = len(found), sum(r["cannot_tell"] for r in found)
        table.append(SeekingRow(config, group, n, sum(r["correct"] for r in found) / n, (n - told) / n,
                                told / n, sum(r["answer"] == "no" and bool(r["unseen"]) for r in found),
                                sum(not r["cannot_tell"] and not r["correct"] for r in found),
                                statistics.median(r["steps"] for r in found),
                                statistics.median(r["ms"] for r in found), _reached(found)))
    return table


def _reached(results: list[dict[str, Any]]) -> float | None:
    reached = [r["reach"]["why"] == IN_REACH for r in results if r.get("reach")]
    return sum(reached) / len(results) if len(reached) == len(results) else None


def write(out: Path, log: Path, command: str, before: Path | None = None) -> Path:
    """`report.md` and `seek.png` from the log; with an earlier run's log, the two compared
    (`before-after.png`)."""
    results = _results(log)
    table = rows(results)
    order = list(CONFIGS | LLM_CONFIGS)
    lines = ["# Experiment: seek", "", f"`{command}`", "",
             "| configuration | questions | n | accuracy | at most | answered | cannot tell | wrong "
             "| 'no' unseen | median steps | median ms |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in sorted(table, key=lambda r: (r.group, order.index(r.config))):
        most = "" if row.reach is None else f"{row.reach:.1%}"
        lines.append(f"| {row.config} | {row.group} | {row.n} | {row.accuracy:.1%} | {most} "
                     f"| {row.answered:.1%} | {row.cannot_tell:.1%} | {row.wrong} | {row.blind_no} "
                     f"| {row.steps:g} | {row.ms:.0f} |")
    lines += ["", "*accuracy*: right answers of all questions; *at most*: the questions whose answer "
              "perception reaches at the configuration's cut, the most a reasoner that gives no unsound "
              "\"no\" could get right (a blind \"no\", the pipeline's, may be right beyond it; see below); "
              "*answered*: an answer, not \"cannot tell\"; *wrong*: answered wrongly; *'no' unseen*: "
              "\"no\" to a question about a word the perceiver cannot see.", "",
              "![accuracy, answer rate and wrong answers](seek.png)", ""]
    lines += _by_type(results, order)
    lines += _by_reach(results, order)
    _plot(out / "seek.png", table)
    if before is not None:
        lines += _compared(rows(_results(before)), table, order, out / "before-after.png")
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def _results(log: Path) -> list[dict[str, Any]]:
    try:
        text = log.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(QlangError, "input", f"cannot read the log: {exc.strerror}", path=log) from None
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _by_type(results: list[dict[str, Any]], order: list[str]) -> list[str]:
    """Accuracy by question type, for the labelled questions that have types."""
    groups: dict[tuple[str, str, str], list[bool]] = {}
    for r in results:
        if r.get("type"):
            groups.setdefault((r["group"], r["config"], r["type"]), []).append(r["correct"])
    if not groups:
        return []
    types = sorted({t for _, _, t in groups})
    lines = ["## By question type", "", "accuracy (n)", "",
             "| questions | configuration | " + " | ".join(types) + " |",
             "|---|---|" + "---:|" * len(types)]
    for group, config in sorted({(g, c) for g, c, _ in groups}, key=lambda gc: (gc[0], order.index(gc[1]))):
        cells = [groups.get((group, config, t), []) for t in types]
        lines.append(f"| {group} | {config} | "
                     + " | ".join(f"{sum(c) / len(c):.0%} ({len(c)})" if c else "" for c in cells) + " |")
    return [*lines, ""]


def _by_reach(results: list[dict[str, Any]], order: list[str]) -> list[str]:
    """How many photo questions perception reaches, and why the others are out of its reach,
    with the words that stop each (`qlang.evaluate.reach`)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in results:
        if r.get("reach"):
            groups.setdefault((r["group"], r["config"]), []).append(r)
    if not groups:
        return []
    lines = ["## Perception's reach", "",
             "questions (right answers among them), by the first reason perception does not reach the "
             "labelled answer; *in reach*: every class asked found at or above the configuration's cut "
             "(seek looks closer down to 0.15, `ask` keeps 0.4), or a sound \"no\" "
             "(`qlang/evaluate/reach.py`)", "",
             "| questions | configuration | " + " | ".join(REASONS) + " |",
             "|---|---|" + "---:|" * len(REASONS)]
    for group, config in sorted(groups, key=lambda gc: (gc[0], order.index(gc[1]))):
        found = groups[group, config]
        cells = [[r for r in found if r["reach"]["why"] == why] for why in REASONS]
        lines.append(f"| {group} | {config} | " + " | ".join(
            f"{len(c)} ({sum(r['correct'] for r in c)})" if c else "" for c in cells) + " |")
    words = Counter((why, word) for r in results if r.get("reach") and r["config"] in ("seek", "ask")
                    for why in [r["reach"]["why"]] for word in r["reach"]["words"])
    if words:
        lines += ["", "The words that stop seek and `ask` (questions, both configurations counted):", ""]
        lines += [f"- {why}: " + ", ".join(f"{word} ({n})" for (w, word), n in words.most_common()
                                           if w == why)
                  for why in REASONS if any(w == why for w, _ in words)]
    return [*lines, ""]


def _compared(before: list[SeekingRow], after: list[SeekingRow], order: list[str], path: Path) -> list[str]:
    """The rows of both runs side by side (those of groups and configurations both have), and
    their plot."""
    earlier = {(r.config, r.group): r for r in before}
    pairs = [(earlier[r.config, r.group], r)
             for r in sorted(after, key=lambda r: (r.group, order.index(r.config)))
             if (r.config, r.group) in earlier]
    lines = ["## Before and after", "", "| configuration | questions | n | accuracy | answered | wrong |",
             "|---|---|---:|---:|---:|---:|"]
    for old, new in pairs:
        lines.append(f"| {new.config} | {new.group} | {new.n} | {old.accuracy:.1%} → {new.accuracy:.1%} "
                     f"| {old.answered:.1%} → {new.answered:.1%} | {old.wrong / old.n:.1%} → "
                     f"{new.wrong / new.n:.1%} |")
    lines += ["", "![before and after](before-after.png)", ""]
    _plot_compared(path, pairs)
    return lines


#: What each plot's panels show, as shares of a row's questions.
_Measure = Callable[["SeekingRow"], float]
_MEASURES: dict[str, _Measure] = {
    "accuracy": lambda row: row.accuracy, "answer rate": lambda row: row.answered,
    "wrong answers": lambda row: row.wrong / row.n}


@contextmanager
def _panels(path: Path, size: tuple[float, float]) -> Iterator[list[tuple[Any, _Measure]]]:
    """One panel per measure on a shared percentage axis, each with its measure to draw; the
    figure is titled, labelled and saved to `path` once drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(_MEASURES), figsize=size, sharey=True)
    yield list(zip(axes, _MEASURES.values(), strict=True))
    for axis, title in zip(axes, _MEASURES, strict=True):
        axis.set_title(title)
        axis.set_ylim(0, 100)
    axes[0].set_ylabel("% of questions")
    axes[-1].legend(fontsize=8, loc="upper left")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def _plot_compared(path: Path, pairs: list[tuple[SeekingRow, SeekingRow]]) -> None:
    places = range(len(pairs))
    with _panels(path, (15, 4.2)) as panels:
        for axis, measure in panels:
            axis.bar([p - 0.2 for p in places], [100 * measure(old) for old, _ in pairs], 0.4, label="before",
                     color="#b0b7c3")
            axis.bar([p + 0.2 for p in places], [100 * measure(new) for _, new in pairs], 0.4,
                     label="after", color="#1d3557")
            axis.set_xticks(list(places), [f"{new.config}\n{new.group}" for _, new in pairs], fontsize=7,
                            rotation=60, ha="right")


def _plot(path: Path, table: list[SeekingRow]) -> None:
    groups = sorted({row.group for row in table})
    configs = [c for c in (*CONFIGS, *LLM_CONFIGS) if any(row.config == c for row in table)]
    width = 0.8 / len(configs)
    with _panels(path, (14, 3.8)) as panels:
        for axis, measure in panels:
            for index, config in enumerate(configs):
                found = {row.group: measure(row) for row in table if row.config == config}
                axis.bar([g + index * width for g in range(len(groups))],
                         [100 * found.get(group, 0.0) for group in groups], width, label=config)
            axis.set_xticks([g + width * (len(configs) - 1) / 2 for g in range(len(groups))],
                            [group.replace("gqa, ", "").replace(" ", "\n") for group in groups], fontsize=8)

