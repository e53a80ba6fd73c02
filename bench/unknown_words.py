"""False alarms of the unknown-word warning: how many questions get one, each printed with
what the program reads instead.  The questions: GQA's held-out dev split (314), the small
parser's held-out knowledge and text phrasings (beyond GQA's words on purpose: a knowledge
operation copies a word only the knowledge knows) and the photo set's questions.

    .venv/bin/python bench/unknown_words.py [--translator cascade|small|gold]

`gold`: the gold programs, no translation (the photo set has none: skipped).  A warning on a
real GQA question is a false alarm unless the word truly is outside GQA's vocabulary; read
each one.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

from bench.small import dev_pairs, gold
from qlang.api import parse
from qlang.ir import Node
from qlang.paths import package_data
from qlang.train.pairs import read_pairs
from qlang.translate.factory import make
from qlang.translate.translator import Settings
from qlang.translate.unknown import UnknownWord, unknown_words

#: the held-out phrasings beside the shipped small parser
HELD_OUT = ("knowledge-dev.jsonl", "text-dev.jsonl")


def question_sets() -> list[tuple[str, list[str], list[Node] | None]]:
    """Each set's name, questions and gold programs (None: it has none)."""
    pairs = dev_pairs()
    sets: list[tuple[str, list[str], list[Node] | None]] = [
        ("GQA dev", [p.question for p in pairs], [gold(p) for p in pairs])]
    for name in HELD_OUT:
        held = list(read_pairs(package_data("models", "small-qlang", name)))
        sets.append((name, [p.question for p in held], [parse(p.program, "nested") for p in held]))
    photos = json.loads(package_data("seek", "photo_set.json").read_text(encoding="utf-8"))
    sets.append(("photo set", [entry["question"] for entry in photos["questions"]], None))
    return sets


def warned(name: str, questions: Sequence[str], found: Sequence[tuple[UnknownWord, ...]]) -> None:
    hits = [(q, words) for q, words in zip(questions, found, strict=True) if words]
    for question, words in hits:
        print(f"  {question}  -> {'; '.join(w.message for w in words)}")
    print(f"{name}: {len(hits)} of {len(questions)} questions warned")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--translator", choices=("cascade", "small", "gold"), default="cascade")
    args = parser.parse_args()
    translator = None if args.translator == "gold" else make(Settings(translator=args.translator))
    for name, questions, programs in question_sets():
        if translator is not None:
            warned(f"{name} ({args.translator})", questions,
                   [t.unknown for t in map(translator.translate, questions)])
        elif programs is not None:
            warned(f"{name} (gold programs)", questions,
                   [unknown_words(q, p) for q, p in zip(questions, programs, strict=True)])


if __name__ == "__main__":
    main()
