"""Experiments: run translator configurations over questions, log every result, report.

Each experiment is a list of named configurations (a `Settings` and which backend/model).
Every (configuration, question) result is one JSON line in `<out>/results.jsonl`, written as
soon as it is known; a killed run started again skips what the log already has.  The report
(`report.md` plus PNG plots) is rebuilt from the log alone, so it always matches the data.
Where the question's image has a scene graph, the translation is also solved and its answer
judged (top-1/3/5 at each generosity), with the oracle's verdict on the gold program.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qlang.errors import QlangError, error
from qlang.evaluate.programs import score
from qlang.executors import Executor, Local
from qlang.ir import Node
from qlang.records import Output, Progress, appending, run_batch
from qlang.syntax import gqa
from qlang.translate.factory import FACTORIES
from qlang.translate.grammar import GRAMMAR_SYNTAXES
from qlang.translate.translator import Settings, Translates

if TYPE_CHECKING:
    from qlang.asp.scene import SceneLibrary

LOG = "results.jsonl"


@dataclass(frozen=True, slots=True)
class Config:
    label: str
    settings: Settings
    backend: str = "llama-cpp"
    model: str | None = None
    #: the columns this configuration has in the report, e.g. {"examples": 5, "sampling": "jaccard"}
    axes: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    gold: Node | None
    #: the GQA record (image id, answer, gold program), to judge answers where a scene exists
    record: Mapping[str, Any] = field(default_factory=dict, compare=False)


def questions_from(records: Iterable[dict[str, Any]]) -> list[Question]:
    """Questions with their gold programs (None where GQA's cannot be read); records without a
    question text (an entry of the file that could not be read) are left out."""
    result = []
    for record in records:
        if not isinstance(record.get("question"), str) or not record["question"].strip():
            continue
        try:
            gold = gqa.to_ir(gqa.steps_from_json(record["semantic"])) if "semantic" in record else None
        except QlangError:  # an unreadable gold program only costs this question its metrics
            gold = None
        result.append(Question(str(record.get("id")), str(record.get("question", "")), gold, record))
    return result


def answerable_only(questions: list[Question], scenes: SceneLibrary,
                    semantics: str = "thesis") -> list[Question]:
    """The questions the oracle answers: a scene graph, and a gold program giving the gold answer."""
    from qlang.interpret import Scene, answerable

    return [q for q in questions if q.record.get("imageId") in scenes.image_ids
            and answerable(q.record, Scene.from_json(scenes.graph(q.record["imageId"])),
                           semantics=semantics)]


# ----- the experiments -------------------------------------------------------------------------

def prompt_grid(base: Settings) -> list[Config]:
    """Seed thesis Tables 4-5: number of examples x sampling x cover_operators."""
    return [Config(f"n={n} {sampling}{' +cover' if cover else ''}",
                   replace(base, examples=n, sampling=sampling, cover_operators=cover),
                   axes=(("examples", n), ("sampling", sampling), ("cover_operators", cover)))
            for n in (1, 3, 5, 10, 15) for sampling in ("random", "jaccard", "embedding")
            for cover in (False, True)]


def prompts(base: Settings) -> list[Config]:
    """Seed thesis Table 6: the prompt versions."""
    return [Config(version, replace(base, prompt=version), axes=(("prompt", version),))
            for version in [f"v{i}" for i in range(1, 11)]]


def syntaxes(base: Settings) -> list[Config]:
    """Seed thesis Tables 7-8: the target syntax, every one decoded alike: freely, or under its
    grammar (then without GQA's JSON, which has none)."""
    return [Config(syntax, replace(base, syntax=syntax, prompt=None), axes=(("syntax", syntax),))
            for syntax in ("gqa", "flat", "nested", "code")
            if not base.constrained or syntax in GRAMMAR_SYNTAXES]


def constrained(base: Settings) -> list[Config]:
    """The experiment the thesis proposed and never ran: constrained vs free decoding."""
    variants = [("unconstrained", False, True, "gbnf"), ("syntax only (GBNF)", True, False, "gbnf"),
                ("GBNF", True, True, "gbnf"), ("llguidance", True, True, "lark")]
    return [Config(label, replace(base, constrained=on, vocabulary=vocab, engine=engine),
                   axes=(("decoding", label),)) for label, on, vocab, engine in variants]


def models(base: Settings, specs: list[str]) -> list[Config]:
    """Seed thesis Table 9: any list of `[translator/]backend[:model]` specs, e.g.
    `finetuned/llama-cpp` (the bundled fine-tuned model) or `fewshot/llama-cpp:gemma3`; a
    translator alone (`small`, `cascade`) runs on the default backend and model."""
    configs = []
    for spec in specs:
        kind, _, rest = spec.rpartition("/")
        if not kind and rest in FACTORIES:
            kind, rest = rest, "llama-cpp"
        if kind and kind not in FACTORIES:
            raise error(QlangError, "usage", f"unknown translator {kind!r} in {spec!r} "
                        f"(one of {', '.join(FACTORIES)})")
        backend, _, model = rest.partition(":")
        settings = replace(base, translator=kind or base.translator)
        configs.append(Config(spec, settings, backend, model or None, axes=(("model", spec),)))
    return configs


EXPERIMENTS: dict[str, Callable[..., list[Config]]] = {
    "prompt-grid": prompt_grid, "prompts": prompts, "syntaxes": syntaxes,
    "constrained": constrained, "models": models,
}


# ----- running ---------------------------------------------------------------------------------

def log_key(result: dict[str, Any]) -> str:
    return json.dumps([result["config"], result["id"]])


def run(configs: list[Config], questions: list[Question], out: Path,
        make_translator: Callable[[Config], Translates], progress: bool = True,
        scenes: SceneLibrary | None = None, lenient: bool = True, semantics: str = "thesis",
        executor: Executor | None = None) -> Path:
    """Translate and score every question under every configuration (and judge its answer
    where `scenes` has its image, as the thesis did unless told otherwise: the program read
    leniently, the theory's and the oracle's `semantics` the thesis's), on `executor` (default:
    in this process); returns the log path."""
    with open_log(out) as output:
        todo = output.pending.todo([(c, q) for c in configs for q in questions],
                                   lambda pair: log_key({"config": pair[0].label, "id": pair[1].id}))
        run_batch(Experimenting(make_translator, scenes, lenient, semantics), todo, output,
                  executor or Local(), batch=1, progress=Progress("experiment", len(todo), shown=progress))
    return out / LOG


@contextmanager
def open_log(out: Path) -> Iterator[Output]:
    """The log of an experiment in the folder `out`, resumed (`qlang.records.appending`): each
    result is written as soon as it is known, on disk, so that a killed run keeps every line it
    wrote and the next one goes on after them."""
    out.mkdir(parents=True, exist_ok=True)
    with appending(str(out / LOG), key=log_key, sync=True) as output:
        yield output


@dataclass(frozen=True)
class Experimenting:
    """The job of an experiment (`qlang.executors`): (configuration, question) pairs in, their
    log records out; each worker makes a configuration's translator when it first needs it."""

    make_translator: Callable[[Config], Translates]
    scenes: SceneLibrary | None
    lenient: bool
    semantics: str

    def setup(self) -> Callable[[list[tuple[Config, Question]]], list[dict[str, Any]]]:
        translators: dict[str, Translates] = {}

        def answer(pairs: list[tuple[Config, Question]]) -> list[dict[str, Any]]:
            results = []
            for config, question in pairs:
                if config.label not in translators:
                    translators[config.label] = self.make_translator(config)
                results.append(_result(config, question, translators[config.label], self.scenes,
                                       self.lenient, self.semantics))
            return results

        return answer


def _result(config: Config, question: Question, translator: Translates,
            scenes: SceneLibrary | None = None, lenient: bool = True,
            semantics: str = "thesis") -> dict[str, Any]:
    translation = translator.translate(question.text)
    shown = translation.to_json()
    # the configured axes win: `examples` is the setting, the prompt's own count is `examples_shown`
    record: dict[str, Any] = {"config": config.label, "id": question.id,
                              **{k: v for k, v in shown.items() if k != "examples"},
                              "examples_shown": shown.get("examples"), **dict(config.axes)}
    if question.gold is not None:
        program = translation.program if translation.raw else None
        metrics = score(program, config.settings.syntax, question.gold)
        record |= {"parsed": metrics.parsed, "checked": metrics.checked, "exact": metrics.exact,
                   "strict": metrics.strict, "execution": metrics.execution,
                   "dropped": dict(metrics.dropped), "invented": dict(metrics.invented)}
    if scenes is not None and question.record.get("imageId") in scenes.image_ids:
        raw = translation.raw[-1] if translation.raw else None
        record |= _answers(answered_program(translation.program, raw, config.settings.syntax, lenient),
                           config.settings.syntax, question.record, scenes, lenient, semantics)
    return record


def answered_program(program: str | None, raw: str | None, syntax: str, lenient: bool) -> str | None:
    """The program to answer with: the translator's, or, read leniently, its last raw output
    (cleaned) where the translator's strict reading refused it."""
    from qlang.translate.postprocess import clean

    if program is not None or not (lenient and raw):
        return program
    return clean(raw, syntax)


def _answers(program: str | None, syntax: str, gqa_record: Mapping[str, Any],
             scenes: SceneLibrary, lenient: bool, semantics: str) -> dict[str, Any]:
    """The answer-level fields: the k best models' answers, correct at each generosity and k
    (``correct``: strict top-1), and whether the oracle answers the question."""
    from qlang.evaluate.answers import judge

    judged = judge(str(gqa_record.get("id")), program, syntax, dict(gqa_record), scenes,
                   lenient=lenient, semantics=semantics)
    return {"answers": list(judged.answers), "answerable": judged.answerable,
            "correct": judged.correct[("strict", 1)],
            "answer_correct": {f"{level}@{k}": ok for (level, k), ok in judged.correct.items()}}
