"""Perceiving a folder of photos: one result line per photo, in file-name order, resumable.

A result is ``{"id": file name, "scene", "seconds"}`` or ``{"id", "error"}``; run again into the
same output file and the photos already there are skipped (`qlang.records`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang.errors import error
from qlang.executors import Executor, Local
from qlang.records.batch import Progress, attempt, run_batch
from qlang.records.jsonl import resume_key
from qlang.records.output import Output
from qlang.timing import Stages
from qlang.vision import perceiving
from qlang.vision.concepts import Concepts
from qlang.vision.perception import Perceiver, VisionError

#: What the batch takes for a photo.
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".gif", ".webp", ".tif", ".tiff"})


@dataclass(frozen=True)
class Perceiving:
    """The job of a folder (`qlang.executors`): the perceiver's options travel to each worker,
    which loads its models once, in `setup`."""

    options: perceiving.Options
    concepts: Concepts | None = None

    def setup(self) -> Callable[[list[Path]], list[dict[str, Any]]]:
        perceiver = perceiving.make_perceiver(self.options)
        return lambda paths: [self.perceive(perceiver, path) for path in paths]

    def perceive(self, perceiver: Perceiver, path: Path) -> dict[str, Any]:
        """A photo's result: its scene and the seconds each stage took, or why it has none."""

        def seen() -> dict[str, Any]:
            if not path.is_file():  # a pipe or a device, which opening could block on forever
                raise error(VisionError, "image", "not a regular file", path=path)
            stages = Stages()
            seen = perceiving.perceive(str(path), self.concepts, perceiver, self.options.thresholds, stages)
            return {"id": path.name, "scene": seen.graph, "seconds": stages.seconds}

        return attempt(seen, lambda exc: {"id": path.name, "error": exc.diagnostics[0].to_json()})


def run(folder: Path, job: Perceiving, output: Output, executor: Executor | None = None) -> bool:
    """Perceive every photo of `folder` still pending; True if every one succeeded.
    `executor`: where (default: in this process)."""
    photos = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    todo = output.pending.todo(photos, lambda photo: resume_key({"id": photo.name}))
    return run_batch(job, todo, output, executor or Local(), batch=1,
                     progress=Progress("perceive", len(todo), "image"))
