"""The perceiver's recall per class on the labelled photos, written as qlang's table of it.

    .venv/bin/python bench/recall.py [--photos qlang/data/seek/photo_set.json]

For each existence question ("Is there a cup?") whose answer is "yes", about a class the
perceiver covers (`qlang.vision.sight.Sight.covers`) or finds only now and then (its
`glimpsed`, `cued` and `read` classes, counted apart), the photo is perceived for that class at
seek's closer threshold and at `ask`'s detection threshold; the class counts as found at a
threshold when an object of it (or of a kind of it in the ontology) is seen there.  Only the
calibration half of the photo set is read, so that the experiment's test half stays unseen.
The counts go to `qlang/data/vision/recall.json` (`qlang.vision.recall`).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from qlang.api import parse
from qlang.evaluate.seeking import CALIBRATION, PHOTO_SET, photo_items
from qlang.ontology import load
from qlang.seek.tools import CLOSER
from qlang.timing import Stages
from qlang.vision import perceiving
from qlang.vision.perception import Thresholds
from qlang.vision.recall import TABLE
from qlang.vision.sight import SIGHTS

EXISTS = re.compile(r"^(?:is|are) there (?:a |an )?(.+?)\?$", re.IGNORECASE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--photos", type=Path, default=PHOTO_SET)
    args = parser.parse_args()
    ontology, sight = load(), SIGHTS["ssd"]
    perceiver = perceiving.make_perceiver(perceiving.Options())
    thresholds = (CLOSER, Thresholds().detection)
    counts: dict[float, dict[str, list[int]]] = {threshold: {} for threshold in thresholds}
    partial: dict[float, dict[str, list[int]]] = {threshold: {} for threshold in thresholds}
    for item in photo_items(args.photos, CALIBRATION):
        match = EXISTS.match(item.question or "")
        if item.gold != "yes" or match is None:
            continue
        cls = match.group(1).lower()
        partly = cls in sight.glimpsed | sight.cued | sight.read and cls not in (sight.classes or ())
        if cls not in ontology.classes or not (sight.covers(cls) or partly):
            continue
        assert item.image is not None
        root = parse(f"exist(select(scene(), {cls}))", "nested")
        for threshold in thresholds:
            seen = perceiving.perceive(item.image, perceiving.from_program(root), perceiver,
                                       Thresholds(detection=threshold), Stages())
            found = any(cls in named or cls in ontology.ancestors(d.name) for d in seen.perception.objects
                        for named in [(d.name, *d.classes)])
            counted = (partial if partly else counts)[threshold].setdefault(cls, [0, 0])
            counted[0] += found
            counted[1] += 1
            print(f"{item.id:<28} {cls:<12} {threshold:<5g} {'found' if found else 'missed'}")
    about = ("The embedded perceivers' recall per class: objects found at a detection threshold (seek's "
             "closer one, ask's) of those labelled there, on the calibration half of "
             "qlang/data/seek/photo_set.json; 'partly': of the classes found only now and then (the "
             "classifier on regions, colour cues, reading). Written by bench/recall.py.")
    measured = [{"threshold": threshold, "classes": dict(sorted(counts[threshold].items())),
                 "partly": dict(sorted(partial[threshold].items()))} for threshold in thresholds]
    table = {"about": about, "perceivers": {"ssd": measured}}
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    text = re.sub(r"\[\s+(\d+),\s+(\d+)\s+\]", r"[\1, \2]", json.dumps(table, indent=1))
    TABLE.write_text(text + "\n", encoding="utf-8")
    for threshold in thresholds:
        found, there = (sum(column) for column in zip(*counts[threshold].values(), strict=True))
        print(f"at {threshold:g}: {found} of {there} found")
    print(f"written to {TABLE}")


if __name__ == "__main__":
    main()
