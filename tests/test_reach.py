"""How far perception reaches a photo question's labelled answer, from what was found on it at
any score (`qlang.evaluate.reach`); the probe on a real photo is in tests/test_seek_experiment.py."""

from __future__ import annotations

import pytest

from qlang import parse
from qlang.evaluate import reach as ways
from qlang.evaluate.reach import Probe, Reach, reach
from qlang.seek import Context

TREE, DOG, FLAG = (parse(f"exist(select(scene(), {cls}))") for cls in ("tree", "dog", "flag"))


@pytest.mark.parametrize(("found", "gold", "cut", "reached"), [
    (None, "yes", 0.4, Reach(ways.NO_PROGRAM)),
    (Probe(FLAG, ("flag",), {"flag": 0.0}), "yes", 0.4, Reach(ways.NO_LABEL, ("flag",))),
    (Probe(TREE, (), {"tree": 0.0}), "yes", 0.15, Reach(ways.NEVER_SEEN, ("tree",))),
    (Probe(TREE, (), {"tree": 0.2}), "yes", 0.4, Reach(ways.UNDER_THE_CUT, ("tree",))),
    (Probe(TREE, (), {"tree": 0.2}), "yes", 0.15, Reach(ways.IN_REACH)),
    # trees are found only by colour and texture: not seeing one is no "no"
    (Probe(TREE, (), {"tree": 0.0}), "no", 0.15, Reach(ways.NO_SOUND_NO, ("tree",))),
    # COCO's detector covers dogs, its recall measured: not seeing one is a "no"
    (Probe(DOG, (), {"dog": 0.0}), "no", 0.15, Reach(ways.IN_REACH)),
])
def test_reach_is_the_first_reason_perception_falls_short(found: Probe | None, gold: str, cut: float,
                                                          reached: Reach) -> None:
    assert reach(found, gold, cut, Context()) == reached
