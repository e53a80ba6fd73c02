"""`qlangc serve`: the web page (`qlang.web`) on this machine, its models loaded once."""

from __future__ import annotations

import signal
import socket
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import click

from qlang import limits
from qlang.asp.options import Limits
from qlang.commands.background_options import answering_options, background_from
from qlang.commands.console import Bounded, fail, read_source
from qlang.commands.translate import translation_options, translator_from
from qlang.commands.vision import take_options, vision_options
from qlang.errors import QlangError, error
from qlang.text import ranking
from qlang.translate.factory import Loaded, Models, make
from qlang.translate.translator import Settings

if TYPE_CHECKING:
    from qlang.text.gather import Texts
    from qlang.vision.perceiving import Options
    from qlang.web.service import Service


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Where to listen: 127.0.0.1 is this machine alone; 0.0.0.0 every network it is on.")
@click.option("--port", type=click.IntRange(0, 65_535), default=8000, show_default=True,
              help="The port (0: any free one, printed).")
@click.option("--scenes", "scene_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A GQA scene-graph file to offer on the page (repeatable; default: the shared "
                   "data's scene graphs).")
@click.option("--timeout", type=Bounded(min=0, max=86_400, min_open=True), default=10.0, show_default=True,
              help="Seconds for solving a question.")
@click.option("--idle-timeout", type=Bounded(min=0, max=3_600, min_open=True), default=30.0,
              show_default=True, help="Seconds an upload may send nothing before it is given up.")
@click.option("--workers", type=click.IntRange(1, 64), default=4, show_default=True,
              help="Worker processes answering at once, each with its own models (0.3-0.7 GB each).")
@click.option("--budget", type=Bounded(min=0, max=86_400, min_open=True), default=60.0, show_default=True,
              help="Seconds a request may take in its worker, translating, perceiving and solving "
                   "together: past it, the answer is 'cannot tell' and the worker is replaced.  (The "
                   "fine-tuned fallback takes 1-2 s on 2 idle cores, up to 35 s on busy ones.)")
@click.option("--waiting", type=click.IntRange(0, 10_000), default=16, show_default=True,
              help="Requests that may wait for a free worker; past them, one is told the server is busy.")
@answering_options
@translation_options
@vision_options("--vision")
def serve(host: str, port: int, scene_files: tuple[str, ...], timeout: float, idle_timeout: float,
          workers: int, budget: float, waiting: int, kb: tuple[str, ...], rules: str | None, rank: str,
          texts: Texts, **options: Any) -> None:
    """Serve a web page for asking about a photo or a GQA scene graph: the answers, the program
    in each syntax, the boxes seen, which objects each step kept, and timings; the program can
    be edited and solved again.  Worker processes answer, each with the models, knowledge and
    rules loaded once; a request's files are gone when it ends."""
    import uvicorn

    from qlang.web.app import make_app, page_for
    from qlang.web.workers import Workers

    vision = take_options(options)
    settings, models = translator_from(options)
    background_from(kb, rules, rank, texts)  # a bad file ends it here, before it listens or a worker starts
    recipe = _Recipe(settings, models, vision, scene_files or tuple(map(str, _default_scene_files())), kb,
                     rules, rank, texts, timeout)
    try:
        listening = _listen(host, port)  # first: a port in use is said before models load
        pool = Workers(partial(_service, recipe), page_for, workers=workers, waiting=waiting, budget=budget)
    except QlangError as exc:
        fail(exc)
    try:
        click.echo(f"loaded:  {workers} workers in {pool.loaded:.1f} s", err=True)
        where = f"[{host}]" if ":" in host else host
        click.echo(f"serving http://{where}:{listening.getsockname()[1]}/ (Ctrl-C to stop)")
        config = uvicorn.Config(make_app(pool, idle_timeout), log_level="warning", lifespan="off",
                                timeout_graceful_shutdown=2)
        # uvicorn shuts down on Ctrl-C or SIGTERM, then raises the signal again: both end it quietly
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            uvicorn.Server(config).run(sockets=[listening])
        except KeyboardInterrupt:
            click.echo("stopped", err=True)
    finally:
        pool.close()


def _default_scene_files() -> list[Any]:
    from qlang.web.sources import default_scene_files

    return default_scene_files()


@dataclass(frozen=True, slots=True)
class _Recipe:
    """What a worker builds its service from: the command's options, checked (picklable)."""

    settings: Settings
    models: Models
    vision: Options
    scene_files: tuple[str, ...]
    kb: tuple[str, ...]
    rules: str | None
    rank: str
    texts: Texts
    timeout: float


def _service(recipe: _Recipe) -> Service:
    """A worker's service: the scenes, translator, detector, photos, knowledge and rules."""
    from qlang.vision.perceiving import make_perceiver
    from qlang.web.service import Service
    from qlang.web.sources import Scenes, example_photos

    background = background_from(recipe.kb, recipe.rules, recipe.rank, recipe.texts)
    ranking.ready(recipe.rank)  # the ranker's model loads with the worker, not on its first question
    settings = replace(recipe.settings, knowledge=background.knowledge)  # the words the translator may copy
    scenes = Scenes(read_source(file, limits.SCENE) for file in recipe.scene_files)
    translator = make(settings, recipe.models, Loaded())
    perceiver = make_perceiver(recipe.vision)
    return Service(translator, perceiver, scenes, example_photos(), recipe.vision,
                   Limits(timeout=recipe.timeout), background)


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host` and `port` (port 0: a free one, which it then holds)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        raise error(QlangError, "serve", f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
