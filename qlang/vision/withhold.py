"""The step plain `ask` and the seek experiment's fixed pipeline both take before giving a
photo's best answer, so that they withhold alike: a "no" about what the perceiver cannot see
(`qlang.vision.recall`), a name that only repeats the class asked (`qlang.vision.repeats`), and
an answer less likely than seek's cut for its kind (`qlang.vision.margins`) are "cannot tell".
Where a photo gives no answer at all, both say why alike (`unanswered`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from qlang.asp.outcome import Answer
from qlang.interpret import EmptyQuery, MissingEdge
from qlang.ir import Node
from qlang.ontology import PRONOUNS, load
from qlang.signatures import Kind
from qlang.vision.margins import unsure
from qlang.vision.recall import blind_no, why
from qlang.vision.repeats import repeats
from qlang.vision.sight import Sight, words


def withheld(sight: Sight, root: Node, answers: Sequence[Answer], base: int,
             threshold: float | None,
             presumed: Collection[str] = ()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Why the best of a photo's `answers` to `root` is no answer: the words a "no" rests on
    that `sight` cannot deny at `threshold`, and the doubts to show (both empty: it stands);
    `base` is the likeliest scene's cost (`qlang.vision.margins.likeliest`).  A `presumed`
    class is taken to be an object seen (`qlang.vision.presume`): no "no" rests on it."""
    best = answers[0].value
    unseen = tuple(word for word in blind_no(sight, root, best, threshold) if word not in presumed)
    if unseen:
        return unseen, tuple(why(sight, word, threshold) for word in unseen)
    refused = repeats(root, best) or unsure(root, answers, base)
    return (), () if refused is None else (refused,)


def seen_in(graph: Mapping[str, Any], cls: str) -> bool:
    """Whether a perceived scene graph has an object of a class: by name, by one of the classes
    it answers to (a photo's subject is `this`), or below it in the ontology."""
    ontology = load()
    return any(cls in o.get("classes", ()) or ontology.is_a(str(o["name"]), cls)
               for o in graph.get("objects", {}).values())


def unanswered(root: Node, seen: Callable[[str], bool], unseen: Sequence[str], threshold: float | None,
               presumed: Collection[str] = ()) -> tuple[str, str]:
    """Why a photo gives `root` no answer, and the seed thesis's failure class it is
    (`EmptyQuery`, `MissingEdge`; "" for a word no perceiver sees): the first class the program
    names of which nothing is `seen` (nor `presumed` to be an object seen), else the first word
    of it the perceiver cannot see (`unseen`), else the relation no objects seen stand in."""
    at = f" at >= {threshold:g}" if threshold else ""
    named = words(root)
    for cls in (word for kind, word in named if kind is Kind.CLASS):
        if not seen(cls) and cls not in presumed:
            why = (f"no perceiver knows '{cls}'" if cls in unseen
                   else f"nothing the question calls '{cls}' is seen{at}" if cls in PRONOUNS
                   else f"no {cls} is seen{at}")
            return why, EmptyQuery.__name__
    if unseen:
        return f"no perceiver knows '{unseen[0]}'", ""
    relations = [word for kind, word in named if kind is Kind.REL]
    if relations:
        return f"no objects seen are '{relations[0]}' one another", MissingEdge.__name__
    return "no object seen has what is asked", EmptyQuery.__name__
