"""The visual front end, stage by stage: seconds an image on scikit-image's photographs.

    .venv/bin/python bench/vision.py [--repeat 5] [--refine]

One detector load (timed apart), then for each photo and question, `repeat` times: read the
image, perceive (detect, colour, geometry), build and validate the weighted scene, and solve
the question's program over it with clingo.  Medians per stage, in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

from qlang.api import compile as compile_program
from qlang.pipeline import solve_program
from qlang.timing import Stages
from qlang.vision import perceiving

#: photo -> a question about it, as a program (the translator is measured in bench/translate.py)
PHOTOS = {
    "chelsea": "exist(select(scene(), cat))",
    "coffee": "verify_rel(unique(select(scene(), cup)), table, on, subject)",
    "astronaut": "exist(select(scene(), person))",
    "motorcycle_left": "query(unique(select(scene(), motorcycle)), color)",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--refine", action="store_true")
    args = parser.parse_args()
    from skimage import data_dir

    options = perceiving.Options(refine=args.refine)
    start = time.perf_counter()
    perceiver = perceiving.make_perceiver(options)
    print(f"load detector: {1000 * (time.perf_counter() - start):.0f} ms; {os.cpu_count()} CPUs "
          f"({platform.machine()}), refine={args.refine}")
    print(f"{'photo':16} {'read':>6} {'perceive':>9} {'scene':>6} {'solve':>6} {'total':>6}  answer")
    for photo, program in PHOTOS.items():
        root = compile_program(program)
        path = os.path.join(data_dir, f"{photo}.png")
        runs: dict[str, list[float]] = {}
        for _ in range(args.repeat):
            stages = Stages()
            concepts = perceiving.from_program(root)
            seen = perceiving.perceive(path, concepts, perceiver, options.thresholds, stages)
            answer = solve_program(root, seen.facts, stages=stages).answers
            for stage, seconds in stages.seconds.items():
                runs.setdefault(stage, []).append(1000 * seconds)
        medians = {stage: statistics.median(values) for stage, values in runs.items()}
        print(f"{photo:16} {medians['read image']:6.1f} {medians['perceive']:9.1f} "
              f"{medians['build scene']:6.1f} {medians['solve']:6.1f} {sum(medians.values()):6.1f}  "
              f"{', '.join(a.value for a in answer) or '-'}")


if __name__ == "__main__":
    main()
