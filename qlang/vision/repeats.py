"""An answer that only repeats the question's class: "What kind of building is this?" answered
"building" (or "structure", a class above it) says nothing the question did not.  The photo's
perceivers named the thing no finer than the question did, so on a photo it is no answer but
"cannot tell: seen only as a building", for `ask` and seek alike.
"""

from __future__ import annotations

from qlang.ir import Node
from qlang.ontology import PRONOUNS, load
from qlang.signatures import Kind
from qlang.vision.kinds import kind_of
from qlang.words import article


def asked(root: Node) -> str | None:
    """The class whose name a program asks (`query(unique(select(scene(), building)), name)`:
    building), None where it asks no name, or of no class (`relate_any`, `this`)."""
    if root.op != "query" or root.literals[-1:] != ("name",) or root.operands[0].op != "unique":
        return None
    chosen = root.operands[0].operands[0]
    if chosen.signature is None:
        return None
    classes = [word for kind, word in zip(chosen.signature.literals, chosen.literals, strict=False)
               if kind is Kind.CLASS]
    return classes[0] if classes and classes[0] not in PRONOUNS else None


def repeats(root: Node, answer: str) -> str | None:
    """Why `answer` to the program is none: it is the class asked, or a class above it, in
    GQA's categories or in WordNet; None where it names something finer."""
    cls = asked(root)
    if cls is None or not (load().is_a(cls, answer) or kind_of(cls, answer)):
        return None
    return f"seen only as {article(cls)} {cls}"
