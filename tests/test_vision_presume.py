""""The man" taken to be the person seen (`qlang.vision.presume`): which selects a question
presupposes, the objects it may mean, and an answer only where every reading agrees."""

from __future__ import annotations

import pytest

from qlang.api import parse
from qlang.asp.outcome import Answer
from qlang.asp.scene import encode
from qlang.asp.solve import solve
from qlang.ir import op
from qlang.passes.lower import facts
from qlang.vision.kinds import coarse
from qlang.vision.presume import READINGS, Presumption, presume, presupposed, readings, whichever
from qlang.vision.sight import SIGHTS

SSD = SIGHTS["ssd"]


@pytest.mark.parametrize(("program", "classes"), [
    ("verify_rel(unique(select(scene(), man)), camera, holding, object)", {"man"}),
    ("query(unique(relate_any(select(scene(), woman), wearing, object)), name)", {"woman"}),
    ("query(unique(relate(select(scene(), man), clothing, wearing, object)), name)", {"man"}),
    ("exist(select(scene(), man))", set()),
    ("exist(relate_any(select(scene(), man), holding, object))", set()),
    # "Is there a man holding the camera?": the camera is presupposed, the man is asked about
    ("exist(relate(unique(select(scene(), camera)), man, holding, subject))", {"camera"}),
    # a select that reaches both `exist` and `unique` is asked about somewhere: not presupposed
    ("and(exist(select(scene(), man)), verify_attr(unique(select(scene(), man)), color, red))", set()),
])
def test_a_select_under_unique_is_presupposed_one_under_exist_is_not(program: str, classes: set[str]) -> None:
    assert presupposed(parse(program)) == classes


def test_a_program_of_shared_steps_is_walked_once_a_step() -> None:
    """`and` of a step with itself, 80 deep, unfolds to 2**80 steps: each is read once."""
    root = op("verify_attr", op("unique", op("select", op("scene"), "man")), "color", "red")
    for _ in range(80):
        root = op("and", root, root)
    assert presupposed(root) == {"man"}


def _graph(*people: tuple[str, int]) -> dict[str, object]:
    """A photo's scene of people (id, left edge) and a camera held at the first one's hands."""
    objects: dict[str, object] = {
        oid: {"name": "person", "confidence": 0.9, "x": x, "y": 0, "w": 100, "h": 300, "relations": []}
        for oid, x in people}
    objects["c"] = {"name": "camera", "confidence": 0.8, "x": people[0][1] + 60, "y": 100, "w": 30, "h": 30,
                    "relations": [{"name": "to the right of", "object": people[0][0], "confidence": 0.9}]}
    return {"width": 640, "height": 480, "objects": objects}


def _best(program: str, graph: dict[str, object]) -> str | list[str]:
    """The best answer of each reading where they agree, else why there is none."""
    root = parse(program)
    presumed = presume(SSD, root, graph, lambda cls: coarse(SSD, cls))
    scene = encode(graph, "<test>")

    def solved(extra: str) -> tuple[Answer, ...]:
        return solve(facts(root), f"{scene}\n{extra}").answers

    found = whichever(presumed, solved, lambda answers: answers, 0)
    return found if isinstance(found, str) else [a.value for a in found[:1]]


def test_the_man_is_the_person_seen() -> None:
    root = parse("verify_rel(unique(select(scene(), man)), camera, to_the_right_of, subject)")
    graph = _graph(("p", 0))
    presumed = presume(SSD, root, graph, lambda cls: coarse(SSD, cls))
    assert presumed == [Presumption("man", "person", ("p",))]
    assert str(presumed[0]) == "the man is taken to be the person seen"
    assert readings(presumed) == ["has_attr(p, class, man)."]
    assert _best("verify_rel(unique(select(scene(), man)), camera, to_the_right_of, subject)", graph) \
        == ["yes"]


def test_an_answer_stands_only_where_every_person_seen_gives_it() -> None:
    """With two people, the camera is right of one only: which one "the man" is decides."""
    two = _graph(("p", 0), ("q", 400))
    program = "verify_rel(unique(select(scene(), man)), camera, to_the_right_of, subject)"
    assert _best(program, two) == "the answer depends on which object seen is the man"
    # whichever person is meant, the man is named a person
    assert _best("query(unique(select(scene(), man)), name)", two) == ["person"]
    crowd = _graph(*((f"p{i}", 60 * i) for i in range(READINGS + 1)))
    assert _best(program, crowd) == "7 ways to take the man among the objects seen"
    many = [Presumption(cls, "person", tuple(f"p{i}" for i in range(20))) for cls in ("man", "woman", "boy")]
    assert whichever(many, lambda facts: pytest.fail("solved"), lambda answers: answers, 0) \
        == "8000 ways to take the man or the woman or the boy among the objects seen"


def test_nothing_is_presumed_without_an_object_of_the_class_above_or_of_a_seen_class() -> None:
    cat = {"width": 640, "height": 480, "objects": {"c": {"name": "cat", "x": 0, "y": 0, "w": 9, "h": 9}}}
    root = parse("query(unique(relate_any(select(scene(), man), holding, object)), name)")
    assert presume(SSD, root, cat, lambda cls: coarse(SSD, cls)) == []
    seen = parse("query(unique(select(scene(), person)), color)")
    assert presume(SSD, seen, _graph(("p", 0)), lambda cls: coarse(SSD, cls)) == []
