"""qlang's own knowledge files: one triple a line, ``head<TAB>relation<TAB>tail[<TAB>weight]``.

Words as in programs (spaces allowed, normalised as `normal_word` says), the relation by its
snake-case name (`qlang.knowledge.relations`), the weight in (0, 1], 1 when left out; blank
lines and lines starting with ``#`` say nothing.  The first bad line is a located error.

>>> from qlang.knowledge.lines import Line
>>> list(read([Line("# a comment", 1, "kb.tsv"), Line("Cup\\tused_for\\tdrinking\\t0.9", 2, "kb.tsv")]))
[Triple(head='cup', relation='used_for', tail='drinking', weight=0.9)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from qlang.errors import shown
from qlang.knowledge.lines import Line
from qlang.knowledge.relations import BY_CONCEPTNET, BY_NAME
from qlang.knowledge.triples import Triple, normal_weight, normal_word
from qlang.ontology import suggestions

_FORM = "head<TAB>relation<TAB>tail[<TAB>weight]"
T = TypeVar("T")


def read(lines: Iterable[Line]) -> Iterator[Triple]:
    """The triples of a TSV knowledge file's lines; raises `KnowledgeError` at a bad line."""
    for line in lines:
        if not line.text.strip() or line.text.lstrip().startswith("#"):
            continue
        fields = line.text.split("\t")
        if not 3 <= len(fields) <= 4:
            raise line.error(f"expected {_FORM}: this line has {len(fields)} field(s)", 1, len(line.text))
        weight = _checked(line, fields, 3, "the weight", normal_weight) if len(fields) == 4 else 1.0
        yield Triple(_checked(line, fields, 0, "the head", normal_word), _relation(line, fields),
                     _checked(line, fields, 2, "the tail", normal_word), weight)


def _checked(line: Line, fields: list[str], number: int, what: str, normal: Callable[[str], T]) -> T:
    try:
        return normal(fields[number])
    except ValueError as exc:
        raise line.field_error(fields, number, f"{what}: {exc}") from None


def _relation(line: Line, fields: list[str]) -> str:
    name = fields[1].strip()
    if name in BY_NAME:
        return name
    known = BY_CONCEPTNET.get(name.removeprefix("/r/"))
    near = [known.name] if known is not None else suggestions(name, frozenset(BY_NAME))
    hint = f"did you mean {' or '.join(near)}?" if near else "ConceptNet's, in snake case: used_for"
    raise line.field_error(fields, 1, f"{shown(name)} is not a knowledge relation", hint=hint)
