"""`qlangc perceive`: a photo (or a folder of photos) in, a weighted scene out; and the
perception options `ask --image` shares with it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from qlang import limits
from qlang.commands.console import (
    Bounded,
    check_distinct,
    check_output,
    check_replaced,
    fail,
    read_source,
    run_and_exit,
)
from qlang.errors import QlangError
from qlang.records.output import holding
from qlang.timing import Stages
from qlang.vision.concepts import Concepts
from qlang.vision.perception import Thresholds

_KEYS = ("vision", "detector", "clip", "device", "refine", "threshold", "attribute_threshold",
         "relation_threshold", "top_n", "text")


def vision_options(backend_flag: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The perception options; `backend_flag` names the choice of perceiver (`ask` has its own
    `--backend`, the language model's)."""
    from qlang.vision.perceiving import PERCEIVERS

    defaults = Thresholds()
    options = (
        click.option(backend_flag, "vision", type=click.Choice(list(PERCEIVERS)), default="ssd",
                     show_default=True,
                     help="ssd: the embedded COCO detector, colour and geometry; owlvit: OWL-ViT + CLIP."),
        click.option("--detector", help="owlvit: an OWL-ViT/OWLv2 directory (or a model id, with hub "
                     "access)."),
        click.option("--clip", help="owlvit: a CLIP directory (or a model id, with hub access)."),
        click.option("--device", help="owlvit: torch device (default: cuda where present, else cpu)."),
        click.option("--refine", is_flag=True, help="ssd: name each box by an ImageNet classifier too."),
        click.option("--threshold", type=Bounded(min=0, max=1), default=defaults.detection,
                     show_default=True, help="Least detection confidence kept."),
        click.option("--attribute-threshold", type=Bounded(min=0, max=1), default=defaults.attribute,
                     show_default=True, help="Least attribute likelihood kept."),
        click.option("--relation-threshold", type=Bounded(min=0, max=1), default=defaults.relation,
                     show_default=True, help="Least relation likelihood kept."),
        click.option("--top-n", type=click.IntRange(min=1, max=1000), default=defaults.objects,
                     show_default=True, help="Most objects kept per image."),
        click.option("--text/--no-text", default=None,
                     help="Read the photo's text too (OCR), each region an object of class words or "
                     "number: always, or never (default: when the question asks about words, numbers, "
                     "letters, logos, signs or labels)."),
    )

    def attach(command: Callable[..., Any]) -> Callable[..., Any]:
        for option in reversed(options):
            command = option(command)
        return command

    return attach


def _is_scene(head: bytes) -> bool:
    """Whether a file's first bytes are a weighted scene's, as `perceive -o` writes them."""
    return head.lstrip().startswith(b"{") and b'"objects"' in head


def take_options(kwargs: dict[str, Any]) -> Any:
    """Pop the perception options out of a command's arguments, as `perceiving.Options`."""
    from qlang.vision.perceiving import Options

    v = {key: kwargs.pop(key) for key in _KEYS}
    thresholds = Thresholds(v["threshold"], v["attribute_threshold"], v["relation_threshold"], v["top_n"])
    return Options(v["vision"], v["detector"], v["clip"], v["device"], v["refine"], thresholds, v["text"])


@click.command()
@click.argument("image", type=click.Path(exists=True))
@click.option("--question", help="Look for what this question mentions (the rule-based extractor).")
@click.option("--program", type=click.Path(exists=True, dir_okay=False, allow_dash=True),
              help="Look for what this program needs (any syntax).")
@click.option("--concepts", "concepts_file", type=click.Path(exists=True, dir_okay=False),
              help="Look for these concepts (JSON: classes, attributes, values, relations).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="Write the scene here (a folder IMAGE: the JSON-lines results; resumable).")
@click.option("--draw", type=click.Path(dir_okay=False), help="Draw the boxes on the image, as PNG.")
@click.option("--force", is_flag=True, help="Replace an existing -o that is no weighted scene, or --draw "
              "that is no PNG.")
@vision_options("--backend")
def perceive(image: str, question: str | None, program: str | None, concepts_file: str | None,
             output: str | None, draw: str | None, force: bool, **kwargs: Any) -> None:
    """Look at IMAGE (a photo, or a folder of them) and write its weighted scene.

    Without --question/--program/--concepts every object the detector knows is kept.
    """
    from qlang.vision import perceiving

    options = take_options(kwargs)
    if sum(x is not None for x in (question, program, concepts_file)) > 1:
        raise click.UsageError("give at most one of --question, --program and --concepts")
    check_distinct(("-o", output), ("--draw", draw))
    check_output(output, image, program, concepts_file)
    check_output(draw, image, program, concepts_file, output)
    if not Path(image).is_dir():  # a folder's -o is JSON lines, resumed (`run_and_exit`)
        check_replaced(output, "weighted scene", _is_scene, force=force)
    check_replaced(draw, "PNG", lambda head: head.startswith(b"\x89PNG\r\n\x1a\n"), force=force)
    try:
        concepts = _concepts(question, program, concepts_file)
    except QlangError as exc:
        fail(exc)
    if Path(image).is_dir():
        if draw is not None:
            raise click.UsageError("--draw takes one image, not a folder")
        from qlang.vision import batch

        job = batch.Perceiving(options, concepts)
        run_and_exit(lambda out: batch.run(Path(image), job, out), output, image, holding("scene", "seconds"))
    try:
        stages = Stages()
        with stages.time("load detector"):
            perceiver = perceiving.make_perceiver(options)
        seen = perceiving.perceive(image, concepts, perceiver, options.thresholds, stages)
        pixels, perception, graph = seen.pixels, seen.perception, seen.graph
    except QlangError as exc:
        fail(exc)
    text = json.dumps(graph, indent=1)
    if output is None:
        click.echo(text)
    else:
        Path(output).write_text(text + "\n", encoding="utf-8")
    if draw is not None:
        from qlang.vision.draw import draw as draw_boxes

        draw_boxes(pixels, perception, draw)
    click.echo(f"objects: {len(perception.objects)}, relations: {len(perception.relations)}", err=True)
    click.echo(f"time:    {stages.line()}", err=True)


def _concepts(question: str | None, program: str | None, concepts_file: str | None) -> Concepts | None:
    from qlang import api
    from qlang.vision import perceiving

    if question is not None:
        return perceiving.from_question(question)
    if program is not None:
        source = read_source(program, limits.PROGRAM)
        return perceiving.from_program(api.compile(source.text, name=source.name))
    return perceiving.read_concepts(concepts_file) if concepts_file is not None else None
