"""Answering for the page: the translator and the perceiver loaded once per worker process,
and each request answered on its own, about its own photo or scene, with nothing kept after it.

A service answers one request at a time: what answers is one per process and not made to be
shared between threads (llama.cpp's model, the detector's network, and clingo's deadline
watcher, which watches one search at a time: `qlang.asp.watchdog`).  The server runs several,
one per worker process (`qlang.web.workers`).
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from qlang import pipeline
from qlang.asp.background import Background
from qlang.asp.explain import EmptyStep, Explanation, explain, first_empty
from qlang.asp.options import Limits
from qlang.errors import QlangError, error
from qlang.passes.lower import facts
from qlang.timing import Stages
from qlang.translate.translator import Translates
from qlang.vision.perceiving import Options, Perceived
from qlang.vision.perception import Perceiver
from qlang.web import report
from qlang.web.sources import Scenes
from qlang.web.uploads import Photo, kept

#: The most characters a question may have: GQA's longest has 100, and a question goes through
#: a network step by step (and a language model's context), so a page of text is refused.
MAX_QUESTION = 1_000
#: The most answers the page asks for.
MAX_TOP_K = 20

#: Answering once the scene is known: (scene facts, or a photo's path; stages) -> Answered.
Run = Callable[[str | None, str | None, Stages], pipeline.Answered]


@dataclass(frozen=True, slots=True)
class ExampleName:
    """One of the server's example photos, by name."""

    name: str


@dataclass(frozen=True, slots=True)
class Kept:
    """An uploaded photo, kept as a file by the server for its request (`uploads.kept`)."""

    path: str


#: What a question is about, as a worker is told: an uploaded photo kept, an example photo, or
#: the key of a scene.
About = Kept | ExampleName | str


class Service:
    """The models and scenes of one server, and the two things the page asks of them."""

    def __init__(self, translator: Translates, perceiver: Perceiver, scenes: Scenes, photos: dict[str, bytes],
                 vision: Options, limits: Limits, background: Background) -> None:
        self.translator = translator
        self.perceiver = perceiver
        self.scenes = scenes
        #: the example photos, PNG bytes by name
        self.photos = photos
        self.vision = vision
        #: the knowledge and rules every question is answered with (`serve --kb --rules`)
        self.background = background
        #: how every question is solved, but for the k a request asks
        self.options = replace(pipeline.ASKED, limits=limits, background=background)

    def example(self, name: str) -> Photo:
        if name not in self.photos:
            raise error(QlangError, "request", f"no example photo {name!r} on this server")
        return Photo(f"{name}.png", io.BytesIO(self.photos[name]))

    def ask(self, question: str, about: About, top_k: int, stages: Stages | None = None) -> dict[str, Any]:
        """Translate and answer `question` about a photo or the scene a key names (`Scenes`);
        `stages` times each stage (and may tell it as it starts)."""
        question = _question(question)

        def run(scene: str | None, image: str | None, stages: Stages) -> pipeline.Answered:
            about = pipeline.Subject(scene, image, self.vision, self.perceiver)
            return pipeline.ask(question, self.translator, about, options=replace(self.options, top_k=top_k),
                                stages=stages)

        return self._answer(about, run, self.translator.description, stages or Stages())

    def solve(self, program: str, about: About, top_k: int, stages: Stages | None = None) -> dict[str, Any]:
        """Answer a program (any syntax; its errors located as `check` shows them)."""
        root = self.background.compile(program, name="program")  # the rules' words are words too

        def run(scene: str | None, image: str | None, stages: Stages) -> pipeline.Answered:
            about = pipeline.Subject(scene, image, self.vision, self.perceiver)
            return pipeline.answer(root, about, options=replace(self.options, top_k=top_k), stages=stages)

        return self._answer(about, run, None, stages or Stages())

    def _answer(self, about: About, run: Run, translator: str | None, stages: Stages) -> dict[str, Any]:
        if isinstance(about, str):
            with stages.time("scene"):
                scene = self.scenes.facts(about)
            answered = run(scene, None, stages)
            explanation = None if _unasked(answered) else self._explain(answered, scene)
            picture = report.objects(self.scenes.graph(about))
            return report.answered(answered, explanation, picture, translator)
        if isinstance(about, Kept):
            return self._photo(Path(about.path), run, translator, stages)
        with kept(self.example(about.name)) as path:
            return self._photo(path, run, translator, stages)

    def _photo(self, path: Path, run: Run, translator: str | None, stages: Stages) -> dict[str, Any]:
        """The report of a photo kept at `path` (its drawing is written beside it)."""
        answered = run(None, str(path), stages)
        if _unasked(answered):
            return report.answered(answered, None, None, translator)
        assert answered.perceived is not None
        explanation = self._explain(answered, answered.perceived.facts)
        with stages.time("draw"):
            picture = _drawn(answered.perceived, path.with_name(".drawn.png"))
        return report.answered(answered, explanation, picture, translator)

    def _explain(self, answered: pipeline.Answered, scene: str) -> Explanation | EmptyStep | None:
        """The trace of the best answer: which objects each step kept (and the documents a text
        operation quoted); with no answer, the steps up to the first that kept nothing."""
        with answered.stages.time("explain"):
            if not answered.answers:
                return first_empty(facts(answered.root), scene, self.options)
            return explain(facts(answered.root), scene, answer=answered.answers[0].value,
                           options=self.options)


def _unasked(answered: pipeline.Answered) -> bool:
    """Whether the question asks for what no program computes ("how many"), so that nothing
    was perceived or solved (`qlang.translate.inexpressible`)."""
    return answered.translation is not None and bool(answered.translation.inexpressible)


def _question(text: str) -> str:
    question = text.strip()
    if not question:
        raise error(QlangError, "request", "type a question")
    if len(question) > MAX_QUESTION:
        raise error(QlangError, "request", f"the question has {len(question):,} characters: the page "
                    f"takes questions of at most {MAX_QUESTION:,}")
    return question


def _drawn(perceived: Perceived, path: Path) -> dict[str, Any] | None:
    """The photo with the perceived boxes drawn (`qlangc perceive --draw`), as a data URL beside
    the boxes themselves."""
    from qlang.vision.draw import draw

    draw(perceived.pixels, perceived.perception, path, labelled=False)  # the page labels the boxes
    picture = report.objects(perceived.graph)
    if picture is not None:
        picture["drawing"] = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
    return picture
