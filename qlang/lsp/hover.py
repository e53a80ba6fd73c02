"""Hover: an operation's signature and meaning from the operation table; a word's kind and what
the ontology says of it (a class's categories, a value's attribute categories, a category's
values); a code-like variable's or flat step's type and definition."""

from __future__ import annotations

from lsprotocol import types

from qlang.asp_names import from_term
from qlang.lsp import table
from qlang.lsp.calls import Call, PlacedWord, Role, key
from qlang.lsp.documents import Document
from qlang.ontology import Ontology
from qlang.passes.vocabulary import words
from qlang.signatures import END, MAX_TEXT, SIGNATURES, Kind, Type

#: The most characters of a definition a hover shows.
SHOWN = 300


def hover(document: Document, position: types.Position, ontology: Ontology) -> types.Hover | None:
    calls = document.calls
    mark = calls.at(document.point(position)) if calls is not None else None
    if mark is None:
        return None
    if isinstance(mark, Call):
        text, token = _operation(mark.name.value), mark.name
    elif mark.role is Role.WORD:
        text, token = _word(mark, ontology), mark.token
    else:
        text, token = _defined(document, mark), mark.token
    if text is None:
        return None
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), document.token_range(token))


def _operation(name: str) -> str | None:
    signature = SIGNATURES.get(name)
    if name == END:
        return "```\nend(step)\n```\nthe program's answer is this step"
    if signature is None:
        return None
    return f"```\n{table.written(signature)}\n```\n{signature.doc}"


def _word(word: PlacedWord, ontology: Ontology) -> str | None:
    if word.call is None:
        return None
    wanted = table.expected(word.call.name.value, word.position)
    if isinstance(wanted, Type):
        return f"an operation yielding {wanted.value} stands here, not a word"
    if wanted is None:
        return None
    value = from_term(word.token.value)
    category = table.category(word.call, word.position)
    head = f"**{value}**: {wanted.value}"
    if wanted is Kind.VALUE and category:
        head = f"**{value}**: {category} value"
    if wanted is Kind.TEXT:
        return f"{head}\n\nfree text (at most {MAX_TEXT} characters), matched against the objects' documents"
    if value not in words(wanted, category, ontology):
        return f"{head}\n\nnot a known {wanted.value}" + (f" of {category}" if category else "")
    return "\n\n".join([head, *_about(value, wanted, ontology)])


def _about(value: str, kind: Kind, ontology: Ontology) -> list[str]:
    """What the ontology says of a known word."""
    if kind is Kind.CLASS:
        parents = [p for p in ontology.ancestors(value) if p != value]
        return [f"under: {', '.join(parents)}"] if parents else []
    if kind is Kind.VALUE:
        categories = ontology.category_of(value)
        return [f"a value of: {', '.join(categories)}"] if categories else []
    if kind is Kind.ATTR:
        values = sorted(ontology.categories.get(value, ()))
        more = f" … ({len(values)} in all)" if len(values) > 12 else ""
        return [f"values: {', '.join(values[:12])}{more}"] if values else []
    return []


def _defined(document: Document, word: PlacedWord) -> str | None:
    calls = document.calls
    assert calls is not None
    found = calls.defined.get(key(word))
    if found is None:
        return f"`{word.token.value}` is not defined"
    definition, value = found
    what = "variable" if definition.token.type == "NAME" else "step"
    if value is None:
        return f"{what} `{definition.token.value}`"
    result = table.result(value)
    shown = _text(document, value)
    typed = result.value if result else "unknown type"
    return f"{what} `{definition.token.value}`: {typed}\n```\n{shown}\n```"


def _text(document: Document, call: Call) -> str:
    """The call as written, at most `SHOWN` characters of it."""
    text = document.text[document.offset(call.name.line, call.name.column):document.offset(*call.end)]
    return text if len(text) <= SHOWN else text[:SHOWN] + " …"
