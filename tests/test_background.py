"""What questions are solved against besides the scene (qlang/asp/background.py): a background
travels to workers by pickle, one question and a shared scene answer alike with it, an empty one
changes nothing, the scene's words count what the rules derive, the rules ground only the
knowledge their literals reach, and the guard weighs the rules."""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

import pytest

from qlang import api
from qlang.asp import multishot
from qlang.asp.background import Background
from qlang.asp.multishot import GroundedScene
from qlang.asp.options import Limits, SolveOptions
from qlang.asp.outcome import Answer, Solution, SolveError
from qlang.asp.query import Query
from qlang.asp.scene import SceneLibrary, encode
from qlang.asp.solve import solve
from qlang.asp_names import from_term
from qlang.errors import Source
from qlang.knowledge import sources
from qlang.passes.lower import facts
from qlang.rules import Rules, read
from tests.conftest import emma_questions, graphs, run, write

EXAMPLES = Path(__file__).parent.parent / "examples"
SCENE = (EXAMPLES / "scene_2353884.json").read_text()
TOYS = "class plaything.\nclass(X, plaything) :- class(X, C), know(C, is_a, toy).\n"


def rules(text: str, name: str = "r.rules") -> Rules:
    return read(Source(text, name))


def athlete() -> Rules:
    return rules((EXAMPLES / "athlete.rules").read_text(), "athlete.rules")


def lowered(program: str, background: Background) -> Query:
    return facts(api.compile(program, ontology=background.ontology(), knowledge=background.knowledge))


def scene_facts() -> str:
    return SceneLibrary(Source(SCENE)).facts()


#: questions over image 2353884 that read what the rules derive, and the knowledge
QUESTIONS = (
    "query(unique(select(scene(), athlete)), name)",
    "query(unique(filter(select(scene(), clothing), style, sporty)), name)",
    "know(unique(select(scene(), athlete)), is_a)",
    "query(unique(select(scene(), plaything)), name)",
    "verify_know(unique(select(scene(), frisbee)), is_a, toy)",
    "infer(select(scene(), athlete), person)",
)


@pytest.fixture(scope="module")
def background() -> Background:
    both = rules((EXAMPLES / "athlete.rules").read_text() + TOYS, "both.rules")
    return Background(sources.knowledge(()), both)


def answers(found: tuple[Answer, ...]) -> set[tuple[str, tuple[int, ...]]]:
    return {(a.value, a.cost) for a in found}


@pytest.mark.parametrize("program", QUESTIONS)
def test_one_question_and_a_shared_scene_answer_alike(program: str, background: Background) -> None:
    question = lowered(program, background)
    options = SolveOptions(top_k=20, distinct=True, background=background)
    alone = solve(question, scene_facts(), options)
    shared = GroundedScene(scene_facts(), options)
    assert alone.answers and answers(alone.answers) == answers(shared.solve(question).answers)
    again = pickle.loads(pickle.dumps(background))  # as a Ray actor gets it
    assert again.rules == background.rules
    assert [i.path for i in again.knowledge.indexes] == [i.path for i in background.knowledge.indexes]
    shared_again = GroundedScene(scene_facts(), replace(options, background=again))
    assert answers(shared_again.solve(question).answers) == answers(alone.answers)


