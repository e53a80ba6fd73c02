"""What `ask --seek` costs over plain `ask` on questions it answers on the first try (translate,
look, solve: it should cost at most 10 % more).

    .venv/bin/python bench/seek.py [--repeat 5] [--rounds 20]

Two measures, each interleaving the two ways question by question so that a busy machine weighs
on both alike:

- **one shot**: `qlangc ask` in a fresh process, with and without `--seek`, `repeat` times per
  question: wall seconds, model loads included (what a user waits for);
- **warm**: in one process with every model loaded, `qlang.pipeline.ask` against
  `qlang.seek.seek`, `rounds` times per question: milliseconds per question.

Each question must be one seek answers in three steps; the bench says so and stops otherwise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QLANGC = [sys.executable, "-m", "qlang.commands.main"]


def questions() -> list[tuple[str, str, str]]:
    """(question, --image or --scene, the file)."""
    from skimage import data_dir

    photo = lambda name: os.path.join(data_dir, name)  # noqa: E731
    return [("Is there a cat?", "--image", photo("chelsea.png")),
            ("Is there a cup?", "--image", photo("coffee.png")),
            ("Is there a motorcycle?", "--image", photo("motorcycle_left.png")),
            ("What animal is this?", "--image", photo("horse.png")),
            ("Is there a person?", "--image", photo("astronaut.png")),
            ("Who wears shorts?", "--scene", str(ROOT / "examples" / "scene_2353884.json"))]


def one_shot(repeat: int) -> dict[tuple[str, bool], list[float]]:
    walls: dict[tuple[str, bool], list[float]] = {}
    for _ in range(repeat):
        for question, flag, path in questions():
            for seeking in (False, True):
                command = [*QLANGC, "ask", question, flag, path]
                start = time.perf_counter()
                subprocess.run([*command, *(["--seek"] if seeking else [])], capture_output=True,
                               check=False, cwd=ROOT)
                walls.setdefault((question, seeking), []).append(time.perf_counter() - start)
    return walls


def warm(rounds: int) -> dict[tuple[str, bool], list[float]]:
    from qlang import pipeline
    from qlang.asp.scene import SceneLibrary
    from qlang.errors import Source
    from qlang.seek import Context, seek
    from qlang.translate.factory import Loaded, make
    from qlang.translate.translator import Settings
    from qlang.vision.perceiving import Options, make_perceiver

    context = Context()
    translator = make(Settings(translator="cascade"), context.models, Loaded())
    perceiver = make_perceiver(Options())
    context.perceiver = perceiver
    scenes = {}
    for _, flag, path in questions():
        if flag == "--scene":
            library = SceneLibrary(Source(Path(path).read_text()))
            scenes[path] = (library.facts(), library.graph())
    times: dict[tuple[str, bool], list[float]] = {}
    for round_ in range(rounds + 1):  # the first round warms every cache up, and checks
        for question, flag, path in questions():
            image = path if flag == "--image" else None
            facts, graph = scenes.get(path, (None, None))
            for seeking in (False, True):
                start = time.perf_counter()
                if seeking:
                    sought = seek(question, context, image=image, scene=graph)
                    if len(sought.steps) != 3 or sought.answer is None:
                        raise SystemExit(f"{question!r} is not answered on the first try:\n{sought.render()}")
                else:
                    about = pipeline.Subject(facts, image, perceiver=perceiver)
                    pipeline.ask(question, translator, about)
                if round_:
                    times.setdefault((question, seeking), []).append(time.perf_counter() - start)
    return times


def table(title: str, found: dict[tuple[str, bool], list[float]], unit: float, name: str) -> None:
    print(f"\n{title}\n\n| question | ask {name} | ask --seek {name} | ratio |\n|---|---:|---:|---:|")
    ratios = []
    for question in dict.fromkeys(q for q, _ in found):
        plain, sought = (statistics.median(found[question, s]) for s in (False, True))
        ratios.append(sought / plain)
        print(f"| {question} | {plain * unit:.0f} | {sought * unit:.0f} | {sought / plain:.3f} |")
    print(f"| median | | | {statistics.median(ratios):.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="one-shot runs per question and way")
    parser.add_argument("--rounds", type=int, default=20, help="warm runs per question and way")
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} before")
    warmed = warm(args.rounds)
    shot = one_shot(args.repeat)
    print(f"load average {os.getloadavg()[0]:.2f} after")
    table(f"Warm, in one process ({args.rounds} rounds, median)", warmed, 1000, "ms")
    table(f"One shot, a fresh process ({args.repeat} runs, median)", shot, 1000, "ms")


if __name__ == "__main__":
    main()
