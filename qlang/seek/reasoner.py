"""The reasoner (AVIS's R): each tool's output judged by symbolic rules, never by a model.

- **uninformative** (back to the same state, that tool excluded): no program, the same
  program again, a program that cannot mean a word of the question qlang does not know
  (`qlang.translate.unknown`: "rocket" read as a window), or an alternative program about a
  class the question does not mention; no
  answer, named by the seed thesis's failure classes (`EmptyQuery`: a class nothing was seen
  of; `MissingEdge`: no object in the relation asked for); a tie (`AmbiguousAnswer`), a
  photo's name that only repeats the class asked (`qlang.vision.repeats`), or a
  best answer less likely than its kind's cut (`qlang.vision.margins`); a "no" about a word no
  perceiver can see; a widening that finds nothing new; a classifier that renames nothing.
- **informative** (kept; the tool's name becomes the state): a program, a look, kinds of a
  class; and an answer not final yet: a "no" from what was seen at the detector's threshold
  while a closer look is possible (missing a detection is no evidence of absence), or an answer
  resting on what was seen below that threshold, until its evidence is explained.
- **final**: a clear answer, with its probability against the other answers (from the
  solver's costs, -1000 ln p), at most as sure as the least sure object it rests on, and a
  "no" from a photo at most as sure as the threshold it looked down to allows (1 - 0.15).
  An answer resting on an object less sure than the detector's threshold is none: looking
  closer may show that something faint is there (so "no" would be wrong), never that it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from qlang.interpret import AmbiguousAnswer
from qlang.seek.memory import Explained, Looked, Memory, Output, Programmed, Solved, Widened
from qlang.seek.tools import TOOLS, Context
from qlang.signatures import Kind
from qlang.translate.inexpressible import inexpressible
from qlang.translate.unknown import unknown_words
from qlang.vision.concepts import mentioned
from qlang.vision.margins import likelihood, unsure
from qlang.vision.recall import doubt, sureness
from qlang.vision.repeats import repeats
from qlang.vision.sight import words
from qlang.vision.withhold import unanswered
from qlang.words import article

UNINFORMATIVE, INFORMATIVE, FINAL = "uninformative", "informative", "final"


@dataclass(frozen=True)
class Verdict:
    kind: str
    why: str
    #: a final verdict's answer and its confidence
    answer: str | None = None
    confidence: float | None = None
    #: the seed thesis's failure class, where the output is a failure of one
    failure: str | None = None
    #: a solved best answer's probability against the others (`likelihood`)
    likelihood: float | None = None

    def to_json(self) -> dict[str, object]:
        shown: dict[str, object] = {"verdict": self.kind, "why": self.why}
        if self.failure is not None:
            shown["failure"] = self.failure
        return shown


def judge(tool: str, output: Output, memory: Memory, context: Context) -> Verdict:
    """What `output` of `tool` is worth, given what the memory holds (before it is added)."""
    match output:
        case Programmed():
            if output.root is None:
                return Verdict(UNINFORMATIVE, output.error or "no program")
            if output.root in memory.programs:
                return Verdict(UNINFORMATIVE, "the same program as before")
            question = memory.question or ""
            unknown = [form.message for form in inexpressible(question)] \
                + [word.message for word in unknown_words(question, output.root)]
            if unknown:  # an answer would be about what the program reads instead
                return Verdict(UNINFORMATIVE, unknown[0])
            strange = _strange(output, memory)
            if strange:
                return Verdict(UNINFORMATIVE, f"'{strange[0]}' is no word of the question")
            return Verdict(INFORMATIVE, "a program to answer")
        case Looked():
            return _looked(tool, output, memory)
        case Widened():
            if not output.kinds and not output.coarse:
                classes = ", ".join(f"'{c}'" for c in memory.classes())
                return Verdict(UNINFORMATIVE,
                               f"{output.source} gives no kind of {classes} the perceiver knows")
            return Verdict(INFORMATIVE, f"{output.source} widens the classes")
        case Solved():
            return _solved(output, memory, context)
        case Explained():
            assert memory.solved is not None
            least = context.vision.thresholds.detection
            if output.confidence < least:
                return Verdict(UNINFORMATIVE, f"{output.brief()}: less sure than the detector's {least:g}")
            confidence = min(likelihood(memory.solved.answers, memory.solved.base), output.confidence)
            return Verdict(FINAL, output.brief() + _granted(memory, context), output.answer, confidence)


def _strange(program: Programmed, memory: Memory) -> list[str]:
    """The classes and relations an alternative program brings that neither the question
    mentions nor an earlier program had (`person` stands for "who"): the small parser's
    lower-ranked programs drift to other words ("Is there a flag?" -> a person, a phone; "Is
    there a bed?" -> a bed *of* a bed)."""
    if not memory.programs or memory.question is None or program.root is None:
        return []
    said = mentioned(memory.question)
    known = {Kind.CLASS: set(said.classes), Kind.REL: set(said.relations)}
    for root in memory.programs:
        for kind, word in words(root):
            known.get(kind, set()).add(word)
    if {"who", "whom", "whose"} & set(memory.question.lower().replace("?", " ").split()):
        known[Kind.CLASS].add("person")
    return [word for kind, word in words(program.root) if kind in known and word not in known[kind]]


def _looked(tool: str, looked: Looked, memory: Memory) -> Verdict:
    if tool == "refine" and not looked.renamed:
        return Verdict(UNINFORMATIVE, "the classifier renames nothing")
    if tool == "look_closer" and memory.looked is not None \
            and len(looked.objects) == len(memory.looked.objects):
        return Verdict(INFORMATIVE, f"nothing more at >= {looked.threshold:g}")
    return Verdict(INFORMATIVE, "something to answer over")


def _solved(solved: Solved, memory: Memory, context: Context) -> Verdict:
    if solved.error is not None:
        return Verdict(UNINFORMATIVE, solved.error)
    if not solved.answers:
        return _no_answer(memory, context)
    p = likelihood(solved.answers, solved.base)
    return replace(_best(solved, p, memory, context), likelihood=p)


def _best(solved: Solved, p: float, memory: Memory, context: Context) -> Verdict:
    """How the best answer, `p` likely against the others, is judged."""
    best = solved.answers[0]
    no = best.value == "no" and memory.yes_no()
    unseen = memory.unseen(context.sight)
    if no and unseen:
        return _unseen_no(unseen, memory, context, p)
    if len(solved.answers) > 1 and solved.answers[1].cost == best.cost:
        tied = " and ".join(a.value for a in solved.answers if a.cost == best.cost)
        return Verdict(UNINFORMATIVE, f"a tie between {tied}", failure=AmbiguousAnswer.__name__)
    assert memory.root is not None
    repeated = repeats(memory.root, best.value) if memory.image is not None else None
    refused = repeated or unsure(memory.root, solved.answers, solved.base, context.margins)
    if refused is not None:
        return Verdict(UNINFORMATIVE, refused)
    looked = memory.looked
    assert looked is not None
    taken = {p.cls for p in memory.presumed(context.sight)}
    missing = [cls for cls in memory.classes() if not memory.seen(cls) and cls not in taken] \
        if no and memory.image else []
    uncovered = [why for cls in missing if (why := _uncovered(cls, memory, context))]
    if uncovered:  # no closer look finds what the perceiver has no label for
        return Verdict(UNINFORMATIVE, uncovered[0])
    if no and _can(memory, context, "look_closer"):
        return Verdict(INFORMATIVE, f"'no' from what was seen at >= {looked.threshold:g}: "
                       "not seeing is no evidence of absence yet")
    if not no and looked.threshold < context.vision.thresholds.detection and looked.uncertain:
        return Verdict(INFORMATIVE, f"'{best.value}' rests on what was seen below "
                       f"{context.vision.thresholds.detection:g}")
    doubted = [why for cls in missing if (why := doubt(context.sight, cls, looked.threshold))]
    if doubted:
        return Verdict(UNINFORMATIVE, doubted[0])
    granted = _granted(memory, context)
    if no and memory.image is not None:
        return Verdict(FINAL, f"nothing of it is seen at >= {looked.threshold:g}{granted}", "no",
                       min(p, 1.0 - looked.threshold,
                           *(sureness(context.sight, cls, looked.threshold) for cls in missing)))
    return Verdict(FINAL, f"a clear answer{granted}", best.value, p)


def _granted(memory: Memory, context: Context) -> str:
    """What a final answer takes for granted: "; the man is taken to be the person seen"."""
    return "".join(f"; {p}" for p in memory.presumed(context.sight))


def _uncovered(cls: str, memory: Memory, context: Context) -> str | None:
    """Why the perceiver's labels do not cover a class it sees (None: they do, or the class was
    widened to kinds it names, each of which it covers)."""
    sight = context.sight
    kinds = memory.kinds.get(cls, frozenset())
    if sight.covers(cls) or not sight.sees(Kind.CLASS, cls) or (kinds and all(map(sight.covers, kinds))):
        return None
    return doubt(sight, cls, memory.looked.threshold if memory.looked is not None else None)


def _can(memory: Memory, context: Context, tool: str) -> bool:
    """Whether a tool has something to work on that it has not worked on."""
    key = TOOLS[tool].key(memory, context)
    return key is not None and (tool, key) not in memory.ran


def _unseen_no(unseen: list[str], memory: Memory, context: Context, p: float) -> Verdict:
    """A "no" about words no perceiver sees is no answer, but where each is a class whose
    nearest seen class above it is nowhere either (no person at all: no man)."""
    absent = []
    threshold = memory.looked.threshold if memory.looked is not None else None
    for word in unseen:
        above = memory.coarse.get(word)
        if above is None:
            return Verdict(UNINFORMATIVE, f"no perceiver knows '{word}'")
        if memory.seen(above):
            return Verdict(UNINFORMATIVE, f"{article(above)} {above} is seen, but no perceiver tells "
                           f"whether it is {article(word)} {word}")
        doubted = doubt(context.sight, above, threshold)
        if doubted is not None:
            return Verdict(UNINFORMATIVE, f"{doubted}: not seeing one says nothing of {article(word)} {word}")
        absent.append((above, word))
    reason = "; ".join(f"no {above} is seen, so no {word}" for above, word in absent)
    if _can(memory, context, "look_closer"):
        at = f" at >= {memory.looked.threshold:g}" if memory.looked is not None else ""
        return Verdict(INFORMATIVE, reason + at)
    recalls = (sureness(context.sight, above, threshold) for above, _ in absent)
    return Verdict(FINAL, reason, "no", min(p, 1.0 - (threshold or 0.0), *recalls))


def _no_answer(memory: Memory, context: Context) -> Verdict:
    """Why the program has no answer, in the failure classes of the seed thesis's interpreter."""
    assert memory.root is not None and memory.looked is not None
    if memory.looked.graph is None:
        return Verdict(UNINFORMATIVE, "no answer")
    hidden = [word for word in memory.unseen(context.sight) if word not in memory.coarse]  # a man: a person
    why, failure = unanswered(memory.root, lambda cls: bool(memory.seen(cls)), hidden,
                              memory.looked.threshold, {p.cls for p in memory.presumed(context.sight)})
    return Verdict(UNINFORMATIVE, why, failure=failure or None)
