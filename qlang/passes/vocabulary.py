"""The words a literal of each kind may be: the GQA ontology's, and the knowledge relations'.

The knowledge relations (`qlang.knowledge.relations`, ConceptNet's in snake case) are a closed
vocabulary of the language, but one the ontology, a layer below the knowledge, cannot list; so
everything above both asks here.  In a program a relation is a word like any other, spelled
with spaces (``used for``), which the ASP syntaxes write ``used_for`` as they write
``to_the_left_of``; `RELATION_NAMES` maps the word back to the relation's name.

>>> RELATION_NAMES["used for"], "is a" in words(Kind.KREL)
('used_for', True)
"""

from __future__ import annotations

from qlang.knowledge.relations import BY_NAME
from qlang.ontology import Ontology, load
from qlang.signatures import Kind

#: The literal kinds whose words the knowledge in use extends, where an operation reads it.
EXTENDED = frozenset({Kind.CLASS, Kind.VALUE})
#: a knowledge relation as a program writes it -> its name in the knowledge
RELATION_NAMES = {name.replace("_", " "): name for name in BY_NAME}
_RELATION_WORDS = frozenset(RELATION_NAMES)


def words(kind: Kind, category: str | None = None, ontology: Ontology | None = None) -> frozenset[str]:
    """The words a literal of `kind` may be (values narrowed to `category` when known); free
    text lists none, since any text within bounds may be (`qlang.passes.typecheck`)."""
    if kind is Kind.KREL:
        return _RELATION_WORDS
    if kind is Kind.TEXT:
        return frozenset()
    return (ontology or load()).vocabulary(kind, category)
