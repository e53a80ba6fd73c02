"""Many questions over one scene (`GroundedScene`, clingo multi-shot) answer as each alone does.

Every real question is asked over every kind of real scene, one Control per scene, and compared
with `solve` on its own: the k best models with their ranks and costs, and the k best distinct
answers; on uncertain scenes too, where costs and ties decide the ranking.  The same means: the
same ranks and costs in the same order, and the same answers, except which of tied models (or
tied distinct answers) come first, which clingo leaves to the order it grounded atoms in: where
k cuts a tie, each path shows some of the tied models, always models of that tie.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import qlang
from qlang.asp import multishot, theory
from qlang.asp.explain import trace
from qlang.asp.multishot import GroundedScene
from qlang.asp.options import Limits, SolveOptions
from qlang.asp.outcome import Solution, SolveError
from qlang.asp.query import Query, read
from qlang.asp.scene import SceneLibrary
from qlang.asp.session import ground
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.passes.lower import Fact, facts
from tests.conftest import ASP, SCENES, TIE, WEIGHTED, emma_questions, encoded_question, yesno_examples
from tests.strategies import cases


def real_questions() -> list[list[Fact]]:
    """The lowered programs of the 64 real examples (bench/solve.py's)."""
    programs = [facts(qlang.compile(p, "flat")) for _, p, _ in yesno_examples()]
    programs += [facts(qlang.compile(encoded_question(path)[1], "flat"))
                 for path in sorted((ASP / "encoded_questions").glob("*.lp"))]
    programs += [facts(qlang.compile(q["semanticStr"], "gqa-str")) for q in emma_questions()]
    return programs


def real_scenes() -> dict[str, str]:
    """Scenes of each kind: the emma GQA graphs, some yes/no examples', two GS-VQA encodings,
    and two uncertain ones (weights, a tie)."""
    library = SceneLibrary(Source((SCENES / "emma_sceneGraphs.json").read_text()))
    images = sorted({q["imageId"] for q in emma_questions()})
    scenes = {f"emma {image}": library.facts(image) for image in images}
    scenes |= {f"yesno {n}": yesno_examples()[n][2] for n in (0, 7, 21, 42)}
    paths = sorted((ASP / "encoded_questions").glob("*.lp"))
    scenes |= {path.stem: encoded_question(path)[0] for path in paths[:2]}
    for name, graph in (("weighted", WEIGHTED), ("tie", TIE)):
        scenes[name] = SceneLibrary(Source(json.dumps(graph))).facts()
    return scenes


def outcome(run: Any) -> Solution | str:
    try:
        result: Solution = run()
        return result
    except SolveError as exc:
        return str(exc.diagnostics[0].to_json())


def same(scene: str, questions: Sequence[Query], options: SolveOptions) -> None:
    grouped = GroundedScene(scene, options)
    for question in questions:
        alone = outcome(lambda: solve(question, scene, options))  # noqa: B023
        agree(scene, question, options, outcome(lambda: grouped.solve(question)), alone)  # noqa: B023


def same_together(scene: str, questions: Sequence[Query], options: SolveOptions) -> None:
    """`GroundedScene.solve_all` gives each question what `solve` gives it alone."""
    solved = GroundedScene(scene, options).solve_all(questions)
    for question, together in zip(questions, solved, strict=True):
        alone = outcome(lambda: solve(question, scene, options))  # noqa: B023
        agree(scene, question, options, outcome(lambda: _raised(together)), alone)  # noqa: B023


def _raised(result: Solution | Exception) -> Solution:
    if isinstance(result, Exception):
        raise result
    return result


def agree(scene: str, question: Query, options: SolveOptions, together: Solution | str,
          alone: Solution | str) -> None:
    """The same outcome, but which of tied models (or answers) show where k cuts a tie."""
    if together == alone or not isinstance(alone, Solution) or not isinstance(together, Solution):
        assert together == alone, question
        return
    every = solve(question, scene, replace(options, top_k=100))  # the ties in full
    assert [(a.rank, a.cost) for a in together.answers] == [(a.rank, a.cost) for a in alone.answers]
    assert together.complete == alone.complete
    for cost in {a.cost for a in alone.answers}:  # a tie: the answers of one cost
        shown = Counter(a.value for a in together.answers if a.cost == cost)
        assert shown <= Counter(a.value for a in every.answers if a.cost == cost), question


@pytest.mark.parametrize("name", list(real_scenes()))
@pytest.mark.parametrize("options", [SolveOptions(top_k=1), SolveOptions(top_k=3),
                                     SolveOptions(top_k=3, distinct=True)],
                         ids=["top-1", "top-3 models", "top-3 distinct"])
def test_every_real_question_over_a_shared_scene_answers_as_alone(name: str, options: SolveOptions) -> None:
    same(real_scenes()[name], real_questions(), options)


@pytest.mark.parametrize("name", list(real_scenes()))
@pytest.mark.parametrize("atoms", [False, True], ids=["answers", "atoms"])
def test_every_real_question_solved_together_answers_as_alone(name: str, atoms: bool) -> None:
    same_together(real_scenes()[name], real_questions(), SolveOptions(atoms=atoms))


def test_the_benchmarks_questions_solved_together_answer_exactly_as_alone() -> None:
    """bench/solve.py's questions over their own scenes, each several times in one search
    (the emma questions of one image together), with the answers, costs and bindings alone
    gives, tie or no tie; the emma questions' known answers too."""
    library = SceneLibrary(Source((SCENES / "emma_sceneGraphs.json").read_text()))
    asked: list[tuple[str, list[Query]]] = [(scene, [facts(qlang.compile(program, "flat"))] * 3)
                                            for _, program, scene in yesno_examples()]
    for path in sorted((ASP / "encoded_questions").glob("*.lp")):
        scene, program, _ = encoded_question(path)
        asked.append((scene, [facts(qlang.compile(program, "flat"))] * 3))
    for image in sorted({q["imageId"] for q in emma_questions()}):
        emma = [q for q in emma_questions() if q["imageId"] == image] * 5
        programs = [facts(qlang.compile(q["semanticStr"], "gqa-str")) for q in emma]
        asked.append((library.facts(image), programs))
        solved = GroundedScene(library.facts(image)).solve_all(asked[-1][1])
        assert [[a.value for a in _raised(s).answers] for s in solved] == [[q["answer"]] for q in emma]
    options = SolveOptions(atoms=True)
    for scene, questions in asked:
        solved = GroundedScene(scene, options).solve_all(questions)
        for question, together in zip(questions, solved, strict=True):
            alone = solve(question, scene, options)
            assert _raised(together).answers == alone.answers, question
            if alone.answers:
                assert (trace(_raised(together).answers[0], _raised(together).atoms).bindings()
                        == trace(alone.answers[0], alone.atoms).bindings()), question


def test_questions_solved_together_fail_alone_and_leave_the_others_answered() -> None:
    """A question without an answer, one the guard refuses, one of no operation: each gets what
    it gets alone, and the others their answers, from the same search."""
    scene = "\n".join(f"object({i}). has_attr({i}, class, dog). has_obj_weight({i}, {i})."
                      for i in range(1, 40))
    dogs = read("scene(0). select(1, 0, dog). unique(2, 1). exist(3, 2). end(3).")
    cats = read("scene(0). select(1, 0, cat). unique(2, 1). exist(3, 2). end(3).")  # no answer
    colours = read("scene(0). all_different(1, 0, color). end(1).")  # refused by the guard below
    odd = [*dogs, Fact("ans", ("banana",))]  # a fact of no operation
    questions = [dogs, cats, dogs, colours, cats, odd, dogs, cats]
    options = SolveOptions(limits=Limits(max_ground=1000))
    same_together(scene, questions, options)
    solved = GroundedScene(scene, options).solve_all(questions)
    assert [a.cost for a in _raised(solved[0]).answers] == [(1,)]  # the lightest dog
    assert isinstance(solved[3], SolveError) and _raised(solved[1]).answers == ()


def test_a_search_of_several_that_fails_answers_each_question_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object) -> list[Solution]:
        raise RuntimeError("clingo refused the search")

    monkeypatch.setattr(multishot._Together, "solutions", refused)
    scene = real_scenes()["emma 2353884"]
    questions = real_questions()[-4:]
    assert GroundedScene(scene).solve_all(questions) == [solve(question, scene) for question in questions]


