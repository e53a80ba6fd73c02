"""Hypothesis strategies for rules files, written as text, over the words of the differential
tests' small scenes (tests/strategies.py), words of their own, and a little knowledge.

Every generated rule is safe and well sorted by construction: its positive literals bind the
variables (objects X, Y, Z; classes and values C, D; categories A; relations R) that its head,
its negated literals and its comparisons use, each variable always of one family.  A rule may
still negate what depends on itself: the tests keep the files the checker stratifies.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from qlang.asp_names import to_term
from qlang.ontology import load
from tests.strategies import CATEGORIES, NAMES, RELATIONS, VALUES

#: The file's own words, declared at its top.
NEW_CLASSES = ("c0", "c1", "c2")
NEW_VALUES = {"mood": ("happy", "sad")}
NEW_RELATIONS = ("likes",)
DECLARATIONS = (f"class {', '.join(NEW_CLASSES)}.\n"
                + "".join(f"attr {c}: {', '.join(vs)}.\n" for c, vs in NEW_VALUES.items())
                + f"rel {', '.join(NEW_RELATIONS)}.\n")

CLASSES = NAMES + CATEGORIES + NEW_CLASSES
#: attribute values by category: the scenes' values the ontology admits in their real
#: categories (the scenes also put "wooden" under `any`), and the file's own
ATTRIBUTES = {c: tuple(v for v in vs if v in load().admissible[c])
              for c, vs in VALUES.items() if c not in ("any", "name", "class", "place")} | NEW_VALUES
ALL_VALUES = tuple(v for vs in ATTRIBUTES.values() for v in vs)
ALL_RELATIONS = RELATIONS + NEW_RELATIONS
#: knowledge over the scenes' classes and a few other words
CONCEPTS = (*NAMES, *CATEGORIES, "pet", "drinking", "road")
KNOWN_RELATIONS = ("is_a", "used_for", "at_location")
#: each family's variables
VARIABLES = {"object": ("X", "Y", "Z"), "concept": ("C", "D"), "category": ("A",), "relation": ("R",)}


@st.composite
def knowledge(draw: st.DrawFn) -> frozenset[tuple[str, str, str]]:
    triple = st.tuples(st.sampled_from(CONCEPTS), st.sampled_from(KNOWN_RELATIONS), st.sampled_from(CONCEPTS))
    return frozenset(draw(st.lists(triple, max_size=6)))


#: a term of a family: one of the words (spelled) or a variable the position may use
Pick = Callable[[str, tuple[str, ...]], str]


def _atom(draw: st.DrawFn, predicates: list[str], pick: Pick) -> str:
    match draw(st.sampled_from(predicates)):
        case "class":
            return f"class({pick('object', ())}, {pick('concept', CLASSES)})"
        case "attr":
            category = pick("category", tuple(ATTRIBUTES))
            values = ATTRIBUTES.get(category, ALL_VALUES)  # a variable category: any value
            return f"attr({pick('object', ())}, {category}, {pick('concept', values)})"
        case "rel":
            return f"rel({pick('object', ())}, {pick('relation', ALL_RELATIONS)}, {pick('object', ())})"
        case _:
            return f"know({pick('concept', CONCEPTS)}, {draw(st.sampled_from(KNOWN_RELATIONS))}, " \
                   f"{pick('concept', CONCEPTS)})"


@st.composite
def rule_texts(draw: st.DrawFn) -> str:
    """One rule: 1-3 positive literals (the first of the scene), 0-2 negated, perhaps X != Y."""
    bound: set[str] = set()

    def picker(*, fresh: bool, anonymous: bool) -> Pick:
        def pick(family: str, words: tuple[str, ...]) -> str:
            names = VARIABLES[family] if fresh else tuple(v for v in VARIABLES[family] if v in bound)
            names += ("_",) if anonymous else ()
            spelt = tuple(map(to_term, words))
            # a positive literal has a variable as often as a word, so that it matches the
            # small scenes often; a negated one mostly words, so that it fails only sometimes
            pools = [pool for pool in (spelt, names) if pool] if fresh else [spelt + names]
            chosen: str = draw(st.sampled_from(draw(st.sampled_from(pools))))
            if fresh and chosen in names:
                bound.add(chosen)
            return chosen
        return pick

    positive = [_atom(draw, ["class", "attr", "rel"], picker(fresh=True, anonymous=False))]
    positive += [_atom(draw, ["class", "attr", "rel", "know"], picker(fresh=True, anonymous=True))
                 for _ in range(draw(st.integers(0, 2)))]
    negated = [f"not {_atom(draw, ['class', 'attr', 'rel', 'know'], picker(fresh=False, anonymous=True))}"
               for _ in range(draw(st.integers(0, 2)))]
    objects = sorted(bound & set(VARIABLES["object"]))
    compared = [f"{objects[0]} != {objects[1]}"] if len(objects) > 1 and draw(st.booleans()) else []
    head = _atom(draw, ["class", "attr", "rel"], picker(fresh=False, anonymous=False))
    return f"{head} :- {', '.join(positive + negated + compared)}."


@st.composite
def rules_files(draw: st.DrawFn) -> str:
    """A rules file: the declarations, then a few rules, with a comment among them."""
    rules = draw(st.lists(rule_texts(), min_size=1, max_size=6))
    rules.insert(draw(st.integers(0, len(rules))), "# derived facts read like the scene's")
    return DECLARATIONS + "\n".join(rules) + "\n"
