"""`qlangc serve`: the web page (`qlang.web`) on this machine, its models loaded once."""

from __future__ import annotations

import signal
import socket
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from qlang import limits
from qlang.asp.options import Limits
from qlang.commands.background_options import answering_options, background_from
from qlang.commands.console import Bounded, fail, read_source
from qlang.commands.translate import translation_options, translator_from
from qlang.commands.vision import take_options, vision_options
from qlang.errors import QlangError, error
from qlang.timing import Stages
from qlang.translate.factory import Loaded, make

if TYPE_CHECKING:
    from qlang.text.gather import Texts


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
@answering_options
@translation_options
@vision_options("--vision")
def serve(host: str, port: int, scene_files: tuple[str, ...], timeout: float, idle_timeout: float,
          kb: tuple[str, ...], rules: str | None, rank: str, texts: Texts, **options: Any) -> None:
    """Serve a web page for asking about a photo or a GQA scene graph: the answers, the program
    in each syntax, the boxes seen, which objects each step kept, and timings; the program can
    be edited and solved again.  The models and the knowledge and rules load once; a request's
    files are gone when it ends."""
    import uvicorn

    from qlang.vision.perceiving import make_perceiver
    from qlang.web.app import make_app
    from qlang.web.service import Service
    from qlang.web.sources import Scenes, default_scene_files, example_photos

    vision = take_options(options)
    settings, models = translator_from(options)
    background = background_from(kb, rules, rank, texts)  # a bad file ends it here, before it listens
    settings = replace(settings, knowledge=background.knowledge)  # the words the translator may copy
    stages, loaded = Stages(), Loaded()
    try:
        listening = _listen(host, port)  # first: a port in use is said before models load
        with stages.time("scenes"):
            files = scene_files or tuple(map(str, default_scene_files()))
            scenes = Scenes(read_source(file, limits.SCENE) for file in files)
        translator = make(settings, models, loaded)
        with stages.time("load detector"):
            perceiver = make_perceiver(vision)
        with stages.time("example photos"):
            photos = example_photos()
    except QlangError as exc:
        fail(exc)
    for label, seconds in loaded.seconds.items():
        stages.add(label, seconds)
    service = Service(translator, perceiver, scenes, photos, vision, Limits(timeout=timeout), background)
    click.echo(f"loaded:  {stages.line()}", err=True)
    where = f"[{host}]" if ":" in host else host
    click.echo(f"serving http://{where}:{listening.getsockname()[1]}/ (Ctrl-C to stop)")
    config = uvicorn.Config(make_app(service, idle_timeout), log_level="warning", lifespan="off",
                            timeout_graceful_shutdown=2)
    # uvicorn shuts down on Ctrl-C or SIGTERM, then raises the signal again: both end it quietly
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        uvicorn.Server(config).run(sockets=[listening])
    except KeyboardInterrupt:
        click.echo("stopped", err=True)


def _listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host` and `port` (port 0: a free one, which it then holds)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        raise error(QlangError, "serve", f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
