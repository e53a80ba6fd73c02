"""`qlangc experiment ...` and `qlangc eval`: measure translators, reproduce the thesis's tables."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from qlang import limits
from qlang.commands.console import (
    F,
    check_output,
    executor_from,
    executor_options,
    fail,
    output_folder,
    read_bytes,
    read_source,
)
from qlang.commands.seeking import seek_experiment
from qlang.commands.text import text_experiment
from qlang.commands.translate import read_question_file, translation_options, translator_from
from qlang.errors import Diagnostic, QlangError, error, shown
from qlang.executors import Local
from qlang.records.batch import failure
from qlang.records.jsonl import JsonLine, json_lines
from qlang.records.questions import questions_by_id
from qlang.syntax import SYNTAXES
from qlang.translate.factory import Loaded, Models, make
from qlang.translate.translator import Translates
from qlang.words import normal_question

if TYPE_CHECKING:
    from qlang.asp.scene import SceneLibrary
    from qlang.evaluate import experiments
    from qlang.evaluate.answers import Judged, JudgeOptions
    from qlang.evaluate.programs import ProgramScore
    from qlang.executors import Executor
    from qlang.translate.translator import Settings

_experiment_options = (
    click.option("--questions", "questions_file", type=click.Path(exists=True, dir_okay=False),
                 required=True, help="GQA question file (or JSON lines with id, question, semantic)."),
    click.option("--limit", type=click.IntRange(min=1), help="Only the first N questions."),
    click.option("--out", type=click.Path(file_okay=False), required=True,
                 help="Output folder: results.jsonl (resumable), report.md and PNG plots."),
    click.option("--scenes", type=click.Path(exists=True, dir_okay=False),
                 help="GQA scene graphs by image id: also solve each translation and judge its "
                      "answer (top-1/3/5, each generosity), raw and against the oracle."),
    click.option("--answerable-only", is_flag=True,
                 help="Only the questions the oracle answers over --scenes (thesis §3.4)."),
    executor_options("Worker processes, each making its own translators, or Ray actors with "
                      "--executor ray."),
)
#: How answers are judged, as the thesis did by default (shared by the experiments and eval).
_judging_options = (
    click.option("--reader", type=click.Choice(["lenient", "strict"]), default="lenient",
                 show_default=True,
                 help="How model output is read for answers: as the thesis did (an undefined flat "
                      "step is scene, any variable name) or qlang's strict readers."),
    click.option("--semantics", type=click.Choice(["thesis", "qlang"]), default="thesis",
                 show_default=True,
                 help="The thesis's or qlang's meaning of the theory's query/choose/common and of "
                      "the oracle's interpreter (docs/evaluation.md)."),
)


@click.group()
def experiment() -> None:
    """Run one of the seed thesis's experiments (or the constrained-decoding one)."""


@dataclass(frozen=True, slots=True)
class ExperimentRun:
    """What an experiment reads from its command line, beside the translation settings."""

    name: str
    base: Settings
    models: Models
    questions: list[experiments.Question]
    out: Path
    scenes: SceneLibrary | None
    judging: JudgeOptions
    executor: Executor
    command_line: str
    #: the experiment's own options, by name
    own: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ExperimentCommand:
    """An `experiment` subcommand: its help, how it runs (returning its report's path), its own
    options (`inputs`: those that name input files), whether it needs --scenes, and the
    translation settings it starts from where the command line leaves them at their default."""

    doc: str
    run: Callable[[ExperimentRun], Path]
    options: tuple[Callable[[F], F], ...] = ()
    inputs: tuple[str, ...] = ()
    needs_scenes: bool = False
    defaults: tuple[tuple[str, object], ...] = ()


def _compare(run: ExperimentRun) -> Path:
    """An experiment over translator configurations (`qlang.evaluate.experiments.EXPERIMENTS`):
    every configuration over every question, then the report."""
    from qlang.evaluate import experiments, report

    configs = experiments.EXPERIMENTS[run.name](run.base, run.own.get("models", ()))
    log = experiments.run(configs, run.questions, run.out, _factory(run.models), scenes=run.scenes,
                          judging=run.judging, executor=run.executor)
    axes = [axis for axis, _ in configs[0].axes]
    return report.write(run.out, f"Experiment: {run.name}", log, axes, run.command_line)


