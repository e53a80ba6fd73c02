"""`solve --bindings`: every object each step of the answer's model bound, as
text and JSON and in the batch's lines, held step by step to the scene's own facts on programs
drawn from the real emma scenes' words; over a weighted scene, the best model's."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qlang.asp import facts as asp_facts
from qlang.asp.scene import encode
from qlang.asp_names import from_term, to_term
from tests.conftest import WEIGHTED, graphs, run, write

Facts = tuple[set[tuple[str, str, str]], set[tuple[str, str, str]]]


def scene_facts(graph: dict[str, Any], image: str) -> Facts:
    """The scene's ``has_attr`` and ``has_rel`` facts as the encoder states them, as words."""
    found: dict[str, set[tuple[str, str, str]]] = {"has_attr": set(), "has_rel": set()}
    for name, terms, _ in asp_facts.read(encode(graph, image), asp_facts.SCENE):
        if name in found:
            first, second, third = (from_term(t) for t in terms)
            found[name].add((first, second, third))
    return found["has_attr"], found["has_rel"]


@st.composite
def programs(draw: st.DrawFn, facts: Facts) -> str:
    """A chain of 1-3 steps over the scene's own words (so that they keep something), ending in
    ``exist``: select, filter, relate, relate_any, and unique before a relation."""
    attrs, rels = facts
    classes = sorted({v for _, c, v in attrs if c == "class"})
    values = sorted({(c, v) for _, c, v in attrs if c not in ("class", "name")})
    relations = sorted({r for _, r, _ in rels})
    program = "scene()"
    for _ in range(draw(st.integers(1, 3))):
        match draw(st.sampled_from(["select", "filter", "relate", "relate_any", "unique"])):
            case "select":
                program = f"select({program}, {to_term(draw(st.sampled_from(classes)))})"
            case "filter":
                category, value = draw(st.sampled_from(values))
                program = f"filter({program}, {to_term(category)}, {to_term(value)})"
            case "relate":
                cls, rel = draw(st.sampled_from(classes)), draw(st.sampled_from(relations))
                way = draw(st.sampled_from(["subject", "object"]))
                program = f"relate({program}, {to_term(cls)}, {to_term(rel)}, {way})"
            case "relate_any":
                rel, way = draw(st.sampled_from(relations)), draw(st.sampled_from(["subject", "object"]))
                program = f"relate_any({program}, {to_term(rel)}, {way})"
            case _:
                program = f"unique({program})"
    return f"exist({program})"


def check(result: dict[str, Any], facts: Facts, graph: dict[str, Any]) -> None:
    """Each step's objects are what its operation keeps of its operand's, by the scene's facts,
    and the answer (``exist``'s) says whether the last kept any."""
    attrs, rels = facts
    kept: dict[int, set[str]] = {}
    for step in result["bindings"]:
        objects = {o["id"] for o in step["objects"]}
        assert all(o["name"] == graph["objects"][o["id"]]["name"] for o in step["objects"])
        given = kept[step["operands"][0]] if step["operands"] else set()
        words = step["literals"]
        match step["op"]:
            case "scene":
                assert objects == set(graph["objects"])
            case "select":
                assert objects == {o for o in given if (o, "class", words[0]) in attrs}
            case "filter":
                assert objects == {o for o in given if (o, words[0], words[1]) in attrs}
            case "relate" | "relate_any":
                rel, way = words[-2], words[-1]
                related = {s for s, r, t in rels if r == rel and t in given} if way == "subject" else \
                    {t for s, r, t in rels if r == rel and s in given}
                assert objects == {o for o in related if step["op"] == "relate_any"
                                   or (o, "class", words[0]) in attrs}
            case "unique":
                assert len(objects) == 1 and objects <= given
        kept[step["step"]] = objects
    assert [a["answer"] for a in result["answers"]] == ["yes" if objects else "no"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_bindings_are_what_each_step_keeps_of_the_scene(data: st.DataObject, tmp_path: Path) -> None:
    """Many programs over one real scene, in one batch; each alone as text and as JSON too."""
    image = data.draw(st.sampled_from(sorted(graphs("emma"))))
    graph = graphs("emma")[image]
    facts = scene_facts(graph, image)
    drawn = data.draw(st.lists(programs(facts), min_size=1, max_size=8))
    scene = write(tmp_path / "scene.json", json.dumps(graph))
    lines = write(tmp_path / "q.jsonl", "".join(json.dumps({"id": i, "program": p}) + "\n"
                                                for i, p in enumerate(drawn)))
    code, out, _ = run("solve", "--jsonl", "--program", lines, "--scene", scene, "--bindings")
    assert code == 0
    for program, line in zip(drawn, out.splitlines(), strict=True):
        result = json.loads(line)
        if not result["answers"]:  # unique of nothing: no model, so nothing bound
            assert "bindings" not in result
            continue
        check(result, facts, graph)
        alone = write(tmp_path / "q.txt", program)  # where unique meets a tie, it may pick another
        code, out, _ = run("solve", "--program", alone, "--scene", scene, "--bindings", "--json")
        single = json.loads(out)
        assert code == 0
        check(single, facts, graph)
        code, text, _ = run("solve", "--program", alone, "--scene", scene, "--bindings")
        assert code == 0 and text.splitlines()[:2] == [single["answers"][0]["answer"], "bindings:"]
        assert shown(text) == [(b["step"], [(o["id"], o["name"]) for o in b["objects"]])
                               for b in single["bindings"]]


def shown(text: str) -> list[tuple[int, list[tuple[str, str]]]]:
    """The text's bindings: each step's number and objects, ``#1 select(#0, man) -> 1 (man), ...``."""
    steps = []
    for line in text.splitlines()[2:]:
        match = re.fullmatch(r"  #(\d+) .*? -> (.*)", line)
        assert match is not None, line
        number, objects = match.groups()
        found = [] if objects == "(none)" else re.findall(r"(\S+) \(([^)]*)\)", objects)
        steps.append((int(number), found))
    return steps


def test_over_a_weighted_scene_the_bindings_are_the_best_models(tmp_path: Path) -> None:
    """Two cups, one more likely than the other: every model picks one; the bindings are those
    of the best model, whose cup is the one whose material is the best answer."""
    scene = write(tmp_path / "weighted.json", json.dumps(WEIGHTED))
    program = write(tmp_path / "q.txt", "query(unique(select(scene(), cup)), material)")
    code, out, _ = run("solve", "--program", program, "--scene", scene, "--top-k", "2", "--bindings",
                       "--json")
    assert code == 0
    result = json.loads(out)
    assert len(result["answers"]) == 2 and result["answers"][0]["cost"] < result["answers"][1]["cost"]
    (picked,) = result["bindings"][-1]["objects"]
    assert result["bindings"][-1]["op"] == "unique"
    assert result["answers"][0]["answer"] in WEIGHTED["objects"][picked["id"]]["attributes"]
    best = max((o for o in WEIGHTED["objects"] if WEIGHTED["objects"][o]["name"] == "cup"),
               key=lambda o: WEIGHTED["objects"][o].get("confidence", 1))
    assert picked == {"id": best, "name": "cup"}
