"""Hypothesis strategies for well-typed programs, generated from the operation table.

Every operation of `SIGNATURES` can appear; operand types and literal kinds come from its
signature, literal words from the bundled GQA ontology (values narrowed to the attribute
category of the same node), so every generated program passes the checker.
"""

from __future__ import annotations

from hypothesis import strategies as st

from qlang.ir import Lit, Node
from qlang.ontology import load
from qlang.signatures import CLOSED_KINDS, SIGNATURES, Kind, Type

_ONTOLOGY = load()
_WORDS = {kind: sorted(_ONTOLOGY.vocabulary(kind)) for kind in Kind}
_ADMISSIBLE = {cat: sorted(values) for cat, values in _ONTOLOGY.admissible.items()}
#: The smallest program of each type: where generation stops when the depth runs out.
_LEAF_OPS = {Type.OBJECTS: "scene", Type.OBJECT: "unique", Type.BOOL: "exist", Type.VALUE: "query"}


def words(kind: Kind, category: str | None = None) -> st.SearchStrategy[str]:
    if kind is Kind.VALUE and category in _ADMISSIBLE:
        return st.sampled_from(_ADMISSIBLE[category])
    if kind in CLOSED_KINDS:
        return st.sampled_from(CLOSED_KINDS[kind])
    return st.sampled_from(_WORDS[kind])


@st.composite
def literals(draw: st.DrawFn, kinds: tuple[Kind, ...]) -> list[Lit]:
    result, category = [], None
    for kind in kinds:
        word = draw(words(kind, category))
        category = word if kind is Kind.ATTR else category
        result.append(Lit(word))
    return result


@st.composite
def nodes(draw: st.DrawFn, result: Type, depth: int) -> Node:
    """A well-typed node yielding `result`, at most about `depth` operations deep."""
    fitting = sorted(s.name for s in SIGNATURES.values() if result.accepts(s.result))
    name = _LEAF_OPS[result] if depth <= 0 else draw(st.sampled_from(fitting))
    signature = SIGNATURES[name]
    operands = [draw(nodes(t, depth - 1)) for t in signature.operands]
    return Node(name, (*operands, *draw(literals(signature.literals))))


def programs(max_depth: int = 5) -> st.SearchStrategy[Node]:
    """Whole programs: their root yields an answer."""
    return st.tuples(st.sampled_from([Type.BOOL, Type.VALUE]), st.integers(1, max_depth)).flatmap(
        lambda spec: nodes(spec[0], spec[1]))


#: characters mutations insert: the punctuation of every syntax, and a few letters and digits
MUTATION_ALPHABET = "()[],.:=->_ \n\"'%|?\\abcdez019"


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """`text` with a few characters deleted, inserted, duplicated or swapped."""
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        match draw(st.sampled_from(["delete", "insert", "duplicate", "swap"])):
            case "delete":
                text = text[:i] + text[j:]
            case "insert":
                text = text[:i] + draw(st.text(MUTATION_ALPHABET, max_size=4)) + text[i:]
            case "duplicate":
                text = text[:j] + text[i:j] + text[j:]
            case "swap":
                text = text[:i] + text[j:] + text[i:j]
    return text
