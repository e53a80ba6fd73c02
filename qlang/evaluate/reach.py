"""How far perception reaches on a labelled photo question: whether what the bundled perceivers
find on the photo could give its labelled answer at all, whatever reasoning follows, so that
the seek experiment's report shows a ceiling beside each configuration's accuracy.

The photo is looked at again for the program's concepts (widened as `ask` widens them): at
`FLOOR`, keeping every box the detector proposes, every region the classifier names (from its
own least, 0.25) and every stuff cue, and at each configuration's cut, since the plain
background found outside the boxes kept is lost under the floor's many.  With each class's
best score of those looks, the question falls in the first of:

- **no program**: the configuration wrote none;
- **no label**: it names a word no perceiver has a label for (`Memory.unseen`: a class whose
  WordNet kinds a perceiver names, or "the man" taken for a person seen, is not counted);
- **no sound "no"**: its labelled answer is "no", a class it asks about is not found at the
  cut, and a "no" about it would rest on a perceiver that does not cover it or finds it too
  seldom (`qlang.vision.recall.blind_no`);
- **never seen**: a class it asks about is found at no score at all;
- **under the cut**: found, but only below the configuration's cut (`ask` keeps 0.4, seek
  looks closer down to 0.15);
- **in reach**: every class it asks about found at or above the cut, or a sound "no".

In reach is a bound, not a promise: the object found may be another, its colour misread, and a
class the answer names (the cup in "What is on the table?") is not known before answering.
The words are each configuration's own program's, so a wrong translation moves its reach too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from qlang.ir import Node
from qlang.seek import Context
from qlang.seek.memory import Looked, Memory, Programmed, Widened
from qlang.vision.recall import blind_no

#: The threshold of the look that finds what the perceivers find at any score.
FLOOR = 0.0
NO_PROGRAM, NO_LABEL, NO_SOUND_NO, NEVER_SEEN, UNDER_THE_CUT, IN_REACH = (
    "no program", "no label", 'no sound "no"', "never seen", "under the cut", "in reach")
#: The reasons in the order they are judged, the last the only one in reach.
REASONS = (NO_PROGRAM, NO_LABEL, NO_SOUND_NO, NEVER_SEEN, UNDER_THE_CUT, IN_REACH)


@dataclass(frozen=True)
class Probe:
    """What the perceivers found on a photo for one program, at any score."""

    root: Node
    #: its words no perceiver has a label for
    unknown: tuple[str, ...]
    #: each class it asks about -> the best score of an object found of it (0: none found); a
    #: presupposed class the perceivers cannot see ("the man"), of the class above it seen
    best: dict[str, float]


@dataclass(frozen=True)
class Reach:
    """Whether perception reaches a question's answer (`IN_REACH`), else why not, and the words
    that stop it."""

    why: str
    words: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"why": self.why, "words": list(self.words)}


def probe(root: Node, image: str, context: Context) -> Probe:
    """The photo looked at for the program's concepts at `FLOOR` and at each cut a
    configuration keeps, the best of them: a look at the floor keeps every box, under which the
    plain background a photo shows outside them is lost."""
    looks = [_look(root, image, context, threshold)
             for threshold in (FLOOR, context.closer, context.vision.thresholds.detection)]
    unknown = tuple(word for word in looks[0].unknown if all(word in look.unknown for look in looks))
    return Probe(root, unknown, {cls: max(look.best[cls] for look in looks) for cls in looks[0].best})


def _look(root: Node, image: str, context: Context, threshold: float) -> Probe:
    """What one look at `threshold` found, the program's classes widened as `ask` widens them."""
    from qlang.vision import perceiving

    memory = Memory(None, image)
    memory.add(Programmed("given", root))
    classes = memory.classes()
    memory.add(Widened.by_wordnet(context.sight, classes))
    concepts = memory.concepts()
    thresholds = replace(context.vision.thresholds, detection=threshold)
    perceived = perceiving.perceive(image, concepts, context.loaded_perceiver(), thresholds, context.stages)
    memory.add(Looked(perceived.graph, perceived.facts, threshold, concepts))
    above = {p.cls: p.above for p in memory.presumed(context.sight)}
    best = {cls: max((s.confidence for s in memory.seen(above.get(cls, cls))), default=0.0)
            for cls in classes}
    return Probe(root, tuple(memory.unseen(context.sight)), best)


def reach(found: Probe | None, gold: str, cut: float, context: Context) -> Reach:
    """How far perception reaches the `gold` answer when objects below `cut` are not kept."""
    if found is None:
        return Reach(NO_PROGRAM)
    if found.unknown:
        return Reach(NO_LABEL, found.unknown)
    missing = tuple(cls for cls, score in found.best.items() if score < cut)
    if missing and gold.strip().lower() == "no":
        blind = blind_no(context.sight, found.root, "no", cut)
        return Reach(NO_SOUND_NO, blind) if blind else Reach(IN_REACH)
    if never := tuple(cls for cls in missing if found.best[cls] == 0.0):
        return Reach(NEVER_SEEN, never)
    return Reach(UNDER_THE_CUT, missing) if missing else Reach(IN_REACH)
