"""One way to answer a question: a question (or a checked program) over a scene's facts or a
photo, to an `Answered`: the answers ranked, the program, what was perceived, and the seconds
each stage took, every model load among them.

`ask`, bench/vision.py, and `eval` and the experiments (whose judge, `qlang.evaluate.answers`,
solves through `solve_program`) answer through here, so each stage runs once: the scene is
encoded once (a photo's weighted scene straight from the perception, not through JSON), and the
program is checked once (by the translator, or by `api.compile`) and lowered without a second
check, or lowered the thesis's way where eval reads it leniently (`qlang.evaluate.lenient`).
A `Background` (knowledge bases, a rules file) is what a question is solved against besides
the scene; eval and the experiments keep none.
"""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from qlang.asp.options import DEFAULT_OPTIONS, SolveOptions
from qlang.asp.outcome import Answer
from qlang.asp.query import Query
from qlang.asp.solve import solve
from qlang.errors import QlangError, error
from qlang.ir import Node
from qlang.passes.lower import facts
from qlang.signatures import Kind
from qlang.timing import Stages
from qlang.translate.factory import Loaded
from qlang.translate.translator import Translates, Translation
from qlang.vision.perceiving import Options, Perceived
from qlang.vision.perception import Perceiver


class Untranslated(QlangError):
    """The translator wrote no program that checks; `translation` says what it wrote."""

    translation: Translation


@dataclass(frozen=True, slots=True)
class Answered:
    answers: tuple[Answer, ...]
    #: False when the deadline cut the search for answers after the first short
    complete: bool
    root: Node
    #: the program as the translator printed it (None: a program was given)
    translation: Translation | None = None
    #: what was perceived of a photo: its pixels, the detections, the weighted scene and its facts
    perceived: Perceived | None = None
    stages: Stages = field(default_factory=Stages)
    #: a photo's "no" withheld: the words of the program its perceiver cannot see
    unseen: tuple[str, ...] = ()
    #: why a photo's answer is withheld ("cannot tell"): a "no" about each of `unseen` is no
    #: evidence (`qlang.vision.recall.why`), or the best answer names only the class asked
    #: (`qlang.vision.repeats`), or is less likely than its kind's cut (`qlang.vision.margins`)
    doubts: tuple[str, ...] = ()
    #: what the answer takes for granted: "the man is taken to be the person seen"
    #: (`qlang.vision.presume`)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Subject:
    """What a question is asked about: a scene's facts, or the photo `image`, perceived as
    `vision` says by `perceiver` (where one is loaded already: a server's)."""

    scene: str | None = None
    image: str | None = None
    vision: Options = field(default_factory=Options)
    perceiver: Perceiver | None = None


#: How a person's question is answered: its three best distinct answers (a person asking wants
#: no answer twice; each with its best cost).
ASKED = SolveOptions(top_k=3, distinct=True)


def solve_program(root: Node, scene: str, options: SolveOptions = DEFAULT_OPTIONS, *,
                  lowered: Query | None = None, stages: Stages | None = None) -> Answered:
    """The k best models' answers of a checked program over an encoded scene (its facts), as the
    seed thesis's top-k counts them (eval's judge), or with `distinct` the k best distinct
    answers: the program lowered as it is (the checker has passed it), or as `lowered`, where a
    reader lowers it its own way (the thesis's lenient reader writes apart steps that lowering shares)."""
    stages = stages or Stages()
    with stages.time("solve"):
        result = solve(facts(root) if lowered is None else lowered, scene, options)
    return Answered(result.answers, result.complete, root, stages=stages)


def load_perceiver(options: Options) -> Future[tuple[Perceiver, float]]:
    """The perceiver, loading in a thread of its own: it does not depend on the program, and its
    libraries and weights load (mostly outside the GIL) while the translator loads and runs."""

    def load() -> tuple[Perceiver, float]:
        from qlang.vision import perceiving

        start = time.perf_counter()
        return perceiving.make_perceiver(options), time.perf_counter() - start

    pool = ThreadPoolExecutor(1, thread_name_prefix="qlang-perceiver")
    loading = pool.submit(load)
    pool.shutdown(wait=False)  # the thread ends with the load
    return loading


