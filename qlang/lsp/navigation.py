"""Go to definition and references for code-like variables and flat steps, and the document's
symbols: its steps (calls nested as written; flat facts; code-like statements by their
variable; GQA's steps by number)."""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from qlang.errors import QlangError, Source
from qlang.lsp.calls import Call, PlacedWord, Role, key
from qlang.lsp.documents import Document
from qlang.signatures import END
from qlang.syntax import SYNTAXES
from qlang.syntax.gqa import GqaStep


def _named(document: Document, position: types.Position) -> PlacedWord | None:
    """The variable or step (defined or used) at the position."""
    calls = document.calls
    mark = calls.at(document.point(position)) if calls is not None else None
    return mark if isinstance(mark, PlacedWord) and mark.role is not Role.WORD else None


def definition(document: Document, position: types.Position) -> types.Location | None:
    word = _named(document, position)
    if word is None or document.calls is None or key(word) not in document.calls.defined:
        return None
    defining, _ = document.calls.defined[key(word)]
    return types.Location(document.uri, document.token_range(defining.token))


def references(document: Document, position: types.Position, declaration: bool) -> list[types.Location]:
    word = _named(document, position)
    if word is None or document.calls is None:
        return []
    wanted = {Role.REFERENCE, Role.DEFINITION} if declaration else {Role.REFERENCE}
    return [types.Location(document.uri, document.token_range(w.token)) for w in document.calls.words
            if w.role in wanted and key(w) == key(word)]


def symbols(document: Document) -> list[types.DocumentSymbol]:
    syntax = SYNTAXES.get(document.language)
    if syntax is not None and syntax.steps is not None:
        return _steps(document, syntax.steps)
    calls = document.calls
    if calls is None:
        return []
    children: dict[int, list[types.DocumentSymbol]] = {}  # each call's, filled as they come
    top: list[types.DocumentSymbol] = []
    for call in calls.calls:  # parents before children: no recursion, however deep
        children[id(call)] = []
        symbol = _symbol(document, call, children[id(call)])
        (children[id(call.parent)] if call.parent is not None else top).append(symbol)
    if calls.shape.assign is not None:
        return _by_variable(document, top, calls.roots)
    return top


def _symbol(document: Document, call: Call, children: list[types.DocumentSymbol]) -> types.DocumentSymbol:
    own = [w for w in call.words if w.role is Role.DEFINITION]
    name = f"{own[0].token.value}: {call.name.value}" if own else call.name.value
    literals = ", ".join(w.token.value for w in call.words if w.role is Role.WORD)
    kind = types.SymbolKind.Key if call.name.value == END else types.SymbolKind.Function
    whole = types.Range(document.position(call.name.line, call.name.column), document.position(*call.end))
    return types.DocumentSymbol(name=name, kind=kind, range=whole, detail=literals or None,
                                selection_range=document.token_range(call.name), children=children)


def _by_variable(document: Document, top: list[types.DocumentSymbol],
                 roots: list[Call]) -> list[types.DocumentSymbol]:
    """Code-like statements: an assignment as its variable, holding its expression."""
    assert document.calls is not None
    variables = {d.statement: d for d, _ in document.calls.defined.values()}
    result = []
    for symbol, root in zip(top, roots, strict=True):
        variable = variables.get(root.statement)
        if variable is None:
            result.append(symbol)
            continue
        selection = document.token_range(variable.token)
        result.append(types.DocumentSymbol(
            name=variable.token.value, kind=types.SymbolKind.Variable, detail=root.name.value,
            range=types.Range(selection.start, symbol.range.end), selection_range=selection,
            children=[symbol]))
    return result


def _steps(document: Document, read: Callable[[Source], list[GqaStep]]) -> list[types.DocumentSymbol]:
    try:
        steps = read(document.source) if document.too_large is None else []
    except QlangError:
        return []
    symbols = []
    for number, step in enumerate(steps):
        where = document.range(step.span)
        symbols.append(types.DocumentSymbol(name=f"{number}: {step.operation}", range=where,
                                            kind=types.SymbolKind.Function, selection_range=where,
                                            detail=step.argument or None))
    return symbols
