"""ConceptNet 5's assertions file, as published (``conceptnet-assertions-5.7.0.csv``, gzipped or
not): five tab-separated fields a line, the assertion's URI, the relation's (``/r/UsedFor``),
the start and end concepts' (``/c/en/cup/n``) and JSON holding the edge's ``weight``.

An edge is kept when both its concepts are English (``/c/en/``) and its relation is one of
qlang's (`qlang.knowledge.relations`; negations, ``ExternalURL`` and the ``/r/dbpedia/...``
relations are skipped, as are edges to other languages); a concept's word is its URI's third
part (``/c/en/ice_cream/n`` is ``ice cream``), so its senses merge, and the strongest of the
merged edges is kept.  ConceptNet's weight (about the number of sources asserting the edge)
becomes `source_weight` of it.  A line that is not of this form is a located error; only the
JSON of kept edges is parsed, so the 30 million lines of other languages cost a split each.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator

from qlang import jsontext
from qlang.errors import shown
from qlang.knowledge.lines import Line
from qlang.knowledge.relations import BY_CONCEPTNET
from qlang.knowledge.triples import Triple, normal_word, source_weight

#: how an edge of each kind that is skipped is counted
OTHER_RELATION, OTHER_LANGUAGE = "another relation", "not English"
_ENGLISH = "/c/en/"
_FIELDS = "assertion, relation, start, end, JSON"


def read(lines: Iterable[Line], tally: Counter[str]) -> Iterator[Triple]:
    """The English triples of ConceptNet lines, counting in `tally` the edges skipped (by
    `OTHER_RELATION` and `OTHER_LANGUAGE`); raises `KnowledgeError` at a malformed line."""
    for line in lines:
        fields = line.text.split("\t")
        if len(fields) != 5:
            raise line.error(f"expected ConceptNet's five tab-separated fields ({_FIELDS}): this line "
                             f"has {len(fields)}", 1, len(line.text))
        _, relation_uri, start, end, _ = fields
        if not relation_uri.startswith("/r/"):
            raise line.field_error(fields, 1, "a ConceptNet relation is a URI /r/<Name>")
        relation = BY_CONCEPTNET.get(relation_uri[3:])
        if relation is None:
            tally[OTHER_RELATION] += 1
        elif not (start.startswith(_ENGLISH) and end.startswith(_ENGLISH)):
            tally[OTHER_LANGUAGE] += 1
        else:
            yield Triple(_concept(line, fields, 2), relation.name, _concept(line, fields, 3),
                         _weight(line, fields))


def _concept(line: Line, fields: list[str], number: int) -> str:
    uri = fields[number]
    try:
        return normal_word(uri[len(_ENGLISH):].split("/", 1)[0])
    except ValueError as exc:
        raise line.field_error(fields, number, f"the concept {shown(uri)}: {exc}") from None


def _weight(line: Line, fields: list[str]) -> float:
    try:
        info = jsontext.loads(fields[4])
    except json.JSONDecodeError as exc:  # malformed, nested too deep, an endless integer
        raise line.field_error(fields, 4, f"the edge's JSON: {exc.msg}", at=exc.pos) from None
    weight = info.get("weight") if isinstance(info, dict) else None
    if isinstance(weight, bool) or not isinstance(weight, int | float) or not (math.isfinite(weight)
                                                                             and weight > 0):
        raise line.field_error(fields, 4, "the edge's JSON has no positive number as its 'weight'")
    return source_weight(weight)
