"""The Python API: what `qlangc` does, as plain functions.

>>> convert("query(unique(select(scene(), dish)), name)", to="flat").splitlines()[-1]
'end(3).'
>>> parse("exist(select(scene(), cat))") == parse("scene(0). select(1, 0, cat). exist(2, 1). end(2).")
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qlang.errors import CheckError, Diagnostic, Source
from qlang.ir import Node
from qlang.ontology import Ontology
from qlang.passes import typecheck as _check
from qlang.passes.canonical import canonicalize
from qlang.passes.lower import facts
from qlang.syntax import SYNTAXES, detect

if TYPE_CHECKING:
    from qlang.knowledge.graph import Knowledge


def parse(text: str, syntax: str | None = None, *, name: str = "<input>") -> Node:
    """The IR of a program in any syntax (guessed when not given); raises `ParseError`."""
    return parse_source(Source(text, name), syntax)


def parse_source(source: Source, syntax: str | None = None) -> Node:
    """`parse` of a source at hand (a batch line's, which its errors render against)."""
    return SYNTAXES[syntax or detect(source.text)].parse(source)


def check(root: Node, *, open_vocabulary: bool = False, source: Source | None = None,
          ontology: Ontology | None = None, knowledge: Knowledge | None = None) -> list[Diagnostic]:
    """Raise `CheckError` with every error of a program; return its warnings.  `ontology`: the
    words to check against (default: GQA's; a rules file's vocabulary extends it); `knowledge`:
    the knowledge in use, whose words the knowledge operations also take (default: the bundled
    base, opened only for such a word)."""
    diagnostics = _check.check(root, open_vocabulary=open_vocabulary, ontology=ontology,
                               knowledge=knowledge)
    errors = [d for d in diagnostics if not d.warning]
    if errors:
        raise CheckError(errors, source)
    return diagnostics


def compile(text: str, syntax: str | None = None, *, name: str = "<input>",
            open_vocabulary: bool = False, ontology: Ontology | None = None,
            knowledge: Knowledge | None = None) -> Node:
    """Parse and check (against `ontology` and `knowledge`, as `check`): the IR of a
    well-formed, well-typed program."""
    root = parse(text, syntax, name=name)
    check(root, open_vocabulary=open_vocabulary, source=Source(text, name), ontology=ontology,
          knowledge=knowledge)
    return canonicalize(root)


def convert(text: str, to: str, *, from_: str | None = None, name: str = "<input>") -> str:
    """A program in another syntax (parse with one, print with the other)."""
    return SYNTAXES[to].print(canonicalize(parse(text, from_, name=name)))


def format(text: str, syntax: str | None = None, *, name: str = "<input>") -> str:
    """A program pretty-printed in its own syntax; idempotent."""
    syntax = syntax or detect(text)
    return convert(text, syntax, from_=syntax, name=name)


def lower(root: Node, *, open_vocabulary: bool = False) -> str:
    """The ASP facts of a checked program, ready to be solved with the theory."""
    check(root, open_vocabulary=open_vocabulary)
    return "\n".join(str(fact) for fact in facts(root))
