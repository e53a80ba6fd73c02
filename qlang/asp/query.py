"""A query: a question as the solver takes it, the lowered program's facts, as structures.

"Question" is the English text; its program, lowered, is the query.  `solve`, `GroundedScene`
and `explain` take the facts lowering made (`qlang.passes.lower.facts`, from a program checked
once) and build their clingo symbols directly, never parsing text back: the operations the
theory is cut to, and the grounding guard's counts, are read off the facts.  A query that
really arrives as ASP text (a GS-VQA encoding) is read into facts by `read`, as strictly as a
scene given as ASP (`qlang.asp.facts`).

>>> read("scene(0). select(1, 0, cat). % a cat\\nexist(2, 1). end(2).")[1]
Fact(name='select', args=(1, 0, 'cat'))
>>> read("scene(0). end(4294967296).", name="q.lp")
Traceback (most recent call last):
...
qlang.errors.ParseError: q.lp:1:11: error: invalid ASP question: an integer beyond clingo's 32 bits
  scene(0). end(4294967296).
            ^
"""

from __future__ import annotations

from collections.abc import Sequence

from qlang.asp import facts
from qlang.asp_names import from_term, to_literal
from qlang.errors import ParseError, Source, error, shown
from qlang.passes.lower import Fact
from qlang.signatures import END, SIGNATURES, Kind

#: A lowered question: its steps' facts, then ``end``.
Query = Sequence[Fact]

QUERY = facts.FactSchema("question", {op: sig.arity + 1 for op, sig in SIGNATURES.items()} | {END: 1},
                            "the operations' steps and end/1")


def read(text: str, *, name: str = "<input>") -> list[Fact]:
    """The facts of a query written as ASP: ground facts of the operations and ``end``, each
    word spelled as `to_literal` spells it; raises a located `ParseError` for anything else."""
    try:
        return [Fact(predicate, tuple(int(a) if facts.INTEGER.fullmatch(a) else
                                      _word(a, position, _kind(predicate, index))
                                      for index, a in enumerate(arguments)))
                for predicate, arguments, position in facts.read(text, QUERY)]
    except facts.Invalid as exc:
        raise error(ParseError, "syntax", f"invalid ASP question: {exc.message}",
                    facts.span(text, exc.position), Source(text, name)) from None


def _kind(predicate: str, index: int) -> Kind | None:
    """The literal kind of argument `index` of a fact (the step number first)."""
    signature = SIGNATURES.get(predicate)
    return signature.kind(index - 1) if signature else None


def _word(term: str, position: int, kind: Kind | None) -> str:
    """The word a term spells, if it is spelled as qlang spells that word (so that the facts
    mean what the text does)."""
    word = from_term(term)
    written = None if "\0" in word else to_literal(word, kind)
    if written != term:
        how = f" (it writes {shown(word)} as {written})" if written else ""
        raise facts.Invalid(f"{term} is not a word as qlang spells words{how}", position)
    return word
