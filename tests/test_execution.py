"""Execution match: suites of synthetic scenes that tell wrong programs from the gold one."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import qlang
from qlang.evaluate import execution
from qlang.evaluate.execution import Result, Suite, execution_match, run, suite
from qlang.interpret import Membership, Scene
from qlang.ir import Node, op, postorder
from qlang.syntax import gqa
from tests.conftest import questions

ROOT = Path(__file__).resolve().parents[1]


def _golds(step: int) -> list[Node]:
    """Every `step`-th real gold program of the dev set."""
    records = list(questions("testdev_ood_head.json").values())[::step]
    return [gqa.to_ir(gqa.steps_from_json(r["semantic"])) for r in records]


def _digest(built: Suite) -> str:
    return hashlib.sha256(repr((built.scenes, built.expected)).encode()).hexdigest()


def test_a_gold_program_matches_itself_in_every_syntax(data_dir) -> None:
    for gold in _golds(step=17):
        for syntax in ("nested", "code", "flat"):
            assert execution_match(qlang.parse(qlang.SYNTAXES[syntax].print(gold), syntax), gold)


def test_a_different_value_does_not_match() -> None:
    gold = qlang.parse("query(unique(filter(select(scene(), car), color, red)), material)")
    assert not execution_match(qlang.parse(
        "query(unique(filter(select(scene(), car), color, blue)), material)"), gold)
    verify = qlang.parse("verify_attr(unique(select(scene(), car)), color, red)")
    assert not execution_match(qlang.parse("verify_attr(unique(select(scene(), car)), color, blue)"), verify)
    choose = "choose_attr(unique(select(scene(), car)), color, {}, {})"
    gold = qlang.parse(choose.format("red", "blue"))
    assert execution_match(qlang.parse(choose.format("blue", "red")), gold)
    assert not execution_match(qlang.parse(choose.format("red", "green")), gold)


def test_a_missing_filter_or_another_relation_does_not_match() -> None:
    gold = qlang.parse("query(unique(relate(filter(select(scene(), wall), color, white), "
                       "furniture, in_front_of, subject)), name)")
    for wrong in ("query(unique(relate(select(scene(), wall), furniture, in_front_of, subject)), name)",
                  "query(unique(relate(filter(select(scene(), wall), color, white), furniture, "
                  "in_front_of, object)), name)",
                  "query(unique(relate(filter(select(scene(), wall), color, white), furniture, "
                  "behind, subject)), name)"):
        assert not execution_match(qlang.parse(wrong), gold), wrong


def test_mutants_of_real_programs_are_told_apart(data_dir) -> None:
    """Each gold program without one of its filters, or with the other value of a binary
    category, must fail on its suite (these mutants are never equivalent to the gold)."""
    other = {"left": "right", "right": "left", "large": "small", "small": "large",
             "white": "black", "black": "white", "wood": "metal", "metal": "wood"}
    tried = missed = 0
    for gold in _golds(step=3):
        for node in postorder(gold):
            if node.op == "filter":
                mutants = [node.operands[0]]
                swapped = other.get(node.literals[1])
                if swapped:
                    mutants.append(op("filter", node.operands[0], node.literals[0], swapped))
                for mutant in mutants:
                    tried += 1
                    missed += execution_match(_replace(gold, node, mutant), gold)
    print(f"\n{tried - missed} of {tried} mutants told apart")
    assert tried > 100 and missed <= 0.03 * tried


def _replace(root: Node, old: Node, new: Node) -> Node:
    done: dict[Node, Node] = {}
    for node in postorder(root):
        done[node] = new if node == old else Node(
            node.op, tuple(done[a] if isinstance(a, Node) else a for a in node.args))
    return done[root]


def test_yes_and_no_and_failures_all_come_out() -> None:
    built = suite(qlang.parse(
        "verify_attr(unique(filter(select(scene(), car), material, metal)), color, red)"))
    assert len(built.scenes) == execution.SIZE
    assert {("yes",), ("no",)} <= {r.answers for r in built.expected}
    assert any(r.failure == "EmptyQuery" for r in built.expected)  # no metal car: gold has no answer


def test_the_gold_answer_varies_on_most_scenes_of_real_programs(data_dir) -> None:
    """The figures stated in the module docstring, on a third of the dev set."""
    suites = [suite(gold) for gold in _golds(step=3)]
    answered = sum(s.answered for s in suites) / len(suites)
    varied = sum(s.distinct > 1 for s in suites) / len(suites)
    print(f"\ngold answers on {answered:.1%} of the scenes; varies in {varied:.1%} of the suites")
    assert answered >= 0.7 and varied >= 0.95


def test_failures_are_outcomes() -> None:
    graph = {"width": 100, "height": 100, "objects": {
        "1": {"name": "car", "attributes": ["red"], "x": 0, "y": 0, "w": 10, "h": 10},
        "2": {"name": "car", "attributes": ["blue"], "x": 50, "y": 0, "w": 10, "h": 10}}}
    scene, membership = Scene.from_json(graph), Membership(wordnet=False)
    assert run(qlang.parse("query(unique(select(scene(), dog)), color)"), scene, membership) \
        == Result((), "EmptyQuery")
    assert run(qlang.parse("query(unique(select(scene(), car)), color)"), scene, membership) \
        == Result(("blue", "red"))
    assert run(qlang.parse("query(unique(filter(select(scene(), car), color, red)), hposition)"),
               scene, membership) == Result(("left",))


def test_the_suite_is_the_same_every_time_and_in_another_process_without_wordnet(data_dir) -> None:
    """Another hash seed, and WordNet missing: anything that touched it would raise."""
    semantic = list(questions("testdev_ood_head.json").values())[300]["semantic"]
    first = _digest(suite(gqa.to_ir(gqa.steps_from_json(semantic))))
    execution._suite.cache_clear()
    assert _digest(suite(gqa.to_ir(gqa.steps_from_json(semantic)))) == first
    script = ("import json, sys; from qlang.syntax import gqa; from qlang.evaluate.execution import suite; "
              "from tests.test_execution import _digest; "
              "print(_digest(suite(gqa.to_ir(gqa.steps_from_json(json.loads(sys.argv[1]))))))")
    env = os.environ | {"PYTHONHASHSEED": "12345", "QLANG_NLTK_DATA": "/nonexistent"}
    other = subprocess.run([sys.executable, "-c", script, json.dumps(semantic)], capture_output=True,
                           text=True, env=env, cwd=ROOT, check=True)
    assert other.stdout.strip() == first
