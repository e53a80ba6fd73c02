"""The seed thesis's lenient reading of language-model output, before the strict parsers.

The thesis's converter accepted what qlang's readers refuse, and its answer accuracy counts
such programs: a flat step that refers to a step never defined reads it as ``scene`` (all
objects), and a code-like variable may have any name, ``Truck = ...`` included (qlang's names
start in lower case, as ASP constants do).  This module rewrites those two cases into programs
the strict readers accept; everything else is read as strictly as ever.  And the thesis wrote a
nested program out as flat steps one per occurrence (a code-like one through nested, its
variables substituted), so `lower` unfolds those: two equal ``unique`` steps choose apart, where
qlang's lowering merges them into one choice.  A flat program is solved as written, its own
steps in their order (two equal steps written apart stay apart), numbered 0, 1, 2, ... so that
clingo, whose integers are 32 bits wide, takes each as written (it would read 4294967297 as 1);
GQA programs keep their shared steps, as the thesis ran them.

>>> print(read("Truck = unique(select(scene(), truck))\\nquery(Truck, color)", "code"))
query(unique(select(scene(), truck)), color)
>>> print(read("select(1, 0, cat). exist(2, 1). end(2).", "flat"))
exist(select(scene(), cat))
"""

from __future__ import annotations

import re

from qlang import api, syntax
from qlang.errors import CheckError, Source
from qlang.integers import is_digits
from qlang.ir import Node
from qlang.passes import typecheck
from qlang.passes.lower import Fact, facts
from qlang.signatures import END, SIGNATURES
from qlang.syntax import SYNTAXES, flat
from qlang.syntax.descent import CallShape

_ASSIGNED = re.compile(r"^\s*([A-Za-z_]\w*)\s*=", re.M)
_FACT = re.compile(r"\b(\w+)\(([^()]*)\)")


def read(text: str, syntax: str) -> Node:
    """The program in `syntax`, read leniently where the thesis was (module docstring): any
    variable name (code-like), an undefined step as the scene (flat)."""
    shape = SYNTAXES[syntax].calls
    if shape is not None and shape.assign is not None:
        text = _lower_case_variables(text)
    elif shape is not None and shape.numbered:
        text = _undefined_steps_as_scene(text)
    return api.parse(text, syntax)


def lower(text: str, syntax: str) -> list[Fact]:
    """The program read leniently, checked, as the facts the thesis would have solved.

    >>> cat = "unique(select(scene(), cat))"
    >>> print(*lower(f"two_same({cat}, {cat}, color)", "nested"))
    scene(0). select(1, 0, cat). unique(2, 1). scene(3). select(4, 3, cat). unique(5, 4).
    two_same(6, 2, 5, color). end(6).
    """
    root = read(text, syntax)
    _check(root)
    shape = SYNTAXES[syntax].calls
    if shape is not None and shape.numbered:  # as written: two equal steps stay two choices
        return _dense(flat.as_written(Source(_undefined_steps_as_scene(text))))
    return facts(root, unfold=_unfolded(shape))


def _check(root: Node) -> None:
    """The program checked as the thesis checked it: its types, but not whether a symmetric
    operation's operands differ (``two_same(x, x, color)`` is well typed, and the thesis read
    it as two choices)."""
    errors = [d for d in typecheck.check(root) if not d.warning and d.kind != typecheck.REPEATED]
    if errors:
        raise CheckError(errors, None)


def _unfolded(shape: CallShape | None) -> bool:
    """Whether the thesis wrote the syntax's programs out a step per occurrence: those written
    as expressions (nested, code-like; module docstring), not as steps."""
    return shape is not None and not shape.numbered


def _dense(written: list[Fact]) -> list[Fact]:
    """The facts of a flat program with its steps numbered 0, 1, 2, ... in the order of their
    numbers (a fact's integers are its step numbers: words are strings).

    >>> print(*_dense(flat.as_written(Source("scene(7). select(4294967297, 7, cat). end(4294967297)."))))
    scene(0). select(1, 0, cat). end(1).
    """
    dense = {step: n for n, step in enumerate(sorted({f.args[0] for f in written if f.name != END}))}
    return [Fact(f.name, tuple(dense[a] if isinstance(a, int) else a for a in f.args)) for f in written]


def detect(text: str) -> str:
    """The syntax `text` is most likely in, any variable name making it code-like."""
    return syntax.detect(_lower_case_variables(text))


def _lower_case_variables(text: str) -> str:
    """Every assigned name that is no valid qlang name becomes one (``Truck`` -> ``v_truck``)."""
    for name in dict.fromkeys(_ASSIGNED.findall(text)):
        if not name[0].islower():
            text = re.sub(rf"\b{re.escape(name)}\b", f"v_{name.lower().lstrip('_')}", text)
    return text


def _undefined_steps_as_scene(text: str) -> str:
    """A `scene` step added for each operand step number that no fact defines."""
    facts = [(name, [a.strip() for a in args.split(",")]) for name, args in _FACT.findall(text)]
    defined = {args[0] for name, args in facts if name in SIGNATURES and is_digits(args[0])}
    used = {ref for name, args in facts if name in SIGNATURES
            for ref in args[1:1 + len(SIGNATURES[name].operands)] if is_digits(ref)}
    return "".join(f"scene({step}). " for step in sorted(used - defined, key=_numeric)) + text


def _numeric(digits: str) -> tuple[int, str]:
    """A digit string's place in numeric order, however long (int() refuses 4,300 digits)."""
    significant = digits.lstrip("0")
    return len(significant), significant
