"""The text half's speed: match over 10,000 documents (bm25, and dense with the documents'
vectors cached), extract (the constrained extractor over the bundled SmolLM2, and the lexical
baseline), and OCR of a 640x480 photo.

    PYTHONPATH=. .venv/bin/python bench/text.py [--documents N] [--queries Q] [--extracts E] [--runs R]

The documents are the written descriptions and the glosses of `qlang/data/text` and generated
reviews (sentences drawn from the glosses' words, seeded) up to `--documents`, each about an
object of its own; a match ranks all of them for one of the labelled set's queries, as
`qlang.evaluate.text.recall` does (the dense vectors embedded once, untimed, then read from
the disk cache).  Extraction answers the labelled set's first `--extracts` description
questions (the model loaded first, untimed).  OCR reads scikit-image's coffee photo resized to
640x480 with a sign painted on it, `--runs` times after one untimed read.  Medians; the
machine's load is printed, as the figures move with it.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from qlang.evaluate import text as labelled
from qlang.text import ocr, retrieve
from qlang.text.documents import Documents, Passage
from qlang.text.extract import Extractor, Lexical

T = TypeVar("T")


def corpus(size: int) -> Documents:
    """The labelled set's documents, and generated reviews up to `size` documents."""
    known = labelled.documents()
    words = sorted({w for p in known.documents for w in p.text.lower().split() if w.isalpha()})
    rng = random.Random(0)
    made = [Passage(f"r{n}", " ".join(rng.choices(words, k=rng.randint(8, 30))) + ".", "generated")
            for n in range(max(0, size - len(known)))]
    return Documents([*known.documents, *made])


def timed(work: Callable[[T], object], items: list[T]) -> list[float]:
    """The seconds `work` takes on each item."""
    found = []
    for item in items:
        start = time.perf_counter()
        work(item)
        found.append(time.perf_counter() - start)
    return found


def median_ms(seconds: list[float]) -> str:
    p90 = sorted(seconds)[int(0.9 * len(seconds))]
    return f"{1000 * statistics.median(seconds):.1f} ms (p90 {1000 * p90:.1f})"


def ask(extractor: Extractor, documents: Documents, question: labelled.TextQuestion) -> object:
    return extractor(documents, documents.about([question.about]), question.question)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--extracts", type=int, default=20)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    docs = corpus(args.documents)
    owned: dict[str, list[int]] = {}
    for number, passage in enumerate(docs.documents):
        owned.setdefault(passage.key, []).append(number)
    candidates = retrieve.Candidates(owned)
    queries = [q.match for q in labelled.questions() if q.match][:args.queries]
    for name in retrieve.RETRIEVERS:
        start = time.perf_counter()
        looker = retrieve.retriever(name, docs)
        looker.scores(queries[0])
        built = time.perf_counter() - start
        seconds = timed(partial(retrieve.match, looker, candidates=candidates, k=20), queries)
        print(f"match, {name}, {len(docs):,} documents ({len(candidates.keys):,} objects): "
              f"{median_ms(seconds)} a query; index {built:.1f} s")

    asked = [q for q in labelled.questions() if q.set == "descriptions"][:args.extracts]
    extractors: dict[str, Extractor] = {"lexical": Lexical()}
    from qlang.translate.reader_model import constrained

    extractors["constrained"] = constrained()
    known = labelled.documents()
    for name, extractor in extractors.items():
        ask(extractor, known, asked[0])
        seconds = timed(partial(ask, extractor, known), asked)
        print(f"extract, {name}, {len(asked)} questions: {median_ms(seconds)}")

    from skimage import data

    photo = Image.fromarray(data.coffee()).convert("RGB").resize((640, 480))
    draw = ImageDraw.Draw(photo)
    draw.rectangle((20, 20, 300, 90), fill=(60, 30, 20))
    draw.text((36, 30), "CAFE OPEN", font=ImageFont.load_default(size=44), fill="white")
    pixels = np.asarray(photo)
    print(f"OCR reads {[r.text for r in ocr.read(pixels)]}")
    print(f"OCR, 640x480: {median_ms(timed(ocr.read, [pixels] * args.runs))}")


if __name__ == "__main__":
    main()