def _pipeline(run: ExperimentRun) -> Path:
    """The translator in the whole pipeline (`qlang.evaluate.end_to_end`), then its report."""
    from qlang.evaluate import end_to_end, experiments

    assert run.scenes is not None  # needs_scenes: checked before
    weighted, blind = run.own["weighted"], run.own["blind_weighted"]
    found = end_to_end.PipelineScenes(run.scenes, _library(weighted), _library(blind) if blind else None)
    translator = partial(_factory(run.models), experiments.TranslatorConfig("translation", run.base))
    log = end_to_end.run(run.questions, run.out, translator, found, run.base.syntax, judging=run.judging,
                       executor=run.executor)
    return end_to_end.write(run.out, log, run.command_line)


#: The experiments, by name (the seeking one is `qlang.commands.seeking.seek_experiment`).
EXPERIMENT_COMMANDS = {
    "prompt-grid": ExperimentCommand(
        "Examples {1,3,5,10,15} x sampling x cover_operators (thesis Tables 4-5).", _compare),
    "prompts": ExperimentCommand("Prompt versions v1-v10 (thesis Table 6).", _compare),
    "syntaxes": ExperimentCommand(
        "GQA vs flat vs nested vs code-like (thesis Tables 7-8); decoded freely, as the thesis did, "
        "unless --constrained (then GQA, without a grammar, is left out).", _compare,
        defaults=(("constrained", False),)),
    "constrained": ExperimentCommand("Unconstrained vs syntax-only vs GBNF vs llguidance decoding.",
                                     _compare),
    "models": ExperimentCommand("Any list of backends/models (thesis Table 9).", _compare, (
        click.option("--models", multiple=True, required=True,
                     help="backend:model, repeatable (e.g. llama-cpp:smollm2, llama-cpp:gemma3)."),)),
    "pipeline": ExperimentCommand(
        "The translator in the whole pipeline: isolated, base, pipeline and blind rows with top-1 vs "
        "base (thesis Table 10); needs --scenes and --weighted.", _pipeline, (
            click.option("--weighted", type=click.Path(exists=True, dir_okay=False), required=True,
                         help="Weighted scenes from the gold programs' concepts, by question or image id."),
            click.option("--blind-weighted", type=click.Path(exists=True, dir_okay=False),
                         help="Weighted scenes from the translations' concepts (the blind row)."),),
        inputs=("weighted", "blind_weighted"), needs_scenes=True),
}


def _experiment(name: str, spec: ExperimentCommand) -> None:
    def command(questions_file: str, limit: int | None, out: str, scenes: str | None, answerable_only: bool,
                reader: str, semantics: str, workers: int, executor: str, address: str | None,
                **options: Any) -> None:
        from qlang.evaluate import experiments
        from qlang.evaluate.answers import JudgeOptions

        runner = executor_from(executor, workers, address)
        if answerable_only and scenes is None:
            raise click.UsageError("--answerable-only needs --scenes")
        if spec.needs_scenes and scenes is None:
            raise click.UsageError(f"the {name} experiment needs --scenes (the ground truth)")
        output_folder(out, questions_file, scenes, *(options[key] for key in spec.inputs),
                      files=(experiments.LOG,))
        if options["translator"] == "auto":  # the thesis's experiments are few-shot ones
            options["translator"] = "fewshot"
        for key, value in spec.defaults:
            if _default(key):
                options[key] = value
        library = _library(scenes) if scenes else None
        command_line = "qlangc " + " ".join(shlex.quote(a) for a in sys.argv[1:])
        try:
            base, models = translator_from(options)  # what is left are the experiment's own
            questions = experiments.questions_of(read_question_file(questions_file, limit))
            if answerable_only and library is not None:
                questions = experiments.answerable_only(questions, library, semantics)
            report = spec.run(ExperimentRun(name, base, models, questions, Path(out), library,
                                            JudgeOptions(reader == "lenient", semantics),
                                            runner or Local(workers), command_line, options))
        except QlangError as exc:
            fail(exc)
        click.echo(f"report: {report}")

    command.__doc__ = spec.doc
    for option in reversed((*_experiment_options, *_judging_options, *spec.options)):
        command = option(command)
    experiment.command(name)(translation_options(command))


