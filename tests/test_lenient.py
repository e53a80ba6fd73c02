"""The thesis's lowering of nested and code-like programs: a step per occurrence, so two equal
`unique` steps choose apart (qlang merges them into one choice); flat programs as written."""

from __future__ import annotations

import json

import pytest

import qlang
from qlang.asp.options import SolveOptions
from qlang.asp.query import Query
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import CheckError, Source
from qlang.evaluate import lenient
from qlang.passes.lower import MAX_UNFOLDED, facts

CAT = "unique(select(scene(), cat))"
SAME = f"two_same({CAT}, {CAT}, color)"
#: Two cats, one white, one black.
SCENE = {"width": 90, "height": 90, "objects": {
    str(i): {"name": "cat", "x": 30 * i, "y": 0, "w": 10, "h": 10, "attributes": [colour],
             "relations": []} for i, colour in enumerate(("white", "black"))}}


def answers(question: Query) -> set[str]:
    scene = SceneLibrary(Source(json.dumps(SCENE))).facts()
    return {a.value for a in solve(question, scene, SolveOptions(top_k=10)).answers}


def test_two_equal_unique_steps_choose_apart_only_when_read_leniently() -> None:
    assert [f.name for f in facts(qlang.parse(SAME))].count("unique") == 1
    with pytest.raises(CheckError, match="repeats argument 1"):  # one cat compared with itself
        qlang.compile(SAME)
    assert answers(lenient.lower(SAME, "nested")) == {"yes", "no"}  # two choices, as the thesis
    shared = f"c = {CAT}\ntwo_same(c, c, color)"  # the thesis substituted variables too
    assert lenient.lower(shared, "code") == lenient.lower(SAME, "nested")


def test_flat_programs_are_solved_as_written() -> None:
    """A shared step stays one choice; two equal steps written apart stay two."""
    shared = "scene(0). select(1, 0, cat). unique(2, 1). two_same(3, 2, 2, color). end(3)."
    assert [f.name for f in lenient.lower(shared, "flat")].count("unique") == 1
    assert answers(lenient.lower(shared, "flat")) == {"yes"}
    apart = "select(1, 0, cat). unique(2, 1). unique(5, 1). two_same(7, 2, 5, color). end(7)."
    written = lenient.lower(apart, "flat")  # step 0 undefined: scene, as the thesis read it
    assert " ".join(map(str, written)) == ("scene(0). select(1, 0, cat). unique(2, 1). unique(3, 1). "
                                           "two_same(4, 2, 3, color). end(4).")  # numbered densely
    assert answers(written) == {"yes", "no"}
    with pytest.raises(CheckError, match="repeats argument 1"):  # qlang merges them, then refuses
        qlang.compile("scene(0). " + apart)


def test_unfolding_is_bounded() -> None:
    lines = ["v0 = exist(select(scene(), cat))"]  # each level uses the one below twice
    lines += [f"v{i} = and(v{i - 1}, v{i - 1})" for i in range(1, 14)]
    root = qlang.parse("\n".join([*lines, "and(v13, v13)"]), "code")
    assert root.size > MAX_UNFOLDED and len(facts(root)) < 20
    with pytest.raises(qlang.QlangError, match="at most 10,000"):
        facts(root, unfold=True)
