"""Lowering to ASP: clingo reads exactly the facts we meant, whatever the words are."""

from __future__ import annotations

import clingo
from hypothesis import given, settings
from hypothesis import strategies as st

import qlang
from qlang.asp_names import from_term
from qlang.ir import Lit, Node, postorder
from qlang.passes.lower import facts
from qlang.signatures import CLOSED_KINDS, END, SIGNATURES
from tests.strategies import programs


def _solve_facts(text: str) -> list[clingo.Symbol]:
    control = clingo.Control(["--warn=none"])
    control.add("base", [], text)
    control.ground([("base", [])])
    atoms: list[clingo.Symbol] = []
    control.solve(on_model=lambda model: atoms.extend(model.symbols(atoms=True)))
    return atoms


@st.composite
def hostile_programs(draw: st.DrawFn) -> Node:
    """Well-typed programs whose open-vocabulary words are replaced by arbitrary text."""
    root = draw(programs(max_depth=4))
    hostile = st.one_of(st.text(max_size=12), st.just('x). p :- not q. %'), st.just('a"b\\'))
    replaced: dict[Node, Node] = {}
    for node in postorder(root):
        kinds = (None,) * len(SIGNATURES[node.op].operands) + SIGNATURES[node.op].literals
        args = tuple(replaced[a] if isinstance(a, Node)
                     else a if kinds[i] in CLOSED_KINDS else Lit(draw(hostile))
                     for i, a in enumerate(node.args))
        replaced[node] = Node(node.op, args)
    return replaced[root]


@settings(max_examples=300, deadline=None)
@given(hostile_programs())
def test_no_word_can_inject_asp(root: Node) -> None:
    try:
        qlang.lower(root, open_vocabulary=True)
    except qlang.CheckError as exc:
        kinds = {d.kind for d in exc.diagnostics}
        # an empty or unprintable word; a repeated alternative or operand
        assert kinds <= {"literal", "choice", "operands"}
        assert ("literal" in kinds) == any(not w.strip() or not w.isprintable()
                                           for n in postorder(root) for w in n.literals)
        return
    expected = facts(root)
    atoms = _solve_facts("\n".join(str(f) for f in expected))
    allowed = {(name, sig.arity + 1) for name, sig in SIGNATURES.items()} | {(END, 1)}
    assert {(a.name, len(a.arguments)) for a in atoms} <= allowed
    assert len(atoms) == len(expected)
    decoded = {
        (a.name, tuple(t.number if t.type is clingo.SymbolType.Number else from_term(str(t))
                       for t in a.arguments))
        for a in atoms
    }
    assert decoded == {(f.name, f.args) for f in expected}


def test_lower_refuses_an_ill_typed_program() -> None:
    import pytest

    with pytest.raises(qlang.CheckError):
        qlang.lower(qlang.parse("query(select(scene(), dish), name)"))
    assert qlang.lower(qlang.parse("exist(select(scene(), dish))")).endswith("end(2).")