def _default(parameter: str) -> bool:
    """Whether the command line left the option at its default."""
    source = click.get_current_context().get_parameter_source(parameter)
    return source in (None, click.core.ParameterSource.DEFAULT)


def _factory(models: Models) -> Callable[[experiments.TranslatorConfig], Translates]:
    """Builds a translator per configuration, loading each model once."""
    loaded = Loaded()

    def made(config: experiments.TranslatorConfig) -> Translates:
        model = config.model if config.model is not None else models.model
        return make(config.settings, replace(models, backend=config.backend or models.backend, model=model),
                    loaded)

    return made


for _name, _spec in EXPERIMENT_COMMANDS.items():
    _experiment(_name, _spec)
experiment.add_command(seek_experiment)
experiment.add_command(text_experiment)


@click.command("eval")
@click.argument("translations", type=click.Path(exists=True, dir_okay=False))
@click.option("--questions", "question_files", type=click.Path(exists=True, dir_okay=False),
              multiple=True, required=True, help="GQA question file(s) with the gold programs.")
@click.option("--syntax", type=click.Choice(sorted(SYNTAXES)),
              help="Syntax of the translations (guessed per program if omitted).")
@click.option("--scenes", type=click.Path(exists=True, dir_okay=False),
              help="GQA scene graphs by image id: also judge answers, against the oracle.")
@click.option("--unseen", "seen_file", type=click.Path(exists=True, dir_okay=False),
              help="Training pairs (or any question file): also give the figures over the "
                   "questions whose text is not verbatim among them.")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@_judging_options[0]
@_judging_options[1]
@executor_options("Worker processes scoring and judging the translations, or Ray actors with "
                   "--executor ray.")
def evaluate(translations: str, question_files: tuple[str, ...], syntax: str | None,
             scenes: str | None, seen_file: str | None, as_json: bool, reader: str,
             semantics: str, workers: int, executor: str, address: str | None) -> None:
    """Evaluate JSON-lines TRANSLATIONS ({"id", "program"}) against gold programs and answers.

    strict: the same program; exact: the same up to the order of symmetric operands and of a
    choice's alternatives; execution: the same outcome on a suite of synthetic scenes.
    """
    from qlang.evaluate.answers import JudgeOptions
    from qlang.evaluate.programs import summarize

    runner = executor_from(executor, workers, address)
    gold: dict[str, dict[str, Any]] = {}
    for path in question_files:
        try:
            entries = read_question_file(path)
        except QlangError as exc:
            fail(exc)
        programs = {str(e.id): e.record for e in entries if e.id is not None and "semantic" in e.data}
        if not programs:
            fail(error(QlangError, "input", "not a question file (no record has an id and a 'semantic' "
                       "program)", path=path))
        gold |= programs
    lines = _translations(translations)
    pairs = [(r, gold[str(r.get("id"))]) for r in lines if str(r.get("id")) in gold]
    seen = _question_texts(seen_file) if seen_file else set()
    judging = JudgeOptions(reader == "lenient", semantics)
    job = Evaluating(syntax, judging, _library(scenes) if scenes else None)
    scores, unseen, judged, failed = [], [], [], 0
    try:
        results = list((runner or Local(workers)).map(job, pairs, batch=EVALUATED))
    except QlangError as exc:
        fail(exc)
    for (record, question), evaluated in zip(pairs, results, strict=True):
        if evaluated.error is not None:
            unscored = evaluated.score is None
            what = "not scored: its gold program cannot be read" if unscored else "counted wrong"
            click.echo(f"{translations}: id {record['id']}: {what}: {evaluated.error.full_message}", err=True)
        if evaluated.score is None:
            continue
        if evaluated.error is not None:
            failed += 1
        scores.append(evaluated.score)
        if evaluated.judged is not None:
            judged.append(evaluated.judged)
        if seen_file and normal_question(str(question.get("question", ""))) not in seen:
            unseen.append(evaluated.score)
    figures = {"all": summarize(scores)} | ({"verbatim-unseen": summarize(unseen)} if seen_file else {})
    _print_evaluation(len(lines), figures, _latency([record for record, _ in pairs]), judged, failed, as_json)


