"""What the text operations found, as clingo facts (theory/text.lp reads them).

`qlang.text.evidence` computes, before solving, what a question's ``match`` and ``extract``
find in the scene's documents and what its objects show; here that becomes facts keyed as the
question's own facts spell its literals (`qlang.asp_names.literal_symbol`: a text a string, a
count the quoted number it is), objects as the scene spells them, and weights as costs:

- ``text_match(Q, O, C)`` and ``text_count(K, N)`` for each ``match``;
- ``text_span(Q, O, V, C)`` for each ``extract``;
- ``text_shows(O, V, C)`` where the question reads (every object's, as ``read`` also reads the
  texts lying on an object).

Nothing is made for a question without text operations.
"""

from __future__ import annotations

import clingo

from qlang.asp.query import Query
from qlang.asp.scene import object_symbol
from qlang.asp_names import literal_symbol, to_symbol
from qlang.signatures import Kind
from qlang.text.evidence import Evidence

#: The operations whose theory rules read these facts.
READING = frozenset({"match", "extract", "read"})


def facts(evidence: Evidence, question: Query) -> list[clingo.Symbol]:
    """The facts of `evidence` the question's text operations read (module docstring)."""
    found: dict[clingo.Symbol, None] = {}  # each once, in order
    for fact in question:
        if fact.name == "match":
            text, count = str(fact.args[2]), str(fact.args[3])
            key = literal_symbol(text, Kind.TEXT)
            found[_fact("text_count", literal_symbol(count, Kind.COUNT), clingo.Number(int(count)))] = None
            for oid, cost in sorted(evidence.matches.get(text, {}).items()):
                found[_fact("text_match", key, object_symbol(oid), clingo.Number(cost))] = None
        elif fact.name == "extract":
            text = str(fact.args[2])
            key = literal_symbol(text, Kind.TEXT)
            for oid, span in sorted(evidence.answers.get(text, {}).items()):
                found[_fact("text_span", key, object_symbol(oid), to_symbol(span.text),
                            clingo.Number(span.cost))] = None
        elif fact.name == "read":
            for oid, shown in sorted(evidence.shown.items()):
                for said in shown:
                    found[_fact("text_shows", object_symbol(oid), to_symbol(said.text),
                                clingo.Number(said.cost))] = None
    return list(found)


def _fact(name: str, *arguments: clingo.Symbol) -> clingo.Symbol:
    return clingo.Function(name, list(arguments))
