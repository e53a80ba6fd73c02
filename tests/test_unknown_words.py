"""The unknown-word warning: a question word qlang does not know, which the program cannot
have meant, is said rather than silently read as another class."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from qlang.api import parse
from qlang.errors import Source
from qlang.ir import op
from qlang.seek.reasoner import UNINFORMATIVE
from qlang.translate.translator import Translation
from qlang.translate.unknown import spoken, unknown_words
from tests.conftest import graphs, run

WINDOW = parse("exist(select(scene(), window))", "nested")


def test_a_word_outside_the_vocabulary_is_said_with_what_the_program_reads() -> None:
    (rocket,) = unknown_words("Is there a rocket?", WINDOW)
    assert (rocket.word, rocket.span.column, rocket.span.end_column, rocket.instead) == \
        ("rocket", 12, 18, ("window",))
    assert rocket.diagnostic().render(Source("Is there a rocket?", "<question>")).splitlines() == [
        "<question>:1:12: warning: 'rocket' is not a word qlang knows; the program reads 'window'",
        "  Is there a rocket?",
        "             ^~~~~~"]


def test_each_unknown_word_is_said_plurals_too() -> None:
    found = unknown_words("Is the Gazebo near the rockets?", WINDOW)
    assert [(w.word, w.span.column) for w in found] == [("Gazebo", 8), ("rockets", 24)]


def test_a_gqa_question_has_no_warning() -> None:
    program = parse("verify_rel(unique(select(scene(), table)), cat, on, subject)", "nested")
    assert unknown_words("Is the cat on the table?", program) == ()
    # a compound written apart is the known word; a word that names nothing is no warning
    surfboard = parse("exist(select(scene(), surfboard))", "nested")
    assert unknown_words("Is there a surf board?", surfboard) == ()
    assert unknown_words("Is there a qzxv?", WINDOW) == ()
    # a word English uses mostly as a verb names nothing; a program whose every name the
    # question says reads no other thing
    assert unknown_words("Can the cat go there?", WINDOW) == ()
    assert unknown_words("What qualities does the window have?", WINDOW) == ()
    # a program that says a synonym of the word means it (GQA calls the background `ground`)
    ground = parse("exist(select(scene(), ground))", "nested")
    assert unknown_words("Is there a background?", ground) == ()
    assert [w.word for w in unknown_words("Is there a background?", WINDOW)] == ["background"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["rocket", "gazebo", "spaceship", "unicorn", "xylophone"]),
       st.sampled_from(["Is there a {}?", "What color is the {}?", "Is the {} on the table?"]))
def test_a_word_the_program_says_is_never_reported(word: str, template: str) -> None:
    question = template.format(word)
    assert word in [w.word for w in unknown_words(question, WINDOW)]
    said = op("exist", op("select", op("scene"), word))
    assert word not in [w.word for w in unknown_words(question, said)]


def test_a_translation_carries_its_unknown_words() -> None:
    translation = Translation("Is there a rocket?", "exist(select(scene(), window))", WINDOW)
    assert [w.word for w in translation.unknown] == ["rocket"]
    assert translation.to_json()["unknown"] == [
        {"word": "rocket", "column": 12, "instead": ["window"],
         "message": "'rocket' is not a word qlang knows; the program reads 'window'"}]
    assert Translation("Is there a rocket?").unknown == ()  # no program, nothing read instead


def test_translate_warns_on_standard_error_and_still_succeeds() -> None:
    status, out, err = run("translate", "--translator", "small", "Is there a rocket?")
    assert status == 0 and out.startswith("exist(select(scene(), ")
    assert "<question>:1:12: warning: 'rocket' is not a word qlang knows; the program reads" in err
    status, out, err = run("translate", "--translator", "small", "Is there a cat?")
    assert (status, out, err) == (0, "exist(select(scene(), cat))\n", "")


def test_the_program_speaks_the_unknown_word_it_read_as_one_class() -> None:
    rock = parse("verify_rel(unique(select(scene(), tower)), rock, to_the_left_of, subject)", "nested")
    assert str(spoken("Is the tower to the left of the rockets?", rock)) == \
        "verify_rel(unique(select(scene(), tower)), rocket, to the left of, subject)"
    assert str(spoken("Is there a rocket?", WINDOW)) == "exist(select(scene(), rocket))"
    # nothing unknown, two unknown words, or a word read as two names: the program as it is
    assert spoken("Is there a window?", WINDOW) is None
    assert spoken("Is the gazebo near the rocket?", WINDOW) is None
    two = parse("verify_rel(unique(select(scene(), tower)), window, to_the_left_of, subject)", "nested")
    assert spoken("Is the rocket to the left of it?", two) is None
    # a value read for it is not rewritten as a class
    red = parse("exist(filter(select(scene(), car), color, red))", "nested")
    assert spoken("Is there a vermilion car?", red) is None


def test_the_program_asks_about_the_thing_a_possessive_names() -> None:
    cat = parse("query(unique(select(scene(), cat)), color)", "nested")
    assert str(spoken("What color are the cat's eyes?", cat)) == "query(unique(select(scene(), eyes)), color)"
    assert str(spoken("What color are the cats' eyes?", cat)) == "query(unique(select(scene(), eyes)), color)"
    # no possessive, the thing said, the owner not read, or a thing that is no class: as it is
    assert spoken("What color is the cat?", cat) is None
    assert spoken("What color is the man's cat?", cat) is None
    assert spoken("What color are the dog's eyes?", cat) is None
    assert spoken("What color is the cat's very?", cat) is None
    eye = parse("query(unique(select(scene(), eye)), color)", "nested")
    assert spoken("What color are the cat's eyes?", eye) is None


def test_a_translation_speaks_the_word_and_keeps_the_note() -> None:
    translation = Translation("Is there a rocket?", "exist(select(scene(), window))", WINDOW).spoken("nested")
    assert (translation.program, translation.unknown) == ("exist(select(scene(), rocket))", ())
    assert translation.to_json()["kept"] == [
        "'rocket' is not a word qlang knows; the program asks about it as the question says"]


def test_seek_answers_about_the_word_itself_over_a_scene_graph() -> None:
    """Over a real GQA scene graph: a rocket is not answered about as a window (or a rock), but
    as a rocket, which the scene graph, as complete as its annotators made it, has none of."""
    from qlang.seek import Context, seek

    scene = graphs("emma")["2353884"]
    sought = seek("Is there a rocket?", Context(), scene=scene)
    assert (sought.answer, str(sought.program)) == ("no", "exist(select(scene(), rocket))")
    # two words it does not know: no program reads both, so none is answered
    sought = seek("Is the gazebo near the rocket?", Context(), scene=scene)
    assert sought.answer is None and "is not a word qlang knows; the program reads" in sought.reason
    assert {s.verdict.kind for s in sought.steps if s.tool == "translate"} == {UNINFORMATIVE}
    assert seek("Is there a man?", Context(), scene=scene).answer == "yes"


def test_ask_notes_the_word_under_its_answer() -> None:
    scene = "examples/scene_2353884.json"
    status, out, _ = run("ask", "Is there a rocket?", "--scene", scene, "--translator", "small")
    assert "program: exist(select(scene(), rocket))" in out
    assert "note:    'rocket' is not a word qlang knows; the program asks about it as the question" in out
    status, out, _ = run("ask", "Is there a man?", "--scene", scene, "--translator", "small")
    assert (status, "note:" in out) == (0, False)
    status, out, _ = run("ask", "Is there a rocket?", "--scene", scene, "--translator", "small", "--seek")
    assert "answer:  no" in out
