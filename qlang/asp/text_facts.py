"""What the text operations found, as clingo facts (theory/text.lp reads them).

`qlang.text.evidence` computes, before solving, what a question's ``match`` and ``extract``
find in the scene's documents and what its objects show; here that becomes facts keyed as the
question's own facts spell its literals (`qlang.asp_names.literal_symbol`: a text a string, a
count the quoted number it is), objects as the scene spells them, and weights as costs:

- ``text_match(Q, O, C)`` and ``text_count(K, N)`` for each ``match``;
- ``text_span(Q, O, V, C)`` for each ``extract``;
- ``text_shows(O, V, C)`` where the question reads (every object's, as ``read`` also reads the
  texts lying on an object);
- ``text_quote(K, O, D, S, E)``: where object O's text K (an extract's question, a text shown)
  was quoted from, document D's characters S to E, which the theory ignores and `quotes`
  reads off a model for ``explain``.

Nothing is made for a question without text operations.
"""

from __future__ import annotations

from collections.abc import Iterable

import clingo

from qlang.asp.query import Query
from qlang.asp.scene import object_symbol
from qlang.asp_names import from_term, literal_symbol, to_symbol
from qlang.signatures import Kind
from qlang.text.documents import Documents
from qlang.text.evidence import LYING, Evidence, Snippet

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
                found.update(dict.fromkeys(_quote(key, oid, span)))
        elif fact.name == "read":
            for oid, shown in sorted(evidence.shown.items()):
                for said in shown:
                    found[_fact("text_shows", object_symbol(oid), to_symbol(said.text),
                                clingo.Number(said.cost))] = None
                    found.update(dict.fromkeys(_quote(to_symbol(said.text), oid, said)))
    return list(found)


def _quote(key: clingo.Symbol, oid: str, found: Snippet) -> list[clingo.Symbol]:
    quote = found.quote
    if quote is None:
        return []
    return [_fact("text_quote", key, object_symbol(oid), *map(clingo.Number, (quote.document, quote.start,
                                                                             quote.end)))]


def quotes(atoms: Iterable[clingo.Symbol], documents: Documents) -> dict[int, list[str]]:
    """Per step of a model's ``extract`` and ``read``, the documents its answer was quoted from,
    the span marked (`Documents.marked`): those of the input objects (for ``read``, and of the
    objects lying on them) that say the answer."""
    by: dict[str, list[clingo.Symbol]] = {}
    for atom in atoms:
        by.setdefault(atom.name, []).append(atom)
    kept: dict[int, list[clingo.Symbol]] = {}
    for atom in by.get("state", ()):
        kept.setdefault(atom.arguments[0].number, []).append(atom.arguments[1])
    values = {a.arguments[0].number: a.arguments[1] for a in by.get("attr_value", ())}
    quoted = {(a.arguments[0], a.arguments[1]): a.arguments[2:] for a in by.get("text_quote", ())}
    lying: dict[clingo.Symbol, list[clingo.Symbol]] = {}
    for atom in by.get("has_rel", ()):
        if from_term(str(atom.arguments[1])) in LYING:
            lying.setdefault(atom.arguments[2], []).append(atom.arguments[0])
    said = {(a.arguments[0], a.arguments[1], a.arguments[2]) for a in by.get("text_span", ())}
    shows = {(a.arguments[0], a.arguments[1]) for a in by.get("text_shows", ())}
    found: dict[int, list[str]] = {}
    for atom in (*by.get("extract", ()), *by.get("read", ())):
        step, source = atom.arguments[0].number, atom.arguments[1].number
        value = values.get(step)
        if value is None:
            continue
        if atom.name == "extract":
            question = atom.arguments[2]
            places = [(question, o) for o in kept.get(source, ()) if (question, o, value) in said]
        else:
            places = [(value, x) for o in kept.get(source, ()) for x in (o, *lying.get(o, ()))
                      if (x, value) in shows]
        found[step] = [documents.marked(*(n.number for n in quoted[place]))
                       for place in dict.fromkeys(places) if place in quoted]
    return found


def _fact(name: str, *arguments: clingo.Symbol) -> clingo.Symbol:
    return clingo.Function(name, list(arguments))
