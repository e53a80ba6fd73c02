"""`qlangc ask --seek`: the question answered by a planner over qlang's tools (`qlang.seek`),
printed with its trace; "cannot tell" exits with status 4 (`CANNOT_TELL_STATUS`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

import click

from qlang import limits
from qlang.commands.console import Bounded, fail, read_source
from qlang.errors import QlangError
from qlang.seek import GRAPHS, PLANNERS, Context

#: the exit status of an answer that is "cannot tell" (plain `ask` uses it too, for a "no"
#: about a word its perceiver cannot see)
CANNOT_TELL_STATUS = 4

_KEYS = ("seek", "planner", "graph", "max_steps", "budget_ms", "trace")


def seek_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed((
        click.option("--seek", is_flag=True, help="Answer by seeking: a planner chooses among "
                     "qlang's tools, backtracks, and says 'cannot tell' (exit 4) when none decides."),
        click.option("--planner", type=click.Choice(PLANNERS), default="priority", show_default=True,
                     help="--seek: the graph's order, or the bundled SmolLM2 choosing under the "
                     "graph as its grammar."),
        click.option("--graph", type=click.Choice(sorted(GRAPHS)), default="avis", show_default=True,
                     help="--seek: the transition graph, or none (every tool in every state)."),
        click.option("--max-steps", type=click.IntRange(1, 1000), default=24, show_default=True,
                     help="--seek: the most tools run."),
        click.option("--budget-ms", type=Bounded(min=0, max=86_400_000, min_open=True), default=60_000,
                     show_default=True, help="--seek: the most milliseconds, model loads included."),
        click.option("--trace", type=click.Choice(["text", "json"]), default="text", show_default=True,
                     help="--seek: the trace as a table, or everything as one JSON object."),
    )):
        command = option(command)
    return command


@dataclass(frozen=True)
class Seeking:
    planner: str
    graph: str
    max_steps: int
    budget_ms: float
    trace: str

    def run(self, question: str, scene: str | None, image: str | None, image_id: str | None,
            context: Context) -> NoReturn:
        """Seek the answer, print it with its trace, and exit (0, or 4: cannot tell)."""
        from qlang.asp.scene import SceneLibrary
        from qlang.seek import Bounds, load_planner, seek

        try:
            graph = facts = None
            if scene is not None:
                library = SceneLibrary(read_source(scene, limits.SCENE))
                facts = library.facts(image_id)  # validates the scene
                graph = library.graph(image_id)
            sought = seek(question, context, image=image, scene=graph,
                          scene_facts=facts if graph is None else None, planner=load_planner(self.planner),
                          graph=GRAPHS[self.graph], bounds=Bounds(self.max_steps, self.budget_ms))
        except QlangError as exc:
            fail(exc)
        if self.trace == "json":
            click.echo(json.dumps(sought.to_json(), indent=1))
        else:
            click.echo(sought.render())
            click.echo(f"program: {sought.program or '(none)'}")
            click.echo(f"time:    {sought.stages.line()}")
        sys.exit(0 if sought.answer is not None else CANNOT_TELL_STATUS)


def take_seek(options: dict[str, Any]) -> Seeking | None:
    """Pop the seek options out of a command's arguments; None without --seek."""
    values = {key: options.pop(key) for key in _KEYS}
    if not values.pop("seek"):
        return None
    return Seeking(**values)


@click.command("seek")
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="The folder for the log and the report.")
@click.option("--photos", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Labelled photo questions, repeatable (default: the bundled ones, "
              "qlang/data/seek/photos.json and photo_set.json).")
@click.option("--half", type=click.Choice(["test", "calibration", "all"]), default="test", show_default=True,
              help="Of a photo file split by photo, the half asked.")
@click.option("--gqa/--no-gqa", default=True, show_default=True,
              help="Also the real GQA scenes of the shared data, and their perturbed copies.")
@click.option("--llm", is_flag=True, help="Also the LLM planner, with and without the graph.")
@click.option("--config", "chosen", multiple=True, metavar="NAME",
              help="Only this configuration ('pipeline', 'seek', ...), repeatable (default: all but the "
              "LLM planner's).")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many questions of each set.")
@click.option("--before", type=click.Path(exists=True, file_okay=False),
              help="An earlier run's folder (its results.jsonl): the report compares with it.")
@click.option("--progress/--no-progress", default=True, show_default=True)
def seek_experiment(out: str, photos: tuple[str, ...], half: str, gqa: bool, llm: bool,
                    chosen: tuple[str, ...], limit: int | None, before: str | None, progress: bool) -> None:
    """The fixed pipeline vs seek vs seek without the transition graph (AVIS's ablation), on
    labelled photo questions and on real GQA scenes (also with an object removed, or its
    confidence lowered): accuracy, answer rate, "cannot tell" rate, steps and time."""
    import shlex
    from pathlib import Path

    from qlang.commands.console import output_folder
    from qlang.evaluate import seeking
    from qlang.evaluate.experiments import LOG

    known = seeking.CONFIGS | seeking.LLM_CONFIGS
    if unknown := [name for name in chosen if name not in known]:
        raise click.UsageError(f"no configuration {unknown[0]!r} (known: {', '.join(map(repr, known))})")
    configs = {name: config for name, config in known.items() if name in chosen} if chosen \
        else seeking.CONFIGS | (seeking.LLM_CONFIGS if llm else {})
    output_folder(out, *photos, files=(LOG,))
    try:
        items = [item for path in (map(Path, photos) if photos else (seeking.PHOTOS, seeking.PHOTO_SET))
                 for item in seeking.photo_items(path, None if half == "all" else half)[:limit]]
        if gqa:
            found = seeking.gqa_items()
            items += [i for group in dict.fromkeys(i.group for i in found)
                      for i in [j for j in found if j.group == group][:limit]]
        log = seeking.run(items, Path(out), configs, Context(), progress)
        report = seeking.write(Path(out), log, "qlangc " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
                               Path(before) / LOG if before else None)
    except QlangError as exc:
        fail(exc)
    click.echo(f"report: {report}")
