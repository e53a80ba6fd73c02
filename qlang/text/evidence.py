"""What the text operations find over one scene, computed in Python before solving.

Retrieval and extraction are neural, so neither the ASP theory nor the interpreter runs them:
both read the same `Evidence`, keyed by what a program writes (the text of ``match`` and
``extract``) and by object, never by step, so that each back end looks it up from its own form
of the program (theory/text.lp reads it as facts, `qlang.asp.text_facts`):

- `matches`: for each text a ``match`` asks, the cost of each object's best document against
  it, for every object that has documents (an object without any is never matched);
- `answers`: for each question an ``extract`` asks, the span each object's documents answer it
  with, where they do;
- `shown`: the texts each object shows itself (the words read from a photo, a document about its
  id); ``read`` also reads those of the objects lying on it (`LYING`).

`qlang.text.gather` finds it.  A cost is a weight w in (0, 1] as the solver prices it,
-1000 ln w, so that ``--top-k`` ranks by it and the two back ends compare equal costs alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the back ends read evidence without loading what finds it
    from qlang.text.extract import Quote

#: A cost per unit of -ln w, as the scene's confidences (`qlang.asp.scene.weight`).
SCALE = 1000


def cost(weight: float) -> int:
    """The cost of a weight in (0, 1].

    >>> cost(1.0), cost(0.5)
    (0, 693)
    """
    return round(-SCALE * math.log(weight))


@dataclass(frozen=True, slots=True)
class Snippet:
    """A text found for an object: the text, its cost, and where it was quoted from (None: it is
    no span of a document, as a photo's words are not)."""

    text: str
    cost: int
    quote: Quote | None = None
    #: the document's source (a file's name, ``wordnet``, ``the photo``)
    source: str = ""


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the text operations found over one scene (module docstring)."""

    #: text -> object id -> cost of its best document
    matches: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    #: question -> object id -> the span its documents answer with
    answers: Mapping[str, Mapping[str, Snippet]] = field(default_factory=dict)
    #: object id -> the texts it shows
    shown: Mapping[str, tuple[Snippet, ...]] = field(default_factory=dict)


#: No documents: nothing is matched, extracted or read.
NOTHING = Evidence()

#: The relations by which a text lies on an object: GQA's words ``on`` a sign, and a photo's
#: text region ``in`` the box of what it is painted on (`qlang.vision.geometry`).
LYING = ("on", "in")

