"""One-shot `qlangc ask`, as a user runs it: wall seconds of a fresh process, and its timing line.

    .venv/bin/python bench/ask.py [--repeat 5] [--checkout DIR ...]

Each case (a question about the README's scene, one about scikit-image's `coffee` photo, one
about a tree on scikit-learn's `china` photo, where regions are classified and stuff is found, and
one about the motorcycle's colour, where the object is segmented) runs
`repeat` times in a new process; with `--checkout`, the same runs interleave between this tree and
each other checkout (run with ``PYTHONPATH=DIR``, its own `qlang.cli` or `qlang.commands.main`),
so that a noisy machine weighs on all of them alike.  Prints the median wall time per case and
checkout, and the median of each stage of the timing line.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


#: `ask`'s exit statuses with an answer: one, or "cannot tell" (an older checkout cannot see trees)
ANSWERED = (0, 4)


def cases() -> dict[str, list[str]]:
    import sklearn
    from skimage import data_dir

    china = os.path.join(os.path.dirname(sklearn.__file__), "datasets", "images", "china.jpg")
    return {
        "ask --scene": ["Who wears shorts?", "--scene", str(ROOT / "examples" / "scene_2353884.json")],
        "ask --image": ["Is there a cup on the table?", "--image", os.path.join(data_dir, "coffee.png")],
        # a class COCO lacks, outdoors: the classifier on regions and the stuff cues both look
        "ask --image, a tree": ["Is there a tree?", "--image", china],
        # a colour: the object is cut from its box's background (the `segment` stage)
        "ask --image, a colour": ["What color is the motorcycle?", "--image",
                                  os.path.join(data_dir, "motorcycle_left.png")],
    }


def command(checkout: Path) -> tuple[list[str], dict[str, str]]:
    """How to run `qlangc` of a checkout: its own entry point, found by file."""
    module = "qlang.commands.main" if (checkout / "qlang" / "commands" / "main.py").exists() else "qlang.cli"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    return [sys.executable, "-c", f"from {module} import main; main()", "ask"], env


def stages(line: str) -> dict[str, float]:
    found = re.findall(r"([a-z][a-z ()]*?) (\d+) ms", line.removeprefix("time:"))
    return {stage.strip(): float(ms) for stage, ms in found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--checkout", type=Path, action="append", default=[],
                        help="another checkout to compare with (repeatable)")
    args = parser.parse_args()
    checkouts = [ROOT, *args.checkout]
    walls: dict[tuple[str, Path], list[float]] = {}
    lines: dict[tuple[str, Path], list[dict[str, float]]] = {}
    for _ in range(args.repeat):
        for case, arguments in cases().items():
            for checkout in checkouts:
                base, env = command(checkout)
                start = time.perf_counter()
                done = subprocess.run([*base, *arguments], capture_output=True, text=True, env=env,
                                      cwd=checkout)
                if done.returncode not in ANSWERED:
                    raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
                walls.setdefault((case, checkout), []).append(time.perf_counter() - start)
                timing = next(x for x in done.stdout.splitlines() if x.startswith("time:"))
                lines.setdefault((case, checkout), []).append(stages(timing))
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}, {args.repeat} runs each\n")
    print("| case | checkout | wall s (median) | stages, ms (median) |")
    print("|---|---|---:|---|")
    for (case, checkout), seconds in walls.items():
        runs = lines[(case, checkout)]
        names = dict.fromkeys(name for run in runs for name in run)
        median = ", ".join(f"{name} {statistics.median(r.get(name, 0.0) for r in runs):.0f}"
                           for name in names)
        print(f"| {case} | {checkout.name} | {statistics.median(seconds):.2f} | {median} |")


if __name__ == "__main__":
    main()