def ask(question: str, translator: Translates, about: Subject, *, loaded: Loaded | None = None,
        options: SolveOptions = ASKED, stages: Stages | None = None) -> Answered:
    """Translate `question` (about its own word where the program read another class for one
    qlang does not know: `Translation.spoken`), then answer it (its k best distinct answers,
    as `answer`) `about` a scene or a photo, perceived for what the program needs; every model
    `loaded` on the way is a stage of its own, and the perceiver loads beside translating unless
    one is loaded.
    Raises `Untranslated` when no program came out, QlangError when no answer could be computed."""
    stages = stages or Stages()
    looking = load_perceiver(about.vision) if about.image is not None and about.perceiver is None else None
    translation = translator.translate(question).spoken(translator.settings.syntax)
    for label, seconds in (loaded.seconds if loaded else {}).items():
        stages.add(label, seconds)
    stages.add("translate", translation.seconds)
    if translation.error is not None or translation.root is None:
        failed = translation.error or error(QlangError, "translate", "no program")
        untranslated = Untranslated(failed.diagnostics, failed.source)
        untranslated.translation = translation
        raise untranslated
    if forms := translation.inexpressible:  # no answer of the program's is one to the question
        return Answered((), True, translation.root, translation, stages=stages,
                        doubts=tuple(form.message for form in forms))
    if looking is not None:
        perceiver, seconds = looking.result()
        stages.add("load detector (beside translating)", seconds)
        about = replace(about, perceiver=perceiver)
    answered = answer(translation.root, about, options=replace(options, question=question), stages=stages)
    return replace(answered, translation=translation)


def _perceive(root: Node, image: str, perceiver: Perceiver, vision: Options, stages: Stages) -> Perceived:
    """The photo perceived for what `root` needs, each class it names widened as seek's `widen`
    widens it (GQA files no motorcycle under vehicle): the perceiver also looks for the class's
    WordNet kinds among its names, and the facts make an object of such a kind one of the class."""
    from qlang.vision import perceiving
    from qlang.vision.concepts import expand
    from qlang.vision.kinds import rules, widen
    from qlang.vision.sight import SIGHTS, words

    with stages.time("extract"):
        concepts = perceiving.from_program(root)
    with stages.time("widen"):
        kinds = widen(SIGHTS[perceiver.name], [word for kind, word in words(root) if kind is Kind.CLASS])
        concepts = expand(replace(concepts, classes=concepts.classes.union(*kinds.values())))
    perceived = perceiving.perceive(image, concepts, perceiver, vision.thresholds, stages)
    return replace(perceived, facts="\n".join([perceived.facts, *rules(kinds)]))


def answer(root: Node, about: Subject, *, options: SolveOptions = ASKED,
           stages: Stages | None = None) -> Answered:
    """A checked program's k best distinct answers (a person asking wants no answer twice; each
    with its best cost) `about` a scene or a photo, which its perceiver perceives for what the
    program needs, with the `options`' limits and background knowledge and rules: `ask`'s second
    half, and the whole of answering a program edited by hand (`qlang.web`)."""
    stages = stages or Stages()
    perceived = None
    scene, image, perceiver = about.scene, about.image, about.perceiver
    if image is not None:
        if perceiver is None:
            raise ValueError("answering about a photo needs a perceiver")
        perceived = _perceive(root, image, perceiver, about.vision, stages)
        scene = perceived.facts
    if scene is None:
        raise ValueError("answering needs a scene or an image")
    solving = replace(options, distinct=True)
    if perceived is None or perceiver is None:
        return solve_program(root, scene, solving, stages=stages)
    return _answer_photo(root, scene, perceived, perceiver, about.vision, solving, stages)


def _answer_photo(root: Node, scene: str, perceived: Perceived, perceiver: Perceiver, vision: Options,
                  options: SolveOptions, stages: Stages) -> Answered:
    """A photo's answers: "the man" taken to be each person seen in turn, where the question
    presupposes one (`qlang.vision.presume`: the perceived facts are then those of the reading
    answered, which `explain` reads), and withheld where they are no evidence
    (`qlang.vision.withhold`)."""
    from qlang.vision.kinds import coarse
    from qlang.vision.margins import likeliest
    from qlang.vision.presume import presume, whichever
    from qlang.vision.sight import SIGHTS, unseen
    from qlang.vision.withhold import seen_in, unanswered, withheld

    sight, base = SIGHTS[perceiver.name], likeliest(scene)
    presumed = presume(sight, root, perceived.graph, lambda cls: coarse(sight, cls))
    notes = tuple(map(str, presumed))

    def reading(extra: str) -> Answered:
        taken = replace(perceived, facts=f"{scene}\n{extra}") if extra else perceived
        return replace(solve_program(root, taken.facts, options, stages=stages), perceived=taken)

    answered = whichever(presumed, reading, lambda a: a.answers, base)
    if isinstance(answered, str):
        return Answered((), True, root, perceived=perceived, stages=stages, doubts=(answered,))
    taken = {p.cls for p in presumed}
    if not answered.answers:  # "What color is the mug?" with no mug seen: say so
        hidden = [word for kind, word in unseen(sight, root) if word not in taken
                  and not (kind is Kind.CLASS and coarse(sight, word))]  # a man is seen as a person
        why, _ = unanswered(root, lambda cls: seen_in(perceived.graph, cls), hidden,
                            vision.thresholds.detection, taken)
        return replace(answered, doubts=(why,), notes=notes)
    blind, doubts = withheld(sight, root, answered.answers, base, vision.thresholds.detection, taken)
    if doubts:
        return replace(answered, answers=(), unseen=blind, doubts=doubts)
    return replace(answered, notes=notes)
