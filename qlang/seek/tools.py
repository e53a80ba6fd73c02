"""The tools a planner chooses among, behind one interface: a name, a nominal cost, what it does
(for the LLM planner's prompt), the input it would run on, and a typed result.

A tool's `key` is the input it would work on, read from the working memory (None: it has nothing
to work on); a tool never runs twice on the same key, so a search cannot go round in circles
and backtracking never repeats a failure.  The tools are qlang's own stages:

- **translate**: the configured translator (the cascade: small parser, else fine-tuned model),
  what plain `ask` runs; **finetuned**: the fine-tuned SmolLM2; **next_program**: the small
  parser's next best program among its k best (its beam).
- **look**: the perceiver at its threshold, for the program's concepts (a scene file: its
  objects at that confidence); **look_closer**: again at `CLOSER`, for those concepts only;
  **refine**: again with crop refinement (an ImageNet classifier names each box).
- **widen**: WordNet's kinds of a class among the classes the perceiver names (`vehicle` <-
  motorcycle), and the nearest class above one it cannot see (`man` -> person);
  **knowledge**: the knowledge base's `is_a` paths from what was seen to the program's classes.
- **solve**: clingo's distinct answers with their costs; **explain**: the objects the best
  answer rests on, and how sure the perceiver was of them.

Costs are nominal milliseconds with the models loaded, measured on the 2-core machine: the
budget (`--budget-ms`) skips a tool whose cost no longer fits, and the planner without a graph
takes the cheapest.  A `look` at a photo whose concepts need its text costs the reading too
(`READING_MS`, most of a photo's time); a second look reuses what was read.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from qlang.asp.background import Background
from qlang.asp.explain import ExplainedStep
from qlang.asp.explain import explain as explain_answer
from qlang.asp.options import DEFAULT_LIMITS, Limits, SolveOptions
from qlang.asp.scene import encode
from qlang.asp.solve import solve
from qlang.asp_names import from_term
from qlang.errors import QlangError, error
from qlang.knowledge.graph import Knowledge
from qlang.ontology import load
from qlang.passes.lower import facts
from qlang.seek.memory import Explained, Looked, Memory, Output, Programmed, Seen, Solved, Widened
from qlang.signatures import SIGNATURES, Kind
from qlang.timing import Stages
from qlang.translate.cascade import SmallTranslator
from qlang.translate.factory import Loaded, Models, make
from qlang.translate.translator import Settings, Translates, Translation
from qlang.translate.unknown import spoken
from qlang.vision.kinds import coarsened, kinds
from qlang.vision.margins import Margins, likeliest, table
from qlang.vision.perceiving import Options
from qlang.vision.perception import Perceiver
from qlang.vision.presume import whichever
from qlang.vision.sight import SIGHTS, Sight
from qlang.wordnet import WordNetMissing

if TYPE_CHECKING:  # numpy: loaded with the parser, not with every qlangc command
    from qlang.small.parser import SmallParser

#: The threshold `look_closer` lowers detection to: above the SSD's noise floor (its spurious
#: boxes on scikit-image's photos sit at 0.05-0.12), below its misses (coffee's spoon: 0.19).
CLOSER = 0.15
#: Distinct answers solved for, to weigh the best against the others.
ANSWERS = 3


@dataclass
class Context:
    """What the tools use: settings, and the models, each loaded once when first needed."""

    settings: Settings = field(default_factory=lambda: Settings(translator="cascade"))
    models: Models = field(default_factory=Models)
    loaded: Loaded = field(default_factory=Loaded)
    vision: Options = field(default_factory=Options)
    #: the knowledge bases and rules questions are solved with (`--kb`, `--rules`); the
    #: `knowledge` tool reads its knowledge, or else the bundled base
    background: Background | None = None
    limits: Limits = DEFAULT_LIMITS
    closer: float = CLOSER
    #: how likely a best answer must be, per kind of answer, to be final
    margins: Margins = field(default_factory=table)
    stages: Stages = field(default_factory=Stages)
    #: the perceiver, loaded or loading (`qlang.pipeline.load_perceiver`)
    perceiver: Perceiver | Future[tuple[Perceiver, float]] | None = None
    _translators: dict[str, Translates] = field(default_factory=dict)
    _refining: Perceiver | None = None
    _knowledge: Knowledge | None = None

    @property
    def sight(self) -> Sight:
        return SIGHTS[self.vision.backend]

    def translator(self, kind: str | None = None) -> Translates:
        """The configured translator, or one of another kind on the same models."""
        settings = self.settings if kind is None else replace(self.settings, translator=kind)
        if settings.translator not in self._translators:
            self._translators[settings.translator] = make(settings, self.models, self.loaded)
        return self._translators[settings.translator]

    def small(self) -> SmallParser:
        translator = self.translator("small")
        assert isinstance(translator, SmallTranslator)
        return translator.parser

    def loaded_perceiver(self, refine: bool = False) -> Perceiver:
        """The configured perceiver (with crop refinement: the SSD's classifier too)."""
        if isinstance(self.perceiver, Future):
            self.perceiver, seconds = self.perceiver.result()
            self.stages.add("load detector (beside translating)", seconds)
        if self.perceiver is None:
            from qlang.vision import perceiving

            with self.stages.time("load detector"):
                self.perceiver = perceiving.make_perceiver(self.vision)
        if not refine:
            return self.perceiver
        if self._refining is None:
            from qlang.vision import perceiving

            self._refining = perceiving.make_perceiver(replace(self.vision, refine=True))
        return self._refining

    def solving(self) -> SolveOptions:
        """How the tools solve: within these limits, with this background."""
        return SolveOptions(limits=self.limits, background=self.background)

    def knowledge(self) -> Knowledge:
        if self.background is not None and self.background.knowledge is not None:
            return self.background.knowledge
        if self._knowledge is None:
            from qlang.knowledge.sources import knowledge

            self._knowledge = knowledge([])
        return self._knowledge


@dataclass(frozen=True)
class Tool:
    name: str
    #: nominal milliseconds with its models loaded
    cost_ms: float
    #: what it does, as the LLM planner is told
    doc: str
    #: the input it would work on (None: nothing to work on)
    key: Callable[[Memory, Context], Hashable | None]
    run: Callable[[Memory, Context], Output]
    #: whether it reads the photo's text where the concepts need it (`READING_MS` more)
    reads: bool = False

    def cost(self, memory: Memory, context: Context) -> float:
        """Its nominal milliseconds on this memory: with the reading, where it reads."""
        return self.cost_ms + (READING_MS if self.reads and _reads_text(memory, context) else 0)


#: nominal milliseconds of reading a photo's text (0.7 s of a 1.5 s `ask --image` on the 2-core
#: machine, idle; a page of words takes longer)
READING_MS = 700


def _reads_text(memory: Memory, context: Context) -> bool:
    """Whether looking at the memory's photo reads its text (`qlang.vision.reading`)."""
    from qlang.vision.reading import needs_text

    if memory.image is None or memory.root is None or context.vision.text is False:
        return False
    return bool(context.vision.text) or needs_text(memory.concepts())


# ----- translating ------------------------------------------------------------------------------

def _programmed(by: str, translation: Translation) -> Programmed:
    """A translator's program, about the question's unknown word where it read another class
    for it (`Translation.spoken`)."""
    error = translation.error.diagnostics[0].message if translation.error is not None else "no program"
    root = translation.root
    if root is not None:
        root = spoken(translation.question, root) or root
    return Programmed(by, root, None if translation.ok else error)


def _translate(memory: Memory, context: Context) -> Output:
    assert memory.question is not None
    translation = context.translator().translate(memory.question)
    context.stages.add("translate", translation.seconds)
    path = f" ({translation.path})" if translation.path else ""
    return _programmed(f"{context.settings.translator}{path}", translation)


def _finetuned(memory: Memory, context: Context) -> Output:
    assert memory.question is not None
    with context.stages.time("finetuned"):
        return _programmed("finetuned", context.translator("finetuned").translate(memory.question))


def _finetuned_key(memory: Memory, context: Context) -> Hashable | None:
    """Not where the fine-tuned model has written a program already (the cascade's fallback)."""
    if memory.question is None or context.settings.translator == "finetuned" \
            or any(p.by.endswith("finetuned)") for p in memory.history):
        return None
    return memory.question


def _next_program(memory: Memory, context: Context) -> Output:
    assert memory.question is not None
    with context.stages.time("next program"):
        programs = context.small().programs(memory.question, context.settings.knowledge)
    for rank, parsed in enumerate(programs, start=1):
        if parsed.root is not None and parsed.root not in memory.programs:
            return Programmed(f"small parser's #{rank} (p {parsed.probability:.3f})", parsed.root)
    return Programmed("small parser", None, error=f"no other program among its {len(programs)} best")


# ----- looking ----------------------------------------------------------------------------------

def _look_at(memory: Memory, context: Context, threshold: float, refine: bool = False) -> Looked:
    """The photo perceived for the memory's concepts at `threshold`; or the scene file's objects
    of at least that confidence."""
    if memory.scene_facts is not None:
        return Looked(None, memory.scene_facts, 0.0, None)
    if memory.scene is not None:
        graph = above(memory.scene, threshold)
        with context.stages.time("look"):
            return Looked(graph, encode(graph, "<scene>"), threshold, None)
    assert memory.image is not None
    from qlang.vision import perceiving

    concepts = memory.concepts()
    thresholds = replace(context.vision.thresholds, detection=threshold)
    perceived = perceiving.perceive(memory.image, concepts, context.loaded_perceiver(refine), thresholds,
                                  context.stages)
    renamed = sum(" / " in d.label for d in perceived.perception.objects)
    return Looked(perceived.graph, perceived.facts, threshold, concepts, renamed)


def above(graph: dict[str, Any], threshold: float) -> dict[str, Any]:
    """A scene graph's objects of at least `threshold` confidence (1 when it has none), and
    their relations among themselves: what a perceiver at that threshold would have seen."""
    kept = {oid: obj for oid, obj in graph["objects"].items()
            if float(obj.get("confidence", 1.0)) >= threshold}
    objects = {oid: {**obj, "relations": [r for r in obj.get("relations", []) if str(r["object"]) in kept]}
               for oid, obj in kept.items()}
    return {**graph, "objects": objects}


def _look(memory: Memory, context: Context) -> Output:
    return _look_at(memory, context, context.vision.thresholds.detection)


def _look_key(memory: Memory, context: Context) -> Hashable | None:
    if memory.root is None or not (memory.image or memory.scene or memory.scene_facts):
        return None
    return memory.root, memory.concepts() if memory.image else None


def _look_closer(memory: Memory, context: Context) -> Output:
    return _look_at(memory, context, context.closer)


def _look_closer_key(memory: Memory, context: Context) -> Hashable | None:
    """Where a lower threshold can show more: a photo, for a class the perceiver sees; a scene
    with objects below the threshold."""
    looked = memory.looked
    if looked is None or memory.root is None or looked.threshold <= context.closer:
        return None
    if memory.image is not None:
        visible = [c for c in memory.classes() if context.sight.sees(Kind.CLASS, c) or c in memory.kinds
                   or c in memory.coarse]
        return (memory.root, memory.concepts()) if visible else None
    if memory.scene is not None and any(float(o.get("confidence", 1.0)) < looked.threshold
                                        for o in memory.scene["objects"].values()):
        return memory.root
    return None


def _refine(memory: Memory, context: Context) -> Output:
    assert memory.looked is not None
    return _look_at(memory, context, memory.looked.threshold, refine=True)


def _refine_key(memory: Memory, context: Context) -> Hashable | None:
    """Where the classifier may name what the detector cannot: a class whose nearest seen class
    above it was found (the SSD sees a person; ImageNet may say a scuba diver)."""
    if memory.image is None or memory.looked is None or context.vision.backend != "ssd" or not memory.coarse:
        return None
    return memory.root, memory.concepts(), memory.looked.threshold


# ----- widening ---------------------------------------------------------------------------------

def _widen(memory: Memory, context: Context) -> Output:
    """WordNet's kinds of each class among the names the perceiver uses (a scene: those seen),
    which the ontology does not file under it; and the nearest seen class above an unseen one
    (both from `qlang.vision.kinds`' table: no WordNet to load for the words it holds)."""
    sight = context.sight
    names = _vocabulary(memory, context)
    widened: dict[str, frozenset[str]] = {}
    above_unseen: dict[str, str] = {}
    with context.stages.time("widen"), _wordnet():
        for cls in memory.classes():
            below = kinds(cls, names)
            if below - memory.kinds.get(cls, frozenset()):
                widened[cls] = below
        if memory.image is not None:
            above_unseen = coarsened(sight, (cls for cls in memory.classes() if cls not in memory.coarse))
    return Widened("WordNet", widened, above_unseen)


@contextmanager
def _wordnet() -> Iterator[None]:
    """WordNet missing is the installation's fault, said as such (exit 1), not a crash."""
    try:
        yield
    except WordNetMissing as exc:
        raise error(QlangError, "setup", f"widening needs WordNet: {exc}") from None


def _vocabulary(memory: Memory, context: Context) -> frozenset[str]:
    if memory.image is not None:
        return context.sight.classes or frozenset()
    return frozenset(s.name for s in memory.looked.objects) if memory.looked is not None else frozenset()


def _widen_key(memory: Memory, context: Context) -> Hashable | None:
    if memory.root is None or not memory.classes() or not _vocabulary(memory, context):
        return None
    return memory.root, _vocabulary(memory, context)


def _knowledge(memory: Memory, context: Context) -> Output:
    """The knowledge base's `is_a` paths (at most 2 edges) from each name seen to each class of
    the program that the ontology does not put it under."""
    assert memory.looked is not None
    ontology, kb = load(), context.knowledge()
    kinds: dict[str, set[str]] = {}
    paths = []
    with context.stages.time("knowledge"):
        for cls in memory.classes():
            for name in sorted({s.name for s in memory.looked.objects}):
                if ontology.is_a(name, cls) or name in memory.kinds.get(cls, ()):
                    continue
                found = kb.paths(name, cls, 2, relations=("is_a",), limit=1)
                if found:
                    kinds.setdefault(cls, set()).add(name)
                    paths.append(str(found[0]))
    return Widened("the knowledge base", {c: frozenset(n) for c, n in kinds.items()}, paths=tuple(paths))


def _knowledge_key(memory: Memory, context: Context) -> Hashable | None:
    if memory.root is None or memory.looked is None or memory.looked.graph is None or not memory.classes():
        return None
    return memory.root, frozenset(s.name for s in memory.looked.objects)


# ----- answering --------------------------------------------------------------------------------

def _solve(memory: Memory, context: Context) -> Output:
    """The distinct answers, with "the man" taken to be each person seen in turn where the
    question presupposes one (`qlang.vision.presume`): no answer where they differ."""
    assert memory.root is not None
    root, scene = memory.root, memory.facts()
    base = likeliest(scene)
    options = replace(context.solving(), top_k=ANSWERS, distinct=True)

    def solved(extra: str) -> Solved:
        result = solve(facts(root), f"{scene}\n{extra}", options)
        return Solved(result.answers, result.complete, base=base, reading=extra)

    try:
        with context.stages.time("solve"):
            found = whichever(memory.presumed(context.sight), solved, lambda s: s.answers, base)
    except QlangError as exc:
        return Solved((), error=exc.diagnostics[0].message)
    return Solved((), error=found) if isinstance(found, str) else found


def _solve_key(memory: Memory, context: Context) -> Hashable | None:
    return memory.version if memory.root is not None and memory.looked is not None else None


def _explain(memory: Memory, context: Context) -> Output:
    """The objects the best answer rests on: those the final step's inputs keep, through its
    yes/no and value inputs down to theirs.  `exist` and `or` need the surest of theirs, every
    other step the least sure."""
    assert memory.root is not None and memory.solved is not None and memory.looked is not None
    answer, scene = memory.solved.answers[0].value, f"{memory.facts()}\n{memory.solved.reading}"
    with context.stages.time("explain"):
        explanation = explain_answer(facts(memory.root), scene, answer=answer, options=context.solving())
    if explanation is None:
        return Explained(answer, (), 0.0)
    steps = {step.step: step for step in explanation.steps}
    seen = {s.id: s for s in memory.looked.objects}
    evidence: list[Seen] = []

    def confidence(step: ExplainedStep) -> float | None:
        """How sure the objects a step rests on are (None: it rests on none)."""
        sure: list[float] = []
        for operand in (steps[number] for number in step.operands):
            if SIGNATURES[operand.op].result.is_answer:  # a yes/no or a value: what it rests on
                below = confidence(operand)
                sure += [] if below is None else [below]
                continue
            kept = [seen[from_term(term)] for term in operand.objects if from_term(term) in seen]
            evidence.extend(kept)
            if kept:
                sure.append(max(s.confidence for s in kept) if step.op == "exist" else
                            min(s.confidence for s in kept))
        return (max if step.op in ("exist", "or") else min)(sure) if sure else None

    surest = confidence(explanation.steps[-1])
    return Explained(answer, tuple(sorted(set(evidence), key=lambda s: -s.confidence)),
                     1.0 if surest is None else surest)


def _explain_key(memory: Memory, context: Context) -> Hashable | None:
    """Where the answer may rest on uncertain objects: a perceived or weighted scene."""
    solved, looked = memory.solved, memory.looked
    if solved is None or not solved.answers or looked is None or not looked.uncertain \
            or memory.solved_at != memory.version:
        return None
    return memory.version


#: every tool, in the order the planner without a graph prefers them: the cheapest first
TOOLS: dict[str, Tool] = {tool.name: tool for tool in sorted((
    Tool("translate", 30, "translate the question into a program (the configured translator)",
         lambda m, c: m.question, _translate),
    Tool("finetuned", 500, "translate the question again with the fine-tuned language model",
         _finetuned_key, _finetuned),
    Tool("next_program", 30, "take the small parser's next best program for the question",
         lambda m, c: (m.question, len(m.programs)) if m.question and m.programs else None, _next_program),
    Tool("look", 150, "perceive the photo for the program's concepts at the detector's threshold",
         _look_key, _look, reads=True),
    Tool("look_closer", 150, f"perceive again at the lower threshold {CLOSER} for the same concepts",
         _look_closer_key, _look_closer),
    Tool("refine", 300, "name each detected box again with an ImageNet classifier", _refine_key, _refine),
    Tool("widen", 50, "find kinds of the program's classes the perceiver knows, and classes above "
         "those it does not (WordNet)", _widen_key, _widen),
    Tool("knowledge", 60, "find is_a paths in the knowledge base from what was seen to the "
         "program's classes", _knowledge_key, _knowledge),
    Tool("solve", 20, "answer the program over what was seen (clingo)", _solve_key, _solve),
    Tool("explain", 20, "find the objects the best answer rests on and how sure they are",
         _explain_key, _explain),
), key=lambda tool: tool.cost_ms)}