#: Translations a task of `eval` scores and judges.
EVALUATED = 16


@dataclass(frozen=True, slots=True)
class Evaluated:
    """What `eval` makes of a translation: its program score (None where the gold program
    cannot be read: then `error` says why), its judged answers (where the scenes have its
    image), and why it counts as wrong without being so (a failure of qlang's or of the data
    while scoring or judging it)."""

    score: ProgramScore | None
    judged: Judged | None = None
    error: Diagnostic | None = None


@dataclass(frozen=True, slots=True)
class Evaluating:
    """The job of `eval` (`qlang.executors`): (translation, gold question) records in, each
    one's `Evaluated` out: every translation counted, a failure of one costing only itself."""

    syntax: str | None
    judging: JudgeOptions
    scenes: SceneLibrary | None

    def setup(self) -> Callable[[list[tuple[dict[str, Any], dict[str, Any]]]], list[Evaluated]]:
        return lambda pairs: [self.evaluate(record, question) for record, question in pairs]

    def evaluate(self, record: dict[str, Any], question: dict[str, Any]) -> Evaluated:
        from qlang.evaluate.answers import judge
        from qlang.evaluate.experiments import answered_program
        from qlang.evaluate.lenient import detect as lenient_detect
        from qlang.evaluate.programs import counted
        from qlang.syntax import detect, gqa

        program = record.get("program") if isinstance(record.get("program"), str) else None
        raw = record.get("raw") if isinstance(record.get("raw"), str) else None
        lenient = self.judging.lenient
        syntax = self.syntax or (lenient_detect if lenient else detect)(program or raw or "")
        try:
            gold = gqa.to_ir(gqa.steps_from_json(question["semantic"]))
        except Exception as exc:  # this translation alone is not scored, and the reason is given
            return Evaluated(None, error=failure(exc).diagnostics[0])
        scored, failed = counted(program, syntax, gold)
        if self.scenes is None or question.get("imageId") not in self.scenes.image_ids:
            return Evaluated(scored, error=failed)
        judged = judge(str(record["id"]), answered_program(program, raw, syntax, lenient), syntax,
                       question, self.scenes, self.judging)
        return Evaluated(scored, judged, failed or judged.error)


def _question_texts(path: str) -> set[str]:
    try:
        return {normal_question(str(r.get("question", ""))) for r in questions_by_id(path).values()}
    except QlangError as exc:
        fail(exc)


