"""WordNet's answers for widening (`ask --seek`'s `widen`, and plain `ask` on a photo),
precomputed: which names are kinds of a class (`kind_of`, and `kinds` among a perceiver's
names, with the `rules` that make an object so named one of the class), and which class a
perceiver names nearest above one it does not (`coarse`).

Loading WordNet takes seconds (nltk, then its index), while the words widening asks about are
few: GQA's classes and the perceivers' class names.  So what each of them needs from WordNet,
an `WordSenses`, is computed once into a small table in the project's cache (`make install` builds
it; a checkout without it, or with a table of another `RECIPE` or other sense inputs, builds it
on first use, in about seven seconds, mostly loading WordNet).  A word outside the table (no
GQA class) is asked of WordNet itself, so the answers are WordNet's either way.

>>> kind_of("motorcycle", "vehicle"), coarse(SIGHTS["ssd"], "man"), coarse(SIGHTS["ssd"], "flag")
(True, 'person', None)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qlang import jsontext, limits, wordnet
from qlang.asp_names import to_term
from qlang.ontology import load
from qlang.paths import cache_dir, replacing
from qlang.signatures import Kind
from qlang.vision.sight import SIGHTS, Sight
from qlang.wordnet import PHYSICAL, hypernyms, levels_above, names, sense, senses

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset  # type: ignore[import-untyped]

#: The version of how an entry is made: a cached table of another recipe is built again.
RECIPE = "1"
TABLE = cache_dir("kinds") / "wordnet.json"
#: WordNet levels `coarse` climbs (person is 2 above man, 4 above scuba diver)
DEPTH = 6


@dataclass(frozen=True)
class WordSenses:
    """What widening needs of WordNet about one word, by synset name (``person.n.01``)."""

    #: its sense as a class (`qlang.wordnet.sense`), None where WordNet has none
    sense: str | None
    #: its first sense that is a thing one can see, and everything above it (empty: none)
    thing: frozenset[str]
    #: the words of the synsets up to `DEPTH` hypernym levels above its sense, nearest first
    #: (a level's synsets by name: nltk lists a synset's hypernyms in an order that changes
    #: from process to process)
    above: tuple[str, ...]


def entry(word: str) -> WordSenses:
    """A word's entry, read from WordNet (seconds the first time: it loads WordNet)."""
    found = senses(word)
    thing = next((s for s in found if s.lexname() in PHYSICAL), None)
    levels = islice(levels_above(found[:1], instances=False), DEPTH)
    general = sense(word)
    return WordSenses(general.name() if general is not None else None,
                 frozenset(s.name() for s in hypernyms(thing)) if thing is not None else frozenset(),
                 tuple(dict.fromkeys(name for level in levels for s in sorted(level, key=_name)
                                     for name in names(s))))


def _name(synset: Synset) -> str:
    return str(synset.name())


def vocabulary() -> frozenset[str]:
    """The words widening asks about: GQA's classes and every class a perceiver names."""
    return load().classes.union(*(s.classes for s in SIGHTS.values() if s.classes is not None))


def _about() -> dict[str, Any]:
    """What the entries depend on besides WordNet's files: a table made otherwise is stale."""
    return {"recipe": RECIPE, "physical": sorted(PHYSICAL), "depth": DEPTH, "exceptions": wordnet.EXCEPTIONS}


def build(path: Path = TABLE) -> dict[str, WordSenses]:
    """The vocabulary's entries, written to `path` (atomically: another process may read it);
    a cache that cannot be written is no error, the entries are only not kept."""
    entries = {word: entry(word) for word in sorted(vocabulary())}
    rows = {word: [e.sense, sorted(e.thing), list(e.above)] for word, e in entries.items()}
    with suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as written:
            written.write_text(json.dumps({"about": _about(), "words": rows}))
    return entries


def read(path: Path = TABLE) -> dict[str, WordSenses] | None:
    """The table at `path`; None where it is missing, unreadable or stale."""
    try:
        table = jsontext.loads(limits.read(path, limits.CONFIG).decode("utf-8"))
        if table["about"] != _about():
            return None
        found = {word: WordSenses(general, frozenset(thing), tuple(above))
                 for word, (general, thing, above) in table["words"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, limits.TooLarge):
        return None  # a damaged table is built again
    words = (w for entry in found.values() for w in (entry.sense or "", *entry.thing, *entry.above))
    return found if all(isinstance(w, str) for w in (*found, *words)) else None


def table(path: Path = TABLE) -> dict[str, WordSenses]:
    """The table at `path`, built first where it is missing, unreadable or stale."""
    found = read(path)
    return found if found is not None else build(path)


@cache
def installed() -> dict[str, WordSenses]:
    """The table in the project's cache, read once a process."""
    return table()


@cache
def known(word: str) -> WordSenses:
    """A word's entry: from the table, else from WordNet."""
    found = installed().get(word)
    return found if found is not None else entry(word)


def kind_of(name: str, cls: str) -> bool:
    """Whether WordNet files a thing called `name` under `cls`, taking `name` in its first sense
    that is a thing one can see: a detector's toaster is no person who proposes a toast.

    >>> kind_of("motorcycle", "vehicle"), kind_of("toaster", "person"), kind_of("hot dog", "food")
    (True, False, True)
    """
    general = known(cls).sense
    return general is not None and general in known(name).thing


def kinds(cls: str, names: Iterable[str]) -> frozenset[str]:
    """The `names` WordNet files under `cls` but GQA's ontology does not: GQA leaves motorcycle,
    bicycle and boat out of `vehicle`, which a perceiver's motorcycle must answer to.

    >>> sorted(kinds("vehicle", ["motorcycle", "car", "cat"]))
    ['motorcycle']
    """
    ontology = load()
    return frozenset(n for n in names if n != cls and cls not in ontology.ancestors(n) and kind_of(n, cls))


def widen(sight: Sight, classes: Iterable[str]) -> dict[str, frozenset[str]]:
    """Each of `classes` with its `kinds` among the classes `sight` names (those with none left
    out; none where the perceiver names every class, as an open-vocabulary one does)."""
    if sight.classes is None:
        return {}
    found = {cls: kinds(cls, sight.classes) for cls in sorted(classes)}
    return {cls: names for cls, names in found.items() if names}


def rules(widened: Mapping[str, Iterable[str]]) -> list[str]:
    """A rule for each kind: an object of that name is of the class (solving matches classes by
    the scene's `class` attribute, which the perceiver's name alone would not give)."""
    return [f"has_attr(O, class, {to_term(cls)}) :- has_attr(O, name, {to_term(name)})."
            for cls, names in widened.items() for name in sorted(names)]


def coarse(sight: Sight, cls: str) -> str | None:
    """The nearest class above `cls` in WordNet that the perceiver names: `man` -> `person`
    (None when there is none, or when the perceiver names every class)."""
    if sight.classes is None:
        return None
    return next((word for word in known(cls).above if word in sight.classes), None)


def coarsened(sight: Sight, classes: Iterable[str]) -> dict[str, str]:
    """Each of `classes` the perceiver cannot see, with its `coarse` class (those with none
    left out)."""
    found = {cls: coarse(sight, cls) for cls in classes if not sight.sees(Kind.CLASS, cls)}
    return {cls: name for cls, name in found.items() if name is not None}
