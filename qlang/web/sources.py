"""What a question on the page can be about, besides a photo someone uploads: the example photos
the project's tests use (real photographs scikit-image ships, free of copyright restrictions),
and real GQA scene graphs, each image of each scene file one choice."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang.asp.scene import SceneError, SceneLibrary
from qlang.errors import Source, error
from qlang.paths import SHARED_DATA


@dataclass(frozen=True, slots=True)
class ExamplePhoto:
    """A bundled photo: its name on the page, what it shows, and how scikit-image gives it."""

    name: str
    title: str
    pixels: Callable[[Any], Any]


#: scikit-image's photographs (`skimage.data`), as tests/test_vision_photos.py uses them.
EXAMPLES = (
    ExamplePhoto("chelsea", "a cat (Chelsea)", lambda data: data.chelsea()),
    ExamplePhoto("coffee", "a cup of coffee on a table", lambda data: data.coffee()),
    ExamplePhoto("astronaut", "an astronaut (Eileen Collins)", lambda data: data.astronaut()),
    ExamplePhoto("motorcycle", "a motorcycle", lambda data: data.stereo_motorcycle()[0]),
)


def example_photos() -> dict[str, bytes]:
    """Each example photo as PNG bytes, by name: made once per server, held in memory."""
    from PIL import Image
    from skimage import data

    photos = {}
    for example in EXAMPLES:
        buffer = io.BytesIO()
        Image.fromarray(example.pixels(data)).save(buffer, format="PNG")
        photos[example.name] = buffer.getvalue()
    return photos


def default_scene_files() -> list[Path]:
    """Every GQA scene-graph file of the shared data (none where it is missing)."""
    return sorted((SHARED_DATA / "gqa" / "scenes").glob("*sceneGraphs.json"))


@dataclass(frozen=True, slots=True)
class Choice:
    """One scene on the page: an image of a scene file (None: the file's one scene)."""

    label: str
    library: SceneLibrary
    image_id: str | None


class Scenes:
    """The scene files offered on the page, read once; a choice's key is `file/image`."""

    def __init__(self, sources: Iterable[Source]) -> None:
        self.choices: dict[str, Choice] = {}
        for source in sources:
            library = SceneLibrary(source)
            file = Path(source.name).name
            images: list[str | None] = [*library.image_ids] or [None]
            for image_id in images:
                key = file if image_id is None else f"{file}/{image_id}"
                label = file if image_id is None else f"{image_id} ({file})"
                self.choices[key] = Choice(label, library, image_id)

    def choice(self, key: str) -> Choice:
        """The scene `key` names; raises SceneError for one the server does not offer."""
        if key not in self.choices:
            raise error(SceneError, "scene", f"no scene {key!r} on this server",
                        hint=f"it offers {len(self.choices)}")
        return self.choices[key]

    def graph(self, key: str) -> Any:
        """The scene graph of `key` as read (None for a scene given as ASP facts)."""
        choice = self.choice(key)
        return choice.library.graph(choice.image_id)

    def facts(self, key: str) -> str:
        """The ASP facts of `key`, encoded on first use."""
        choice = self.choice(key)
        return choice.library.facts(choice.image_id)