def _latency(records: list[dict[str, Any]]) -> dict[str, float]:
    """Median and 90th percentile of the translations' recorded seconds (model load excluded)."""
    seconds = sorted(float(r["seconds"]) for r in records if isinstance(r.get("seconds"), int | float))
    if not seconds:
        return {}
    return {"median_s": seconds[len(seconds) // 2], "p90_s": seconds[int(0.9 * (len(seconds) - 1))]}


def _translations(path: str) -> list[dict[str, Any]]:
    """The translation records; a line that is not one is reported and skipped."""
    records = []
    for line in json_lines(read_bytes(path, limits.QUESTIONS)):
        if line.data is not None and "id" in line.data:
            records.append(line.data)
        else:
            click.echo(f"{path}:{line.number}: skipped: not a translation record "
                       f"({shown(str(_what(line)))})", err=True)
    return records


def _what(line: JsonLine) -> object:
    """What a line that is no translation record holds instead: its JSON value, or why none."""
    if isinstance(line.error, UnicodeDecodeError):
        return "not UTF-8 text"
    if isinstance(line.error, json.JSONDecodeError):
        return line.error.msg
    return line.problem() if line.error else line.value


def _library(path: str) -> Any:
    """Scene graphs for the oracle, which reads WordNet: a missing WordNet is a setup error here,
    before any question, not a failure of every question (which would count them all wrong)."""
    from qlang import wordnet
    from qlang.asp.scene import SceneLibrary

    try:
        library = SceneLibrary(read_source(path, limits.SCENE))
        wordnet.reader()
    except QlangError as exc:
        fail(exc)
    except wordnet.WordNetMissing as exc:
        fail(error(QlangError, "setup", f"the oracle needs WordNet: {exc}"))
    return library


def _print_evaluation(lines: int, figures: dict[str, Any], latency: dict[str, float],
                      judged: list[Any], failed: int, as_json: bool) -> None:
    """The figures; `failed` translations count as wrong for a failure that is not theirs (each
    named on standard error), said where there are any."""
    from qlang.evaluate.answers import table

    rows = table(judged) if judged else []
    summary = figures["all"]
    if as_json:
        programs = {name: s.to_json() for name, s in figures.items()}
        click.echo(json.dumps({"lines": lines, "programs": programs.pop("all"), **programs,
                               **({"failed": failed} if failed else {}), "latency": latency,
                               "answers": rows}))
        return
    click.echo(f"{summary.total} of {lines} translations have a gold program")
    for name, s in figures.items():
        click.echo(f"{name} ({s.total}): parse {s.parse_rate:.1%}, check {s.check_rate:.1%}, exact "
                   f"{s.exact_rate:.1%}, strict {s.strict_rate:.1%}, execution {s.execution_rate:.1%}")
    if failed:
        click.echo(f"failed: {failed} of {summary.total} counted wrong for a failure of qlang's or of the "
                   "data while scoring or judging (each named on standard error)")
    if latency:
        click.echo(f"seconds per question: median {latency['median_s']:.3f}, p90 {latency['p90_s']:.3f}")
    click.echo(f"dropped operations: {dict(summary.dropped.most_common(5))}; "
               f"invented: {dict(summary.invented.most_common(5))}")
    if rows:
        click.echo(f"\n{len(judged)} with a scene graph, {rows[0]['answerable']} answerable by the oracle\n")
        click.echo("| generosity | k | accuracy | vs oracle |\n|---|---|---|---|")
        for row in rows:
            accuracy, oracle = f"{row['accuracy']:.1%}", f"{row['vs_oracle']:.1%}"
            click.echo(f"| {row['generosity']} | {row['k']} | {accuracy} | {oracle} |")


@click.command()
@click.argument("questions_file", metavar="QUESTIONS", type=click.Path(exists=True, dir_okay=False))
@click.option("--scenes", type=click.Path(exists=True, dir_okay=False), required=True,
              help="GQA scene graphs by image id.")
@click.option("--mode", type=click.Choice(["wordnet", "curated"]), default="curated", show_default=True,
              help="Category knowledge deciding the answerable subset: WordNet alone (the thesis's "
                   "'pure') or the curated GQA mapping first ('w/ metadata').")
@click.option("--semantics", type=click.Choice(["thesis", "qlang"]), default="thesis", show_default=True,
              help="The interpreter's semantics: the thesis's §4.1, or the ASP theory's.")
@click.option("--output", type=click.Path(dir_okay=False),
              help="Write the answerable questions here (a GQA question file, by id).")
def oracle(questions_file: str, scenes: str, mode: str, semantics: str, output: str | None) -> None:
    """Run every gold program of QUESTIONS over its scene graph: the failure classes of both
    modes (thesis Table 11) and the answerable questions of --mode."""
    from qlang.evaluate import oracle as run

    check_output(output, questions_file, scenes)
    try:
        questions = [e.record for e in read_question_file(questions_file) if "semantic" in e.data]
    except QlangError as exc:
        fail(exc)
    graphs = _graphs(scenes)
    found = {m: run.verdicts(questions, graphs, m, semantics) for m in run.MODES}
    click.echo(run.table(found))
    kept = {str(q["id"]): {k: v for k, v in q.items() if k != "id"} for q in questions
            if found[mode][str(q["id"])] == run.ANSWERABLE}
    click.echo(f"\n{len(kept)} of {len(questions)} questions answerable ({mode}, {semantics} semantics)")
    if output is not None:
        Path(output).write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")


def _graphs(path: str) -> dict[str, Any]:
    """The scene graphs by image id (a file holding one graph has no ids to match questions)."""
    library = _library(path)
    return {image: library.graph(image) for image in library.image_ids}