def test_the_questions_solved_together_answer_as_each_alone(
        background: Background, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over rules and the knowledge base, twice over: the same cost, and an answer of that cost
    (the knowledge operations' answers tie: what the base says of athletes costs the same)."""
    questions = [lowered(program, background) for program in QUESTIONS] * 2
    options = SolveOptions(background=background)
    searched: list[int] = []
    solutions = multishot._Together.solutions

    def counted(self: multishot._Together, atoms: bool) -> list[Solution]:
        searched.append(len(self.ks))
        return solutions(self, atoms)

    monkeypatch.setattr(multishot._Together, "solutions", counted)
    together = GroundedScene(scene_facts(), options).solve_all(questions)
    assert searched == [len(questions)]  # the rules' negation leaves one model: one search
    for question, solved in zip(questions, together, strict=True):
        assert not isinstance(solved, Exception)
        alone = solve(question, scene_facts(), options).answers
        assert [a.cost for a in solved.answers] == [a.cost for a in alone], question
        tied = solve(question, scene_facts(), replace(options, top_k=100, distinct=True)).answers
        assert {a.value for a in solved.answers} <= {a.value for a in tied if a.rank == 1}, question


def test_knowledge_operations_read_the_classes_rules_derive(background: Background) -> None:
    """The man is an athlete only by the rules; what the base says of athletes is his too."""
    question = lowered("know(unique(select(scene(), athlete)), is_a)", background)
    options = SolveOptions(top_k=50, distinct=True, background=background)
    found = {a.value for a in solve(question, scene_facts(), options).answers}
    knowledge = background.knowledge
    assert knowledge is not None
    assert {e.tail for e in knowledge.edges(["athlete"], relations={"is_a"})} <= found
    toys = SolveOptions(background=Background(knowledge, rules(TOYS)))
    assert not solve(question, scene_facts(), toys).answers


@pytest.mark.parametrize("question", emma_questions(), ids=lambda q: q["question"])
def test_an_empty_background_changes_nothing(question: dict) -> None:
    lowered_question = facts(api.parse(question["semanticStr"], "gqa-str"))
    scene = encode(graphs("emma")[question["imageId"]], question["imageId"])
    plain = solve(lowered_question, scene, SolveOptions(top_k=5))
    for empty in (Background(), Background(sources.knowledge(["none"])), Background(sources.knowledge(()))):
        assert solve(lowered_question, scene, SolveOptions(top_k=5, background=empty)) == plain


def test_the_scenes_words_count_what_the_rules_derive() -> None:
    words = Background(rules=athlete()).words(scene_facts())
    plain = Background().words(scene_facts())
    assert words.classes - plain.classes == {"athlete"}
    assert {"sporty", "formal"} <= words.every - plain.every
    assert {"man", "person", "shorts"} <= plain.classes <= plain.every


def test_rules_ground_only_the_knowledge_their_literals_reach(tmp_path: Path) -> None:
    """Out of the words a literal's head may be, into its tail's where the head is free; a
    symmetric relation both ways; no relation the rules do not name."""
    base = write(tmp_path / "base.tsv", "".join(f"{h}\t{r}\t{t}\n" for h, r, t in [
        ("frisbee", "is_a", "toy"), ("toy", "is_a", "object"), ("doll", "is_a", "toy"),
        ("kite", "used_for", "play"), ("frisbee", "related_to", "disc"), ("tent", "is_a", "shelter")]))
    knowledge = sources.knowledge([base])

    def reached(rules: Rules) -> set[tuple[str, ...]]:
        found = Background(knowledge, rules).rule_facts(lambda: Background().words(scene_facts()))
        words = [[from_term(str(a)) for a in s.arguments] for s in found]
        return {(head, relation.replace(" ", "_"), tail) for head, relation, tail in words}  # used_for

    # out of the scene's words (frisbee, tent, ...) and into toy, one step each
    assert reached(rules(TOYS)) == {("frisbee", "is_a", "toy"), ("doll", "is_a", "toy"),
                                    ("tent", "is_a", "shelter")}
    near = rules("class near_disc.\nclass(X, near_disc) :- class(X, C), know(C, related_to, disc).")
    assert reached(near) == {("frisbee", "related_to", "disc"), ("disc", "related_to", "frisbee")}
    assert not Background(sources.knowledge(["none"]), near).rule_facts(lambda: Background().words(""))


def test_the_guard_weighs_the_rules(tmp_path: Path) -> None:
    """Three objects of any class: the scene's objects cubed, refused under a low guard."""
    text = "class c0.\nclass(X, c0) :- class(X, C), class(Y, D), class(Z, E)."
    cubed = rules(text)
    question = lowered("exist(select(scene(), c0))", Background(rules=cubed))
    options = SolveOptions(background=Background(rules=cubed))
    with pytest.raises(SolveError, match="would ground to about"):
        solve(question, scene_facts(), replace(options, limits=Limits(max_ground=100_000)))
    assert solve(question, scene_facts(), options).answers[0].value == "yes"
    path = write(tmp_path / "cubed.rules", text)
    program = write(tmp_path / "q.txt", "exist(select(scene(), c0))")
    code, _, err = run("solve", "--program", program, "--scene", str(EXAMPLES / "scene_2353884.json"),
                       "--rules", path, "--max-ground", "100000")
    assert code == 1 and "would ground to about" in err and "--max-ground" in err


def test_infer_without_knowledge_bases_still_reads_gqas_hierarchy(tmp_path: Path) -> None:
    """--kb none, a background of nothing and no background at all answer alike: the scene's
    man is a person by GQA's hierarchy, which is knowledge the theory always has."""
    program = write(tmp_path / "q.qn", "infer(select(scene(), man), person)")
    scene = str(EXAMPLES / "scene_2353884.json")
    assert run("solve", "--program", program, "--scene", scene, "--kb", "none") == (0, "man\n", "")
    question = facts(api.compile("infer(select(scene(), man), person)"))
    encoded = encode(SceneLibrary(Source(SCENE)).graph(), "s")
    for background in (None, Background(sources.knowledge(["none"]))):
        options = SolveOptions(background=background)
        assert [a.value for a in solve(question, encoded, options).answers] == ["man"]
        shared = GroundedScene(encoded, options)
        assert [a.value for a in shared.solve(question).answers] == ["man"]


def test_a_knowledge_step_walks_only_from_the_classes_its_input_may_have() -> None:
    """infer over the scene's men walks out of a man's classes, not the frisbee's or the tent's
    (over a large base, a walk out of every class spent the edge limit in its first step); a
    step whose input selects a class no object has (a rule may derive it) walks from them all."""
    from qlang.asp.knowledge_facts import starts

    words = Background().words(encode(SceneLibrary(Source(SCENE)).graph(), "s"))
    question = facts(api.compile("infer(unique(filter(select(scene(), man), hposition, left)), animal)"))
    steps = {fact.args[0]: fact for fact in question if fact.name != "end"}
    infer = next(fact for fact in question if fact.name == "infer")
    assert "frisbee" in words.classes and "man" in words.together["man"]
    assert starts(steps, infer, set(words.classes), words.together) == set(words.together["man"])
    assert "frisbee" not in words.together["man"] and "person" in words.together["man"]
    everything = facts(api.compile("infer(select(scene(), dog), animal)", open_vocabulary=True))
    steps = {fact.args[0]: fact for fact in everything if fact.name != "end"}
    infer = next(fact for fact in everything if fact.name == "infer")
    assert starts(steps, infer, set(words.classes), words.together) == set(words.classes)
