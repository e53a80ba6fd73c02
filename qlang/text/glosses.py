"""The bundled default documents: WordNet's gloss of each GQA class, in the sense the bundled
knowledge base gave the class (`qlang.knowledge.wordnet_base.own_sense`), so that "What is a
cup used for?" has a text to read ("a small open container usually used for drinking; usually
has a handle") without any documents file.

Loading WordNet takes seconds, so the glosses are written once into the project's cache as a
documents file (`TABLE`, read back by `qlang.text.documents`), and built again where it is
missing or of another `RECIPE`.
"""

from __future__ import annotations

from functools import cache

from qlang.knowledge.wordnet_base import own_sense
from qlang.ontology import load
from qlang.paths import cache_dir, replacing
from qlang.text.documents import DocumentsError, Passage, dumps, read

#: The version of how the glosses are made: a cached file of another recipe is built again.
RECIPE = "1"
TABLE = cache_dir("text") / f"glosses-{RECIPE}.jsonl"
SOURCE = "WordNet 3.0"


def build() -> list[Passage]:
    """Every GQA class's gloss, from WordNet (seconds: it loads WordNet); a class WordNet has no
    noun sense for has none.  Its source names the sense (``WordNet 3.0 cup.n.01``)."""
    found = []
    for word in sorted(load().classes):
        sense = own_sense(word)
        if sense is not None:
            found.append(Passage(word, sense.definition(), f"{SOURCE} {sense.name()}"))
    return found


@cache
def glosses() -> tuple[Passage, ...]:
    """The glosses, from the cache where they were built before."""
    if TABLE.is_file():
        try:
            return tuple(read(TABLE))
        except DocumentsError:
            pass  # a file cut short by a killed build: built again
    found = build()
    TABLE.parent.mkdir(parents=True, exist_ok=True)
    with replacing(TABLE) as partial:
        partial.write_text(dumps(found), encoding="utf-8")
    return tuple(found)
