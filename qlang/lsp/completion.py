"""Completion by what may stand at the cursor, as the operation table says.

Where an operation may start: the operations whose result fits (any at the top), with their
signatures.  In a literal position: the words of its kind (a value: of the category written
before it in the same call; `subject`/`object`, `true`/`false` for the closed kinds).  Code-like
variables defined in earlier statements, and flat steps numbered in earlier facts, where an
operand fits their type; the next free step number where a flat fact starts.
"""

from __future__ import annotations

from collections.abc import Collection

from lsprotocol import types

from qlang.asp_names import to_term
from qlang.lsp import table
from qlang.lsp.calls import Call, Calls, Point, key
from qlang.lsp.documents import Document
from qlang.ontology import Ontology
from qlang.signatures import END, SIGNATURES, Kind, Type

_KINDS = {Kind.CLASS: types.CompletionItemKind.Class, Kind.ATTR: types.CompletionItemKind.Property,
          Kind.VALUE: types.CompletionItemKind.EnumMember, Kind.REL: types.CompletionItemKind.Interface,
          Kind.DIR: types.CompletionItemKind.Keyword, Kind.MODE: types.CompletionItemKind.Keyword}


def complete(document: Document, position: types.Position, ontology: Ontology,
             edit_range_default: bool = False) -> types.CompletionList:
    """The candidates at `position`.  The word being typed is replaced whole (it may hold `_`,
    `'` or quotes, which clients split words at), and only candidates holding what is typed so
    far are sent (a class position has 1,786), the list marked incomplete so that the client
    asks again as typing goes on; with `edit_range_default` the range is said once for all."""
    calls = document.calls
    if calls is None:
        return types.CompletionList(is_incomplete=False, items=[])
    point = document.point(position)
    items = _items(document, calls, point, ontology)
    typed = calls.at(point)
    if typed is None:
        return types.CompletionList(is_incomplete=False, items=items)
    token = typed.name if isinstance(typed, Call) else typed.token
    prefix = token.value[:point[1] - token.column].lower() if token.line == point[0] else ""
    items = [item for item in items if prefix in item.label.lower()]
    where = types.Range(document.position(token.line, token.column), document.position(*point))
    if edit_range_default:
        return types.CompletionList(is_incomplete=True, items=items,
                                    item_defaults=types.CompletionItemDefaults(edit_range=where))
    for item in items:
        item.text_edit = types.TextEdit(where, item.label)
    return types.CompletionList(is_incomplete=True, items=items)


def _items(document: Document, calls: Calls, point: Point, ontology: Ontology) -> list[types.CompletionItem]:
    place = calls.open_at(point)
    if place is None:
        if calls.shape.numbered:  # numbered steps name their answer with end(N)
            return [*_operations(SIGNATURES), _item(END, types.CompletionItemKind.Keyword,
                                                    "end(step): the answer")]
        line = document.lines[point[0] - 1][:point[1] - 1]
        assigning = line.rstrip().endswith("=")
        return _operations(SIGNATURES) + ([] if assigning else _defined(calls, point, None))
    call, position = place
    operation = call.name.value
    if calls.shape.numbered and operation == END:
        return _defined(calls, point, None)
    if calls.shape.numbered and position == -1:
        numbers = [int(key(w)) for w, fact in calls.defined.values()
                   if fact is not call and len(w.token.value) < 10]
        return [_item(str(max(numbers, default=-1) + 1), types.CompletionItemKind.Reference, "a new step")]
    wanted = table.expected(operation, position)
    if isinstance(wanted, Type):  # flat refers to steps only; the others nest operations too
        names = set() if calls.shape.numbered else {s.name for s in table.yielding(wanted)}
        return _operations(names) + _defined(calls, point, wanted)
    if isinstance(wanted, Kind):
        category = table.category(call, position)
        kind = _KINDS.get(wanted, types.CompletionItemKind.Text)
        detail = f"{category} value" if wanted is Kind.VALUE and category else wanted.value
        return [_item(to_term(w), kind, detail) for w in sorted(table.candidates(ontology, wanted, category))]
    return []


def _operations(names: Collection[str]) -> list[types.CompletionItem]:
    return [
        types.CompletionItem(
            label=s.name, kind=types.CompletionItemKind.Function, detail=table.written(s),
            documentation=types.MarkupContent(types.MarkupKind.Markdown, s.doc))
        for s in SIGNATURES.values() if s.name in names
    ]


def _defined(calls: Calls, point: Point, wanted: Type | None) -> list[types.CompletionItem]:
    """The variables or steps whose statement ends before the cursor, where their value fits."""
    items = []
    for definition, value in calls.defined.values():
        if value is None or value.stop > point:
            continue
        result = table.result(value)
        if wanted is not None and result is not None and not wanted.accepts(result):
            continue
        kind = types.CompletionItemKind.Variable if definition.token.type == "NAME" \
            else types.CompletionItemKind.Reference
        items.append(_item(definition.token.value, kind,
                           f"{value.name.value}: {result.value if result else '?'}"))
    return items


def _item(label: str, kind: types.CompletionItemKind, detail: str) -> types.CompletionItem:
    return types.CompletionItem(label=label, kind=kind, detail=detail)
