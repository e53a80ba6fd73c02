"""`qlangc solve` and `qlangc explain`: answer a program over a scene, and say why.

Same promises as the rest of `qlangc`: exit status 1 for bad input or a question that cannot
be answered (no answer, timeout, grounding guard), 2 for wrong usage, never a traceback.
`qlang.commands.main` imports this module only when `solve` or `explain` runs, so clingo and the
theory's helpers are imported at the top.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, NoReturn

import click

from qlang import executors
from qlang.asp import batch
from qlang.asp.background import Background
from qlang.asp.explain import explain as explain_answer
from qlang.asp.explain import first_empty, trace
from qlang.asp.options import DEFAULT_LIMITS, Limits, SolveOptions
from qlang.asp.outcome import SolveError
from qlang.asp.query import Query
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve as solve_query
from qlang.asp.theory import SEMANTICS
from qlang.commands.background_options import answering_options, background_from
from qlang.commands.console import (
    Bounded,
    check_output,
    executor_from,
    executor_options,
    fail,
    output_option,
    read_lines,
    read_source,
    run_and_exit,
)
from qlang.errors import QlangError, Source, error
from qlang.limits import PROGRAM, SCENE
from qlang.passes.lower import facts
from qlang.records.output import holding
from qlang.syntax import SYNTAXES

if TYPE_CHECKING:
    from qlang.text.gather import Texts

_path = click.Path(allow_dash=True, dir_okay=False)
#: Bounds of the numeric options: a day per question, far more rules than memory holds.
MAX_TIMEOUT, MAX_GROUND, MAX_TOP_K = 86_400, 10**12, 1000
_options = (
    click.option("--program", type=_path, default="-", show_default=True,
                 help="The question program, in any syntax (with --jsonl: a JSON-lines file)."),
    click.option("--scene", type=_path, required=True,
                 help="GQA scene-graph JSON (one graph or graphs by image id), or ASP facts."),
    click.option("--image-id", help="The scene's image id, when the file holds several."),
    click.option("--from", "from_", type=click.Choice(sorted(SYNTAXES)),
                 help="Program syntax (guessed if omitted)."),
    click.option("--timeout", type=Bounded(min=0, max=MAX_TIMEOUT, min_open=True),
                 default=DEFAULT_LIMITS.timeout, show_default=True, help="Seconds per question."),
    click.option("--max-ground", type=click.IntRange(min=1, max=MAX_GROUND),
                 default=DEFAULT_LIMITS.max_ground, show_default=True,
                 help="The grounding guard: most estimated ground rules."),
    click.option("--semantics", type=click.Choice(SEMANTICS), default="qlang", show_default=True,
                 help="query/choose/common choose among the values the scene has (qlang) or "
                      "among the value domain (the seed thesis's theory)."),
)


def _common(command: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(_options):
        command = option(command)
    return answering_options(command)


@click.command()
@_common
@click.option("--top-k", type=click.IntRange(min=1, max=MAX_TOP_K), default=1, show_default=True,
              help="How many models (answer sets), best first: an answer a model, with its rank.")
@click.option("--distinct", is_flag=True,
              help="The k best distinct answers instead of the k best models.")
@click.option("--bindings", is_flag=True,
              help="Also every object each step of the best model bound (the answer's bindings).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the answers (and bindings) as one JSON object.")
@click.option("--jsonl", is_flag=True,
              help='Batch: each --program line is {"id", "program" | "semantic", "image_id" | "imageId"}.')
@output_option
@executor_options("Batch: worker processes, or Ray actors with --executor ray.")
def solve(program: str, scene: str, image_id: str | None, from_: str | None, timeout: float,
          max_ground: int, semantics: str, kb: tuple[str, ...], rules: str | None, rank: str, texts: Texts,
          top_k: int, distinct: bool, bindings: bool, as_json: bool, jsonl: bool, output: str | None,
          workers: int, executor: str, address: str | None) -> None:
    """Answer a question program over a scene: one model a line, best first, as its answer and
    cost, after its rank when --top-k is above 1 (tied models share a rank); --distinct: one
    answer a line; --bindings: then the objects each step bound."""
    runner = executor_from(executor, workers, address, batch=jsonl)
    if jsonl and as_json:
        raise click.UsageError("--json is for one question: --jsonl writes a JSON line each")
    check_output(output, program, scene, rules)
    scenes = _scenes(scene)
    background = background_from(kb, rules, rank, texts)
    options = SolveOptions(top_k, distinct, Limits(timeout, max_ground), semantics, background, bindings)
    if jsonl:
        _batch(program, batch.BatchSettings(scenes, options), from_, output, workers, runner)
    query, source = _query(program, from_, background)
    try:
        result = solve_query(query, scenes.facts(image_id), options)
    except QlangError as exc:
        fail(exc, source)
    if not result.answers:
        fail(error(SolveError, "no-answer", "the question has no answer in this scene"), source)
    bound = trace(result.answers[0], result.atoms) if bindings else None
    if as_json:
        found: dict[str, object] = {"answers": [a.to_json() for a in result.answers]}
        if bound is not None:
            found["bindings"] = bound.bindings()
        click.echo(json.dumps(found))
    for answer in () if as_json else result.answers:
        cost = f"\t{','.join(map(str, answer.cost))}" if any(answer.cost) else ""
        ranked = top_k > 1 and not distinct
        click.echo(f"{answer.rank}\t{answer.value}{cost}" if ranked else f"{answer.value}{cost}")
    if bound is not None and not as_json:
        click.echo("bindings:\n" + "\n".join(f"  {line}" for line in bound.render_bindings().splitlines()))
    if not result.complete:
        click.echo(f"{source.name}: warning: the timeout cut the search short after "
                   f"{len(result.answers)} answer(s)", err=True)


@click.command()
@_common
@click.option("--answer", help="Explain this answer instead of the best one.")
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
def explain(program: str, scene: str, image_id: str | None, from_: str | None, timeout: float,
            max_ground: int, semantics: str, kb: tuple[str, ...], rules: str | None, rank: str,
            texts: Texts, answer: str | None, as_json: bool) -> None:
    """Show how the answer comes about: each step, the objects it kept, the facts behind it (and
    the rules behind the facts they derived)."""
    if answer is not None and not answer.strip():
        raise click.UsageError("--answer needs a word")
    scenes = _scenes(scene)
    background = background_from(kb, rules, rank, texts)
    query, source = _query(program, from_, background)
    scene = scenes.facts(image_id)
    options = SolveOptions(limits=Limits(timeout, max_ground), semantics=semantics, background=background)
    try:
        result = explain_answer(query, scene, answer=answer, options=options)
        nothing = None if result is not None or answer is not None else first_empty(query, scene, options)
    except QlangError as exc:
        fail(exc, source)
    if result is None:
        what = f"{answer!r} is not a possible answer" if answer else "the question has no answer"
        if nothing is not None:  # the steps up to the first that kept nothing, then why
            click.echo(json.dumps(nothing.to_json(), indent=2) if as_json else nothing.render())
        where = f": {nothing.message()}" if nothing is not None else ""
        fail(error(SolveError, "no-answer", f"{what} in this scene{where}"), source)
    click.echo(json.dumps(result.to_json(), indent=2) if as_json else result.render())


def _scenes(path: str) -> SceneLibrary:
    source = read_source(path, SCENE)
    try:
        return SceneLibrary(source)
    except QlangError as exc:
        fail(exc)


def _query(path: str, syntax: str | None, background: Background) -> tuple[Query, Source]:
    """The program, compiled (parsed and checked once, against the rules' words and the
    knowledge's too) and lowered, and its source; a parse or type error is reported against it."""
    source = read_source(path, PROGRAM)
    try:
        return facts(background.compile(source.text, syntax, name=source.name)), source
    except QlangError as exc:
        fail(exc, source)


def _batch(path: str, settings: batch.BatchSettings, syntax: str | None, output: str | None,
           workers: int, executor: executors.Executor | None) -> NoReturn:
    lines = read_lines(path)
    run_and_exit(lambda out: batch.run(lines, settings, out, syntax=syntax, workers=workers,
                                       executor=executor), output, path,
                 holding("answers", "complete", "bindings"))


