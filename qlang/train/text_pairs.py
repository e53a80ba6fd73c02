"""Training pairs for the text operations, made by templates over the ontology: GQA has no
question that `read`, `extract` or `match` answers ("say", "written", "described", "review",
"according" are in none of its questions).

A family is one use of an operation and a few phrasings of it, as `qlang.train.knowledge_pairs`
makes them for the knowledge operations (and with its noun phrases and split):

- *read*: "What does the sign say?": `read(unique(select(scene(), sign)))`, asked of GQA's
  classes that carry words (signs, labels, posters, screens, shirts, ...);
- *extract from reviews* and *extract from a description*: "What do the reviews say about the
  guitar?", "What is the laptop used for, according to its description?":
  `extract(select(scene(), X), "<the question>")`, the question itself the text the extractor
  answers (NeuroQL's `neural_extract` takes the question so), asked of GQA's made things;
- *match*: "Which of these is described as waterproof?":
  `query(unique(match(scene(), "waterproof", "1")), name)`, the description's word the text
  the retriever matches, a word of `DESCRIPTIONS` (most of them no ontology word: the small
  parser copies them from the question).

Split: in each family the phrasing whose text hashes lowest is held out (`dev`), so the
held-out questions measure how far the translator carries the operations to a phrasing it never
saw.

>>> for pair in text_pairs(8, seed=0):
...     print(pair.split, pair.question)
...     print("     ", pair.program)
train What does this shirt say?
      read(unique(select(scene(), shirt)))
train What do the reviews say about that balloon?
      extract(select(scene(), balloon), "What do the reviews say about that balloon?")
train What is this nightstand used for, according to its description?
      extract(select(scene(), nightstand), "What is this nightstand used for, according to its description?")
train Which of these is described as insulated?
      query(unique(match(scene(), "insulated", "1")), name)
train What is written on the price tag?
      read(unique(select(scene(), price_tag)))
train What do people say about this paper container in the reviews?
      extract(select(scene(), paper_container),
              "What do people say about this paper container in the reviews?")
train According to its description, what is the chair made of?
      extract(select(scene(), chair), "According to its description, what is the chair made of?")
train Which object is described as slippery?
      query(unique(match(scene(), "slippery", "1")), name)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from qlang.api import check
from qlang.ir import Node, op
from qlang.ontology import Ontology, load
from qlang.syntax import SYNTAXES
from qlang.train.knowledge_pairs import USED_CATEGORIES, Thing, held_out, in_turns, things
from qlang.train.pairs import Pair
from qlang.words import article

#: GQA's classes of things that carry words to read (those the ontology has)
READABLE = ("sign", "street sign", "stop sign", "logo", "label", "poster", "menu", "sticker",
            "newspaper", "book", "magazine", "screen", "monitor", "license plate", "price tag",
            "name tag", "tag", "jersey", "shirt", "t-shirt", "chalkboard", "box", "bottle", "can",
            "clock", "cup", "bag", "laptop", "phone", "bus", "truck", "train", "building", "banner")
#: how a description may call a thing: one word each, so the program copies it from the question
DESCRIPTIONS = ("waterproof", "durable", "lightweight", "sturdy", "cheap", "noisy", "fragile",
                "portable", "expensive", "quiet", "reliable", "flimsy", "spacious", "cozy", "stylish",
                "loud", "comfortable", "soft", "warm", "heavy", "compact", "washable", "breathable",
                "rechargeable", "foldable", "adjustable", "ergonomic", "handmade", "vintage",
                "recyclable", "insulated", "wireless", "affordable", "elegant", "rustic", "sleek",
                "antique", "colorful", "sharp", "slippery", "modern", "ugly", "beautiful", "useful",
                "dangerous", "safe", "fast", "slow", "delicious", "fresh")
#: how a question says one thing of a class, and several
_ONE = ("the {x}", "this {x}", "that {x}")
_MANY = ("the {x}", "these {x}", "those {x}")


@dataclass(frozen=True, slots=True)
class TextFamily:
    """One use of a text operation and the phrasings that ask it.  Templates say {np} for the
    thing's noun phrase, {be}, {do}, {it} and {its} agreeing with it, {t} for the description's
    word; `make` writes the program of a question about a thing (None: the scene's objects)."""

    name: str
    templates: tuple[str, ...]
    make: Callable[[str, Thing | None, str], Node]
    #: which things it asks about (`Fillers.things`)
    about: str

    @property
    def held_out(self) -> str:
        return held_out(self.templates)


def _read(question: str, thing: Thing | None, word: str) -> Node:
    assert thing is not None
    return op("read", op("unique", op("select", op("scene"), thing.cls)))


def _extract(question: str, thing: Thing | None, word: str) -> Node:
    assert thing is not None
    return op("extract", op("select", op("scene"), thing.cls), question)


def _match(question: str, thing: Thing | None, word: str) -> Node:
    return op("query", op("unique", op("match", op("scene"), word, "1")), "name")


FAMILIES = (
    TextFamily("read", ("What does {np} say?", "What is written on {np}?", "What do the words on {np} say?",
                    "What text is on {np}?", "What does it say on {np}?", "Which words are printed on {np}?",
                    "Can you read {np} for me?", "What is printed on {np}?",
                    "What does the writing on {np} say?", "What words are on {np}?"), _read, "readable"),
    TextFamily("extract reviews", ("What do the reviews say about {np}?",
                               "What do people say about {np} in the reviews?",
                               "According to the reviews, what {be} {np} like?",
                               "What do the reviews of {np} mention?", "How do reviewers describe {np}?",
                               "What does the review say about {np}?", "What do customers say about {np}?",
                               "What is said about {np} in the reviews?",
                               "What do the reviews say {np} {be} good for?"), _extract, "made"),
    TextFamily("extract description", ("What {be} {np} used for, according to {its} description?",
                                   "According to {its} description, what {be} {np} made of?",
                                   "What does the description of {np} say {it} {be} for?",
                                   "What does the description say about {np}?",
                                   "According to the description, what can {np} do?",
                                   "What {be} {np} for, according to the text?",
                                   "What does {its} description say {np} {be} used for?",
                                   "According to the product description, what {be} {np} for?",
                                   "What does the description of {np} tell us?"), _extract, "made"),
    TextFamily("match", ("Which of these is described as {t}?", "Which object is described as {t}?",
                     "What is described as {t}?", "Which thing do the reviews call {t}?",
                     "Which item's description says it is {t}?", "What here is said to be {t}?",
                     "Which one is described as {t}?", "What do the reviews describe as {t}?",
                     "Which of these things is said to be {t}?"), _match, "scene"),
)


class Fillers:
    """The fillers of the families: GQA's classes as questions say them."""

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology

    @cached_property
    def things(self) -> dict[str, list[Thing]]:
        every = things(self.ontology)
        readable = set(READABLE) & self.ontology.classes
        return {"readable": [t for t in every if t.cls in readable and not t.many],
                "made": [t for t in every if USED_CATEGORIES.intersection(self.ontology.ancestors(t.cls))]}


def _question(template: str, rng: random.Random, thing: Thing | None, word: str) -> str:
    many = thing is not None and thing.many
    phrase = rng.choice(_MANY if many else _ONE).format(x=thing.said) if thing is not None else ""
    text = template.format(np=phrase, be="are" if many else "is", do="do" if many else "does",
                           it="they" if many else "it", its="their" if many else "its", t=word,
                           a_t=f"{article(word)} {word}")
    return text[0].upper() + text[1:]


def _example(family: TextFamily, template: str, words: Fillers, rng: random.Random) -> tuple[str, Node]:
    """A question of one of the family's phrasings, drawn with its words, and its program."""
    thing = rng.choice(words.things[family.about]) if family.about != "scene" else None
    word = rng.choice(DESCRIPTIONS)
    question = _question(template, rng, thing, word)
    return question, family.make(question, thing, word)



def text_pairs(n: int, *, seed: int = 0, syntax: str = "nested", ontology: Ontology | None = None
               ) -> list[Pair]:
    """Up to `n` distinct (question, program) pairs, as `knowledge_pairs.in_turns` makes them,
    each program checked."""
    words = Fillers(ontology or load())
    rng = random.Random(seed)
    return in_turns(FAMILIES, n, lambda family, template: _example(family, template, words, rng),
                    lambda program: not [d for d in check(program, ontology=words.ontology) if not d.warning],
                    SYNTAXES[syntax].print, "text")
