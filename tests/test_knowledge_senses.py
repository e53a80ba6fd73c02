"""Which WordNet sense a GQA class stands for in the bundled knowledge base: the one its GQA
class group says (a toaster is an appliance, not one who proposes a toast), the seed thesis's
exceptions still winning."""

from __future__ import annotations

from collections import defaultdict

import pytest

from qlang import wordnet
from qlang.knowledge import bundled
from qlang.ontology import load


@pytest.fixture(scope="module")
def parents() -> dict[str, set[str]]:
    """The bundled base's is_a edges, each word's tails."""
    found: dict[str, set[str]] = defaultdict(set)
    for triple in bundled.index().triples():
        if triple.relation == "is_a":
            found[triple.head].add(triple.tail)
    return found


def above(word: str, parents: dict[str, set[str]]) -> set[str]:
    """Everything the base's is_a edges reach from `word`."""
    found: set[str] = set()
    pending = [word]
    while pending:
        fresh = parents[pending.pop()] - found
        found |= fresh
        pending.extend(fresh)
    return found


def is_kind_of(word: str, group: str) -> bool:
    """Whether some WordNet sense of `word` lies below some sense of `group`."""
    kinds = set(wordnet.senses(group))
    return any(kinds & wordnet.hypernyms(sense) for sense in wordnet.senses(word))


# each class with the sense its most common (or first physical) WordNet sense gave it before
@pytest.mark.parametrize(("word", "wrong"), [
    ("toaster", "person"),  # one who proposes a toast
    ("hot dog", "person"),  # a show-off
    ("monitor", "person"),  # a proctor
    ("banana", "organism"),  # the treelike herb, a living plant
    ("alligator", "material"),  # the leather
])
def test_a_class_is_what_its_gqa_group_says(word: str, wrong: str, parents: dict[str, set[str]]) -> None:
    reached = above(word, parents)
    assert wrong not in reached
    groups = load().ancestors(word)
    assert any(is_kind_of(general, group) for general in reached for group in groups), (word, reached)


def test_the_thesis_s_exceptions_still_win(parents: dict[str, set[str]]) -> None:
    classes = [word for word in wordnet.EXCEPTIONS if word in load().classes]
    assert classes
    for word in classes:
        chosen = wordnet.reader().synset(wordnet.EXCEPTIONS[word])
        generals = {name for parent in chosen.hypernyms() for name in wordnet.names(parent)}
        assert generals & parents[word], (word, parents[word])


# groups whose word's usual sense holds none of their members (the factory, the tool, the gadget)
@pytest.mark.parametrize("group", ["plant", "instrument", "appliance"])
def test_a_group_s_class_is_what_its_members_are(group: str, parents: dict[str, set[str]]) -> None:
    members = load().class_members[group] - {group}
    under = [member for member in members if group in above(member, parents)]
    assert len(under) > len(members) / 2, (group, sorted(members - set(under)))
