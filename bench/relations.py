"""How well relations from boxes agree with people's: GQA's labelled scene graphs.

    .venv/bin/python bench/relations.py [--data ../shared/data]

For every relation a real GQA scene graph labels between two objects that boxes can tell
(`qlang.vision.geometry.RELATIONS`), the geometry scores it from the two labelled boxes; the
table gives per relation how many are labelled, how many the geometry scores at least 0.5
(its recall at the solver's even odds), and in how many one box lies within the other.  GQA's
graphs list only some of the relations that hold, so a relation they leave out is no negative:
this measures recall, not precision.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from qlang.paths import SHARED_DATA
from qlang.vision import geometry
from qlang.vision.perception import SeenBox

SCENES = ("emma_sceneGraphs.json", "graphvqa_debug_sceneGraphs.json")


def box(obj: dict[str, Any]) -> SeenBox:
    return SeenBox(obj["x"], obj["y"], obj["x"] + obj["w"], obj["y"] + obj["h"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--data", type=Path, default=SHARED_DATA)
    args = parser.parse_args()
    scored: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    graphs = 0
    for name in SCENES:
        for scene in json.loads((args.data / "gqa" / "scenes" / name).read_text(encoding="utf-8")).values():
            graphs += 1
            objects = scene["objects"]
            for obj in objects.values():
                for edge in obj["relations"]:
                    if edge["name"] not in geometry.RELATIONS or edge["object"] not in objects:
                        continue
                    a, b = box(obj), box(objects[edge["object"]])
                    within = a.intersection(b) >= 0.8 * min(a.area, b.area)
                    scored[edge["name"]].append((geometry.relations(a, b)[edge["name"]], within))
    print(f"{graphs} GQA scene graphs, {sum(map(len, scored.values()))} labelled relations boxes can tell\n")
    print("| relation | labelled | scored >= 0.5 | one box within the other |")
    print("|---|---:|---:|---:|")
    for name, pairs in sorted(scored.items(), key=lambda kv: -len(kv[1])):
        held = sum(score >= 0.5 for score, _ in pairs)
        print(f"| {name} | {len(pairs)} | {held} ({held / len(pairs):.0%}) | {sum(w for _, w in pairs)} |")


if __name__ == "__main__":
    main()
