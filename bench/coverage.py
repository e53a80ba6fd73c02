"""How often the knowledge operations find what people said: R@1 and R@5 of `know` and
`infer` with the bundled base, scored against GQA's human answers.

    .venv/bin/python bench/coverage.py [--kb FILE ...] [--rank weight|question ...] [--show N]

The gold answers are the annotations of real GQA questions (the question files under
`qlang.paths.GQA_QUESTIONS`): what a person saw in one image, independent of WordNet and of
Pattern's commonsense network, which make the bundled base.

- *Materials*: every question whose GQA group is ``material`` asked of one object (local group
  ``10q-<object>_material`` or, for a choice, ``10c-...``; 78 questions, 13 objects): "What is
  the table made of?" -> metal.  Asked as ``know(unique(select(scene(), <object>)), made_of)``,
  as the same with ``has_property`` (where Pattern's network keeps materials: ``window
  has_property glass``) and as ``infer(select(scene(), <object>), material)``.
- *Kinds*: every "What/Which kind of <C> ..." question that names a second object it is related
  to (local group ``15-<anchor>_<relation>,s|o``): "What kind of furniture is in front of the
  wall?" -> couch, asked as ``infer(select(scene(), <anchor>), <C>)``: GATHER's open-set
  question, the answer reached from what else is there.  (The others, "What kind of fruit is
  it?", name nothing to walk from.)

None of these images has a scene graph in the shared data, so each question is solved over a
scene of the one object it names (its GQA categories as the scene encoding gives them), with
`solve`'s engine, the 5 best distinct answers.  An answer counts when it is the gold word, or
for a material its adjective in `SPELLINGS` (the only mapping: no stemming, no synonyms, no
hypernyms, so "steel" for gold "metal" is a miss).  Beside each figure, a baseline that knows
no object: the gold answers most frequent among the set's questions of the same class (their
materials; the kinds of furniture asked about, ...), best first.

Each way of asking is scored under each ranking of the paths `--rank` names (default both,
`qlang.text.ranking`): by the edges' weights, and by the question as well, the question being
the GQA question's own English (as `ask` ranks against the question it translated).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qlang import api
from qlang.asp.background import Background
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.knowledge import sources
from qlang.passes.lower import facts
from qlang.paths import GQA_QUESTIONS
from qlang.text import ranking

#: A GQA material and the other spelling a knowledge base may give it.
SPELLINGS = {"wood": "wooden", "metal": "metallic"}
#: How each set's questions are asked (the object or anchor, and the class, filled in).
PROGRAMS = {
    "materials": ("know(unique(select(scene(), {0})), made_of)",
                  "know(unique(select(scene(), {0})), has_property)",
                  "infer(select(scene(), {0}), material)"),
    "kinds": ("infer(select(scene(), {0}), {1})",),
}
TOP = 5


@dataclass(frozen=True, slots=True)
class Item:
    """A question: the object it names, its class (kinds), its gold answer, its text."""

    word: str
    cls: str
    gold: str
    text: str


def items() -> dict[str, list[Item]]:
    """The questions of both sets, from every GQA question file."""
    found: dict[str, list[Item]] = {"materials": [], "kinds": []}
    for path in sorted(GQA_QUESTIONS.glob("*.json")):
        for question in json.loads(path.read_text(encoding="utf-8")).values():
            groups, answer, text = question["groups"], question["answer"], question["question"]
            local = groups.get("local") or ""
            material = re.fullmatch(r"10[qc]-(.+)_material", local)
            if groups.get("global") == "material" and material:
                found["materials"].append(Item(material[1], "material", answer, text))
            anchored = re.fullmatch(r"15-(.+)_.+,[so]", local)
            if re.match(r"(What|Which) kind of ", text) and anchored:
                found["kinds"].append(Item(anchored[1], groups["global"], answer, text))
    return found


def one_object(name: str) -> str:
    """The ASP facts of a scene of one object of that name."""
    obj = {"name": name, "x": 10, "y": 10, "w": 20, "h": 20, "attributes": [], "relations": []}
    return SceneLibrary(Source(json.dumps({"width": 300, "height": 300, "objects": {"1": obj}}))).facts()


def ranked(template: str, item: Item, background: Background) -> list[str]:
    """The best `TOP` distinct answers of the item's program over its object's scene, its
    paths ranked against the item's English question where the background ranks by question."""
    program = template.format(*(word.replace(" ", "_") for word in (item.word, item.cls)))
    question = facts(api.compile(program, knowledge=background.knowledge))
    options = SolveOptions(TOP, distinct=True, background=background, question=item.text)
    return [a.value for a in solve(question, one_object(item.word), options).answers]


def hit(answers: list[str], gold: str, k: int) -> bool:
    return any(a in (gold, SPELLINGS.get(gold)) for a in answers[:k])


def score(name: str, how: str, rank: str, answered: list[tuple[Item, list[str]]], some: str) -> str:
    """A table row: R@1 and R@`TOP` of the answers, and how many questions had any (`some`)."""
    at1, at5 = (sum(hit(a, q.gold, k) for q, a in answered) for k in (1, TOP))
    n = len(answered)
    return f"| {name} | {how} | {rank} | {n} | {at1 / n:.1%} ({at1}) | {at5 / n:.1%} ({at5}) | {some} |"


def rows(name: str, questions: list[Item], backgrounds: list[Background], show: int) -> Iterator[str]:
    """One table row per way of asking the set and ranking its paths, and the baseline's."""
    golds: dict[str, Counter[str]] = {}
    for q in questions:
        golds.setdefault(q.cls, Counter())[q.gold] += 1
    prior = {cls: [word for word, _ in counts.most_common(TOP)] for cls, counts in golds.items()}
    for template in PROGRAMS[name]:
        for background in backgrounds:
            answered = [(q, ranked(template, q, background)) for q in questions]
            yield score(name, f"`{template.format('<object>', '<C>')}`", background.rank, answered,
                        str(sum(bool(a) for _, a in answered)))
            for q, a in answered[:show]:
                print(f"  {q.text} gold {q.gold!r}: {a}", file=sys.stderr)
    yield score(name, f"baseline: the {TOP} most frequent gold answers of the class", "–",
                [(q, prior[q.cls]) for q in questions], "–")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", action="append", default=[],
                        help="knowledge to use instead of the bundled base (as solve's --kb)")
    parser.add_argument("--rank", action="append", choices=ranking.RANKS,
                        help="rank the paths so (repeatable; default: each way)")
    parser.add_argument("--show", type=int, default=0,
                        help="print the first N questions of each row with their answers (stderr)")
    args = parser.parse_args()
    knowledge = sources.knowledge(args.kb)
    backgrounds = [Background(knowledge, rank=rank) for rank in args.rank or ranking.RANKS]
    print(f"| set | program | rank | questions | R@1 | R@{TOP} | answered |")
    print("|---|---|---|---:|---:|---:|---:|")
    for name, questions in items().items():
        for row in rows(name, questions, backgrounds, args.show):
            print(row)


if __name__ == "__main__":
    main()
