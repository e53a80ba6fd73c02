"""`qlangc ask`: a question about a scene or a photo, answered by the whole system."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from qlang import limits, pipeline
from qlang.asp.options import Limits
from qlang.commands.background_options import answering_options, background_from
from qlang.commands.console import Bounded, fail, read_source
from qlang.commands.seeking import CANNOT_TELL_STATUS, seek_options, take_seek
from qlang.commands.translate import translation_options, translator_from
from qlang.commands.vision import take_options, vision_options
from qlang.errors import QlangError
from qlang.seek import Context
from qlang.timing import Stages
from qlang.translate.factory import Loaded, make

if TYPE_CHECKING:
    from qlang.text.gather import Texts


@click.command()
@click.argument("question")
@click.option("--scene", type=click.Path(allow_dash=True, dir_okay=False),
              help="GQA scene-graph JSON (one graph or graphs by image id), or ASP facts.")
@click.option("--image", type=click.Path(exists=True, dir_okay=False),
              help="A photo instead of --scene: perceived into a weighted scene (qlangc perceive).")
@click.option("--image-id", help="The scene's image id, when the file holds several.")
@click.option("--top-k", type=click.IntRange(min=1, max=1000), default=3, show_default=True,
              help="How many distinct answers, best first (as solve --distinct).")
@click.option("--timeout", type=Bounded(min=0, max=86_400, min_open=True), default=10.0, show_default=True,
              help="Seconds for solving.")
@answering_options
@seek_options
@translation_options
@vision_options("--vision")
def ask(question: str, scene: str | None, image: str | None, image_id: str | None, top_k: int,
        timeout: float, kb: tuple[str, ...], rules: str | None, rank: str, texts: Texts,
        **options: Any) -> None:
    """Answer QUESTION about a scene (or a photo): translate, check, solve; print answers,
    program, timings (every model load among them)."""
    from qlang.asp.scene import SceneLibrary

    if (scene is None) == (image is None):
        raise click.UsageError("give one of --scene and --image")
    seeking = take_seek(options)
    vision = take_options(options)
    settings, models = translator_from(options)
    background = background_from(kb, rules, rank, texts)
    settings = replace(settings, knowledge=background.knowledge)  # the words the translator may copy
    if seeking is not None:
        context = Context(settings, models, vision=vision, background=background,
                          limits=Limits(timeout=timeout))
        seeking.run(question, scene, image, image_id, context)
    stages = Stages()
    loaded = Loaded()
    try:
        facts = None
        if scene is not None:
            with stages.time("scene"):
                facts = SceneLibrary(read_source(scene, limits.SCENE)).facts(image_id)
        translator = make(settings, models, loaded)
        solving = replace(pipeline.ASKED, top_k=top_k, limits=Limits(timeout=timeout), background=background)
        answered = pipeline.ask(question, translator, pipeline.Subject(facts, image, vision), loaded=loaded,
                                options=solving, stages=stages)
    except pipeline.Untranslated as exc:
        click.echo(f"model output: {exc.translation.program!r}", err=True)
        fail(exc)
    except QlangError as exc:
        fail(exc)
    assert answered.translation is not None
    answers = ", ".join(a.value for a in answered.answers) or "(no answer)"
    if answered.doubts:
        answers = f"cannot tell ({'; '.join(answered.doubts)})"
    click.echo(f"answer:  {answers}")
    click.echo(f"program: {answered.translation.program}")
    for word in answered.translation.unknown:  # the answer is about what the program reads
        click.echo(f"note:    {word.message}")
    for word in answered.translation.kept:  # the program reads the question's word
        click.echo(f"note:    {word.kept}")
    for note in answered.notes:  # what the answer takes for granted
        click.echo(f"note:    {note}")
    click.echo(f"time:    {stages.line()}")
    if not answered.answers:
        sys.exit(CANNOT_TELL_STATUS if answered.doubts else 1)
