"""The bundled base's WordNet half: WordNet 3.0's relations between the things GQA's classes
name, as triples over GQA's words.

Each GQA class with a noun sense of its own stands for one synset, the one its GQA class group
says it is (`own_sense`: ``toaster`` the appliance, not one who toasts).  From it:

* ``is_a``: every synset on the way up its hypernyms (and instance hypernyms, as the
  interpreter walks them) to the top, one edge a link, so `is_a` closes over the whole walk;
  and a shortcut from the class to every GQA class among its ancestors further up, so that
  ``motorcycle is_a vehicle`` is one edge (four links in WordNet);
* ``part_of`` / ``has_a`` from part meronyms and holonyms, ``made_of`` from substance
  meronyms and holonyms, ``member_of`` from member meronyms and holonyms.

A synset is named by its first lemma that is a GQA class, else by a GQA class standing for it,
else by its first lemma (``motor_vehicle`` is ``motor vehicle``).  Every edge weighs 1:
WordNet's relations are curated, not voted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from qlang import wordnet
from qlang.knowledge.triples import Triple, normal_word
from qlang.ontology import load

if TYPE_CHECKING:
    from nltk.corpus.reader.wordnet import Synset  # type: ignore[import-untyped]


def triples() -> Iterator[Triple]:
    """WordNet's edges among GQA's classes and their ancestors (see the module docstring)."""
    classes = load().classes
    standing: dict[Synset, list[str]] = {}
    for word in sorted(classes):
        sense = own_sense(word)
        if sense is not None:
            standing.setdefault(sense, []).append(word)
    taken = {word for words in standing.values() for word in words}

    def name(synset: Synset) -> str | None:
        lemmas = [normal_word(lemma) for lemma in synset.lemma_names()]
        if synset in standing:
            return next((lemma for lemma in lemmas if lemma in standing[synset]), standing[synset][0])
        return next((lemma for lemma in lemmas if lemma not in taken), None)

    ancestors = {synset: [above for level in wordnet.levels_above([synset]) for above in level]
                 for synset in standing}
    for synset in sorted(set(standing).union(*ancestors.values()), key=lambda s: s.name()):
        named: list[str | None] = [*standing.get(synset, [])] or [name(synset)]
        generals = [name(parent) for parent in _parents(synset)]
        yield from (Triple(word, "is_a", general) for word in named for general in generals
                    if word is not None and general is not None)
    for synset, words in sorted(standing.items(), key=lambda item: item[1]):
        parents = {name(parent) for parent in _parents(synset)}
        further = classes.intersection(name(above) for above in ancestors[synset]).difference(parents)
        for word in words:
            yield from (Triple(word, "is_a", general) for general in sorted(further - {word}))
            yield from _meronyms(word, synset, name)


#: WordNet's meronymy as edges: the synset's method, the relation, whether the class is its tail
_MERONYMY = (
    ("part_meronyms", "part_of", True),  # wheel part_of car
    ("part_meronyms", "has_a", False),  # car has_a wheel
    ("part_holonyms", "part_of", False),
    ("part_holonyms", "has_a", True),
    ("substance_meronyms", "made_of", False),  # tree made_of heartwood
    ("substance_holonyms", "made_of", True),
    ("member_meronyms", "member_of", True),  # car member_of train
    ("member_holonyms", "member_of", False),
)


def _parents(synset: Synset) -> list[Synset]:
    return wordnet.related(synset, "hypernyms") + wordnet.related(synset, "instance_hypernyms")


def _meronyms(word: str, synset: Synset, name: Callable[[Synset], str | None]) -> Iterator[Triple]:
    for method, relation, word_is_tail in _MERONYMY:
        for other in wordnet.related(synset, method):
            if (named := name(other)) is not None:
                yield Triple(named, relation, word) if word_is_tail else Triple(word, relation, named)


#: GQA's catch-all class groups: ``name`` holds ``air`` and ``away``, ``object`` and ``thing`` a
#: hundred unrelated classes each, so they say nothing of what a class is, and their words' many
#: senses (a celebrity, an aim, a body of water) would only pull a class away from its own
_CATCH_ALLS = frozenset({"name", "object", "thing"})


def own_sense(word: str) -> Synset | None:
    """The sense a class stands for.  WordNet's most common sense is often not the thing a scene
    shows (``toaster``: one who proposes a toast; ``banana``: the plant), but GQA's ontology says
    what each class is, by its groups and, for a group's own class, by its members.  So: the
    seed thesis's exception; else its most common noun sense below a sense of one of its groups
    (``toaster`` under appliance, ``banana`` under fruit), else its most common physical one
    (``table``: the furniture, not the array), else its most common; and where that is a
    group's class none of whose members lies below it, the sense most of them lie below
    (``plant``: the organism, not the factory).  None for a class that is no noun in its own
    right (an adjective's nounified sense, ``wooden`` -> ``wood``, names another thing)."""
    if word in wordnet.EXCEPTIONS:
        return wordnet.sense(word)
    if not wordnet.reader().synsets(word.replace(" ", "_"), "n"):
        return None
    senses = wordnet.senses(word)
    usual = (_first_below(senses, _kinds(word))
             or _first_below(senses, {wordnet.reader().synset("physical_entity.n.01")}) or senses[0])
    return _as_members_say(word, senses, usual)


def _as_members_say(group: str, senses: tuple[Synset, ...], usual: Synset) -> Synset:
    """`usual`, unless the class is a group none of whose members' senses (as their groups say)
    lies below it and some lie below another of its senses: then the one most lie below."""
    if group in _CATCH_ALLS:
        return usual
    members = sorted(load().class_members.get(group, frozenset()) - {group})
    below = [found for member in members
             if (found := _first_below(wordnet.senses(member), _kinds(member))) is not None]
    votes = {sense: sum(sense in wordnet.hypernyms(found) for found in below) for sense in senses}
    best = max(senses, key=votes.__getitem__)
    return best if votes[best] and not votes[usual] else usual


def _first_below(senses: tuple[Synset, ...], generals: set[Synset]) -> Synset | None:
    """The first of `senses` (the most common) below one of `generals`."""
    return next((sense for sense in senses if generals & wordnet.hypernyms(sense)), None)


def _kinds(word: str) -> set[Synset]:
    """The senses of the GQA class groups a class is in, directly or through a group within
    another (``croissant``: pastry, baked good), but for itself and the catch-alls."""
    found: set[str] = set()
    pending = [word]
    while pending:
        for group in load().ancestors(pending.pop()):
            if group not in found:
                found.add(group)
                pending.append(group)
    return {kind for group in found - {word} - _CATCH_ALLS for kind in wordnet.senses(group)}