def test_questions_over_a_scene_of_choices_are_solved_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two questions could choose the uncertain colour differently: no search holds both."""
    def searched(*_: object) -> list[Solution]:
        raise AssertionError("searched together")

    monkeypatch.setattr(multishot._Together, "solutions", searched)
    scene = "object(1). has_attr(1, class, dog). { has_attr(1, color, red) }."
    red = read("scene(0). select(1, 0, dog). filter(2, 1, color, red). exist(3, 2). end(3).")
    same_together(scene, [red, red], SolveOptions())


def test_questions_solved_together_past_their_deadline_each_time_out_alone() -> None:
    question = read("scene(0). select(1, 0, dog). exist(2, 1). end(2).")
    rushed = SolveOptions(limits=Limits(timeout=1e-9))
    for result in GroundedScene("object(1). has_attr(1, class, dog).", rushed).solve_all([question] * 4):
        assert isinstance(result, SolveError) and "timeout" in str(result.diagnostics[0].message)


def test_the_emma_questions_repeated_answer_as_alone_across_a_fresh_control() -> None:
    library = SceneLibrary(Source((SCENES / "emma_sceneGraphs.json").read_text()))
    for q in emma_questions():
        scene = GroundedScene(library.facts(q["imageId"]))
        scene.RENEW = 3
        question = facts(qlang.compile(q["semanticStr"], "gqa-str"))
        for _ in range(7):
            assert [a.value for a in scene.solve(question).answers] == [q["answer"]]


def test_a_question_leaves_nothing_behind_for_the_next() -> None:
    scene = GroundedScene("object(1). has_attr(1, class, dog). has_obj_weight(1, 0).")
    unique = read("scene(0). select(1, 0, dog). unique(2, 1). exist(3, 2). end(3).")
    impossible = read("scene(0). select(1, 0, cat). unique(2, 1). exist(3, 2). end(3).")
    assert scene.solve(impossible).answers == ()  # its `unique` must not hold for later questions
    assert [a.value for a in scene.solve(unique).answers] == ["yes"]
    scene.options = SolveOptions(top_k=3)  # more answers, from the same grounding
    assert scene.solve(unique).answers == solve(unique, scene.scene, scene.options).answers


def test_a_search_past_its_deadline_is_a_timeout_however_fast_it_ends() -> None:
    """The deadline watcher may interrupt just after a fast search has ended, and the interrupt
    then waits on the Control for its next search: that search counts as timed out too."""
    question = read("scene(0). select(1, 0, dog). exist(2, 1). end(2).")
    for _ in range(100):  # the watcher wins the race most times; it must not matter when not
        session = ground(question, "object(1). has_attr(1, class, dog).")
        session.deadline = time.monotonic() - 1  # the watcher fires at once: in the search or after
        with pytest.raises(SolveError, match="timeout"):
            session.best_models(1)


def test_a_fact_of_no_operation_is_solved_alone_with_the_same_outcome() -> None:
    """Lowering never makes one; facts built by hand may."""
    scene = GroundedScene("object(1). has_attr(1, class, dog).", SolveOptions(top_k=3))
    dogs = read("scene(0). select(1, 0, dog). exist(2, 1). end(2).")
    for question in ([*dogs, Fact("ans", ("banana",))], [*dogs[:2], Fact("exist", (2,)), dogs[-1]],
                     [*dogs[:2], Fact("exist", (2, 1, 0)), dogs[-1]]):
        assert outcome(lambda: scene.solve(question)) == outcome(  # noqa: B023
            lambda: solve(question, scene.scene, scene.options))  # noqa: B023


def test_a_scene_clingo_rejects_gives_each_question_the_error_it_gives_alone() -> None:
    question = read("scene(0). exist(1, 0). end(1).")
    broken = GroundedScene("object(1). has_attr(1, class")
    for _ in range(2):
        assert outcome(lambda: broken.solve(question)) == outcome(lambda: solve(question, broken.scene))


def test_the_grounding_guard_holds_for_every_question() -> None:
    scene = "\n".join(f"object({i}). has_attr({i}, class, dog)." for i in range(200))
    question = read("scene(0). all_different(1, 0, color). end(1).")
    guarded = SolveOptions(limits=Limits(max_ground=1000))
    shared = GroundedScene(scene, guarded)
    assert outcome(lambda: shared.solve(question)) == outcome(lambda: solve(question, scene, guarded))


def test_the_thesis_semantics_is_solved_question_by_question() -> None:
    assert theory.shared("thesis") is None
    scene = real_scenes()["yesno 0"]
    thesis = SolveOptions(top_k=3, semantics="thesis")
    same_thesis = GroundedScene(scene, thesis)
    for question in real_questions()[:10]:
        assert same_thesis.solve(question) == solve(question, scene, thesis)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=st.lists(cases(), min_size=3, max_size=6))
def test_random_questions_over_one_random_scene_answer_as_alone(
        cases: list[tuple[dict[str, Any], Any]]) -> None:
    graph = cases[0][0]  # every question over the first case's scene
    scene = SceneLibrary(Source(json.dumps(graph))).facts()
    questions = [facts(root) for _, root in cases]
    same(scene, questions, SolveOptions(top_k=3))
    same(scene, questions, SolveOptions(top_k=2, distinct=True))
    same_together(scene, questions * 2, SolveOptions(atoms=True))
    same_together(scene, questions, SolveOptions(distinct=True))
