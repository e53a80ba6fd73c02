"""What the operation table and the ontology say of a place in a program: what an argument
position holds, the words that may stand there, how an operation is written.

Everything is read from `SIGNATURES` and the ontology, so an operation or literal kind added to
the table is completed and explained with no change here.
"""

from __future__ import annotations

from qlang.asp_names import from_term
from qlang.lsp.calls import Call
from qlang.ontology import Ontology
from qlang.passes.vocabulary import words
from qlang.signatures import SIGNATURES, Kind, Signature, Type


def expected(operation: str, position: int) -> Type | Kind | None:
    """What argument `position` of `operation` holds: an operation of a type, or a word of a
    kind (None: no such position, or no such operation)."""
    signature = SIGNATURES.get(operation)
    if signature is None or not 0 <= position < signature.arity:
        return None
    operands = len(signature.operands)
    return signature.operands[position] if position < operands else signature.literals[position - operands]


def written(signature: Signature) -> str:
    """``filter(Objects, attr, value) -> Objects``."""
    arguments = [t.value for t in signature.operands] + [k.value for k in signature.literals]
    return f"{signature.name}({', '.join(arguments)}) -> {signature.result.value}"


def yielding(wanted: Type) -> list[Signature]:
    """The operations whose result may stand where `wanted` is expected."""
    return [s for s in SIGNATURES.values() if wanted.accepts(s.result)]


def result(call: Call | None) -> Type | None:
    signature = SIGNATURES.get(call.name.value) if call is not None else None
    return signature.result if signature is not None else None


def category(call: Call, position: int) -> str | None:
    """The attribute category written before `position` in `call` (what narrows a value)."""
    words = [w for w in call.words if w.position < position and expected(call.name.value, w.position)
             is Kind.ATTR]
    return from_term(words[-1].token.value) if words else None


def candidates(ontology: Ontology, kind: Kind, category: str | None) -> frozenset[str]:
    """The words to offer for a literal of `kind`: a category's values are those it lists (the
    checker also admits the values no category claims, which would bury them)."""
    if kind is Kind.VALUE and category is not None and category in ontology.categories:
        return ontology.categories[category]
    return words(kind, category, ontology)
