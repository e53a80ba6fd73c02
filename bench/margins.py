"""Seek's cuts per kind of answer, fitted on the labelled photos, written as qlang's table of them.

    .venv/bin/python bench/margins.py [--photos qlang/data/seek/photo_set.json]

Seek runs on every question of the calibration half of the photo set with every cut at 0, so
that each answer it can give is given; the likelihood of each final answer against the others
(the reasoner's judgement of the solve that gave it) and whether it is right are collected per
kind of answer (`qlang.vision.margins.keys`), and each kind's cut is fitted
(`qlang.vision.margins.fit`).  Only the calibration half is read, so that the experiment's test
half stays unseen.  The cuts go to `qlang/data/seek/margins.json`, with the default kept.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from qlang.api import parse
from qlang.evaluate.matching import matches
from qlang.evaluate.seeking import CALIBRATION, PHOTO_SET, photo_items
from qlang.seek import Context, seek
from qlang.vision.margins import TABLE, Margins, fit, keys, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--photos", type=Path, default=PHOTO_SET)
    args = parser.parse_args()
    context = Context(margins=Margins(0.0))
    observed: dict[str, list[tuple[float, bool]]] = {}
    for item in photo_items(args.photos, CALIBRATION):
        sought = seek(item.question, context, image=item.image)
        solved = [s.verdict.likelihood for s in sought.steps if s.verdict.likelihood is not None]
        if sought.answer is None or sought.program is None or not solved:
            continue
        right = any(matches(sought.answer, gold) for gold in (item.gold, *item.also))
        for key in keys(parse(sought.program, "nested")):
            observed.setdefault(key, []).append((solved[-1], right))
        print(f"{item.id:<40} {sought.answer:<12} {solved[-1]:.3f} {'right' if right else 'wrong'}")
    default = table().default
    cuts = {key: cut for key, answers in sorted(observed.items())
            if (cut := fit(answers, default)) is not None}
    about = ("Seek's least likelihood of a final answer against the others, per kind of answer "
             "(qlang.vision.margins): fitted on the calibration half of qlang/data/seek/photo_set.json, "
             "with the default for kinds it shows no answer of. Written by bench/margins.py.")
    seen = {key: [len(answers), sum(not right for _, right in answers)]
            for key, answers in sorted(observed.items())}
    written = {"about": about, "default": default, "cuts": cuts, "answers, wrong": seen}
    text = re.sub(r"\[\s+(\d+),\s+(\d+)\s+\]", r"[\1, \2]", json.dumps(written, indent=1))
    TABLE.write_text(text + "\n", encoding="utf-8")
    for key, cut in cuts.items():
        print(f"{key:<16} {cut:.3f}  ({seen[key][0]} answers, {seen[key][1]} wrong)")
    print(f"written to {TABLE}")


if __name__ == "__main__":
    main()
