"""Experiments: run translator configurations over questions, log every result, report.

Each experiment is a list of named configurations (a `Settings` and which backend/model).
Every (configuration, question) result is one JSON line in `<out>/results.jsonl`, written as
soon as it is known; a killed run started again skips what the log already has.  The report
(`report.md` plus PNG plots) is rebuilt from the log alone, so it always matches the data.
Where the question's image has a scene graph, the translation is also solved and its answer
judged (top-1/3/5 at each generosity), with the oracle's verdict on the gold program.

Every line of the question file gets a record: a line that is no usable question (not JSON, no
question text) a failure record, whose ``failure`` says why, as does a question whose
translating raised; a translation whose scoring or judging failed for a reason not its own (its
scene unusable, a failure of qlang's) counts as wrong, with its ``failure``.  The reports say
how many.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qlang.errors import Diagnostic, QlangError, error
from qlang.evaluate.answers import THESIS_JUDGING, JudgeOptions, judge, oracle
from qlang.evaluate.programs import counted
from qlang.executors import Executor, Local
from qlang.ir import Node
from qlang.records.batch import Progress, attempt, run_batch
from qlang.records.output import Output, appending
from qlang.records.questions import QuestionEntry
from qlang.syntax import gqa
from qlang.translate.factory import FACTORIES
from qlang.translate.grammar import GRAMMAR_SYNTAXES
from qlang.translate.translator import Settings, Translates

if TYPE_CHECKING:
    from qlang.asp.scene import SceneLibrary

LOG = "results.jsonl"


@dataclass(frozen=True, slots=True)
class TranslatorConfig:
    """One configuration an experiment compares: a labelled translator setting and its model."""

    label: str
    settings: Settings
    backend: str = "llama-cpp"
    model: str | None = None
    #: the columns this configuration has in the report, e.g. {"examples": 5, "sampling": "jaccard"}
    axes: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    #: None only for a line that is no record with an id
    id: str | None
    text: str
    gold: Node | None
    #: the GQA record (image id, answer, gold program), to judge answers where a scene exists
    record: Mapping[str, Any] = field(default_factory=dict, compare=False)
    #: its place in the question file (`qlang.records.questions.QuestionEntry`)
    number: int = 0
    #: why the line is no usable question (it gets a failure record)
    problem: Diagnostic | None = None


def questions_from(records: Iterable[Mapping[str, Any]]) -> list[Question]:
    """Questions of GQA question records, each with its id (`questions_of`)."""
    return questions_of(QuestionEntry(n, r.get("id"), dict(r)) for n, r in enumerate(records, start=1))


def questions_of(entries: Iterable[QuestionEntry]) -> list[Question]:
    """The entries of a question file as questions with their gold programs (None where GQA's
    cannot be read); an entry without a question text (one that is no record, say) comes with
    its problem."""
    result = []
    for entry in entries:
        record = entry.record
        if not isinstance(record.get("question"), str) or not record["question"].strip():
            problem = entry.problem or f"entry {entry.number}: the record has no 'question' text"
            result.append(Question(None if entry.id is None else str(entry.id), "", None, record,
                                   entry.number, Diagnostic("input", problem)))
            continue
        try:
            gold = gqa.to_ir(gqa.steps_from_json(record["semantic"])) if "semantic" in record else None
        except QlangError:  # an unreadable gold program only costs this question its metrics
            gold = None
        result.append(Question(str(record.get("id")), record["question"], gold, record, entry.number))
    return result


def answerable_only(questions: list[Question], scenes: SceneLibrary,
                    semantics: str = "thesis") -> list[Question]:
    """The questions the oracle answers: a scene graph, and a gold program giving the gold
    answer; and those it cannot be asked about (a line that is no question, a scene or record
    the oracle fails on), so that their failure records are written."""
    def kept(question: Question) -> bool:
        if question.problem is not None:
            return True
        return question.record.get("imageId") in scenes.image_ids and attempt(
            lambda: oracle(dict(question.record), scenes, semantics), lambda _: True)

    return [question for question in questions if kept(question)]


# ----- the experiments -------------------------------------------------------------------------

def prompt_grid(base: Settings) -> list[TranslatorConfig]:
    """Seed thesis Tables 4-5: number of examples x sampling x cover_operators."""
    return [TranslatorConfig(f"n={n} {sampling}{' +cover' if cover else ''}",
                   replace(base, examples=n, sampling=sampling, cover_operators=cover),
                   axes=(("examples", n), ("sampling", sampling), ("cover_operators", cover)))
            for n in (1, 3, 5, 10, 15) for sampling in ("random", "jaccard", "embedding")
            for cover in (False, True)]


def prompts(base: Settings) -> list[TranslatorConfig]:
    """Seed thesis Table 6: the prompt versions."""
    return [TranslatorConfig(version, replace(base, prompt=version), axes=(("prompt", version),))
            for version in [f"v{i}" for i in range(1, 11)]]


def syntaxes(base: Settings) -> list[TranslatorConfig]:
    """Seed thesis Tables 7-8: the target syntax, every one decoded alike: freely, or under its
    grammar (then without GQA's JSON, which has none)."""
    return [TranslatorConfig(syntax, replace(base, syntax=syntax, prompt=None), axes=(("syntax", syntax),))
            for syntax in ("gqa", "flat", "nested", "code")
            if not base.constrained or syntax in GRAMMAR_SYNTAXES]


def constrained(base: Settings) -> list[TranslatorConfig]:
    """The experiment the thesis proposed and never ran: constrained vs free decoding."""
    variants = [("unconstrained", False, True, "gbnf"), ("syntax only (GBNF)", True, False, "gbnf"),
                ("GBNF", True, True, "gbnf"), ("llguidance", True, True, "lark")]
    return [TranslatorConfig(label, replace(base, constrained=on, vocabulary=vocab, engine=engine),
                   axes=(("decoding", label),)) for label, on, vocab, engine in variants]


def models(base: Settings, specs: Sequence[str]) -> list[TranslatorConfig]:
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
        configs.append(TranslatorConfig(spec, settings, backend, model or None, axes=(("model", spec),)))
    return configs


#: The experiments that compare translator configurations, by name: each makes them from the base
#: settings and the model specs the command line gives (only `models` reads those).
EXPERIMENTS: dict[str, Callable[[Settings, Sequence[str]], list[TranslatorConfig]]] = {
    "prompt-grid": lambda base, _: prompt_grid(base), "prompts": lambda base, _: prompts(base),
    "syntaxes": lambda base, _: syntaxes(base), "constrained": lambda base, _: constrained(base),
    "models": models,
}


# ----- running ---------------------------------------------------------------------------------

def log_key(result: dict[str, Any]) -> str:
    return json.dumps([result["config"], result["id"]])


def failed(why: Diagnostic | None) -> dict[str, Any]:
    """The field of a log record that counts as wrong for no fault of a translation's: why
    (none where there is no such failure)."""
    return {} if why is None else {"failure": why.to_json()}


def failure_record(key: dict[str, Any], question: Question, why: Diagnostic) -> dict[str, Any]:
    """The record of a question that has no result, and why: its key, and its line where it has
    no id."""
    return key | ({"input_line": question.number} if question.id is None else {}) | failed(why)


def failures(results: list[dict[str, Any]]) -> list[str]:
    """The reports' paragraph on failure records, where there are any: how many, by configuration."""
    counts = Counter(str(r["config"]) for r in results if "failure" in r)
    if not counts:
        return []
    by = ", ".join(f"{config} {n}" for config, n in counts.items())
    return ["", f"Failures: {counts.total()} results count as wrong for no fault of a translation's "
            f"({by}): a line that is no usable question, or a failure of qlang's or of the data while "
            "translating, scoring or judging; the log's `failure` says why."]


def run(configs: list[TranslatorConfig], questions: list[Question], out: Path,
        make_translator: Callable[[TranslatorConfig], Translates], progress: bool = True,
        scenes: SceneLibrary | None = None, judging: JudgeOptions = THESIS_JUDGING,
        executor: Executor | None = None) -> Path:
    """Translate and score every question under every configuration (and judge its answer
    where `scenes` has its image, as the thesis did unless `judging` says otherwise), on
    `executor` (default: in this process); returns the log path."""
    with open_log(out) as output:
        todo = output.pending.todo([(c, q) for c in configs for q in questions],
                                   lambda pair: log_key({"config": pair[0].label, "id": pair[1].id}))
        run_batch(Experimenting(make_translator, scenes, judging), todo, output,
                  executor or Local(), batch=1, progress=Progress("experiment", len(todo), shown=progress))
    return out / LOG


@contextmanager
def open_log(out: Path) -> Iterator[Output]:
    """The log of an experiment in the folder `out`, resumed (`qlang.records.output.appending`): each
    result is written as soon as it is known, on disk, so that a killed run keeps every line it
    wrote and the next one goes on after them."""
    out.mkdir(parents=True, exist_ok=True)
    with appending(str(out / LOG), key=log_key, sync=True) as output:
        yield output


@dataclass(frozen=True)
class Experimenting:
    """The job of an experiment (`qlang.executors`): (configuration, question) pairs in, their
    log records out; each worker makes a configuration's translator when it first needs it."""

    make_translator: Callable[[TranslatorConfig], Translates]
    scenes: SceneLibrary | None
    judging: JudgeOptions

    def setup(self) -> Callable[[list[tuple[TranslatorConfig, Question]]], list[dict[str, Any]]]:
        translators: dict[str, Translates] = {}

        def answer(pairs: list[tuple[TranslatorConfig, Question]]) -> list[dict[str, Any]]:
            results = []
            for config, question in pairs:
                if config.label not in translators:
                    translators[config.label] = self.make_translator(config)
                results.append(_result(config, question, translators[config.label], self.scenes,
                                       self.judging))
            return results

        return answer


def _result(config: TranslatorConfig, question: Question, translator: Translates,
            scenes: SceneLibrary | None = None, judging: JudgeOptions = THESIS_JUDGING) -> dict[str, Any]:
    """The question's log record under the configuration; a failure record where the line is no
    usable question, or where translating it fails."""
    key = {"config": config.label, "id": question.id}
    if question.problem is not None:
        return failure_record(key, question, question.problem)
    keyed = key | {"question": question.text}
    return attempt(lambda: _translated(config, question, translator, scenes, judging),
                   lambda why: failure_record(keyed, question, why.diagnostics[0]))


def _translated(config: TranslatorConfig, question: Question, translator: Translates,
                scenes: SceneLibrary | None, judging: JudgeOptions) -> dict[str, Any]:
    """The question translated, scored and judged; a failure while scoring or judging that is
    not the translation's counts it as wrong, and is the record's `failure`."""
    translation = translator.translate(question.text)
    shown = translation.to_json()
    # the configured axes win: `examples` is the setting, the prompt's own count is `examples_shown`
    record: dict[str, Any] = {"config": config.label, "id": question.id,
                              **{k: v for k, v in shown.items() if k != "examples"},
                              "examples_shown": shown.get("examples"), **dict(config.axes)}
    why = None
    if question.gold is not None:
        program = translation.program if translation.raw else None
        metrics, why = counted(program, config.settings.syntax, question.gold)
        record |= {"parsed": metrics.parsed, "checked": metrics.checked, "exact": metrics.exact,
                   "strict": metrics.strict, "execution": metrics.execution,
                   "dropped": dict(metrics.dropped), "invented": dict(metrics.invented)}
    if scenes is not None and question.record.get("imageId") in scenes.image_ids:
        raw = translation.raw[-1] if translation.raw else None
        syntax = config.settings.syntax
        answered = answered_program(translation.program, raw, syntax, judging.lenient)
        judged = judge(str(question.id), answered, syntax, dict(question.record), scenes, judging)
        record |= judged.to_json()
        why = why or judged.error
    return record | failed(why)


def answered_program(program: str | None, raw: str | None, syntax: str, lenient: bool) -> str | None:
    """The program to answer with: the translator's, or, read leniently, its last raw output
    (cleaned) where the translator's strict reading refused it."""
    from qlang.translate.postprocess import clean

    if program is not None or not (lenient and raw):
        return program
    return clean(raw, syntax)
