"""The working memory (AVIS's M): what the tools have found so far, and what each of them may
still do.  It starts with the question (and the photo or scene, or a program); every output the
reasoner does not judge uninformative is added, and the tools' preconditions read it, so that no
tool runs twice on the same input.  `version` counts the changes that can change an answer: a
new program, a new look, new kinds of a class; solving is worth it only when it has moved.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from qlang.asp.outcome import Answer
from qlang.ir import Node, postorder
from qlang.ontology import load
from qlang.signatures import Kind, Type
from qlang.syntax import SYNTAXES
from qlang.vision.concepts import Concepts, expand, extract
from qlang.vision.kinds import coarsened, rules, widen
from qlang.vision.presume import Presumption, presume
from qlang.vision.sight import Sight, unseen


@dataclass(frozen=True)
class Programmed:
    """A program for the question, and which translator wrote it (or why none came)."""

    by: str
    root: Node | None
    error: str | None = None

    def brief(self) -> str:
        """The program in the nested syntax (or why there is none)."""
        return SYNTAXES["nested"].print(self.root) if self.root is not None else f"no program ({self.error})"


@dataclass(frozen=True)
class Seen:
    """One object of a look: its id in the scene, its name and how sure the perceiver is, and
    the further classes it answers to (a photo's subject is `this`, its words letters)."""

    id: str
    name: str
    confidence: float
    classes: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.name} {self.confidence:.2f}"


@dataclass(frozen=True)
class Looked:
    """A scene to answer over: a photo perceived (or a scene file read) at a threshold, as a
    graph (None for a scene given as ASP facts) and its facts."""

    graph: dict[str, Any] | None
    facts: str
    #: the least confidence of an object kept (0 for a scene file without confidences)
    threshold: float
    #: what it looked for (None: everything, a scene file)
    concepts: Concepts | None
    #: detections a classifier renamed (crop refinement)
    renamed: int = 0

    @property
    def objects(self) -> list[Seen]:
        """The objects, most confident first."""
        objects = (self.graph or {}).get("objects", {})
        seen = [Seen(oid, str(o["name"]), float(o.get("confidence", 1.0)),
                     tuple(map(str, o.get("classes", ())))) for oid, o in objects.items()]
        return sorted(seen, key=lambda s: -s.confidence)

    def brief(self) -> str:
        if self.graph is None:
            return "the scene's facts"
        objects = self.objects
        shown = ", ".join(map(str, objects[:6])) + (", ..." if len(objects) > 6 else "")
        at = f" at >= {self.threshold:g}" if self.threshold else ""
        renamed = f", {self.renamed} renamed by the classifier" if self.renamed else ""
        count = f"{len(objects)} object{'s' * (len(objects) != 1)}"
        return f"{count}{at}{renamed}" + (f": {shown}" if shown else "")

    @property
    def uncertain(self) -> bool:
        """Whether an object of it may not be there (a photo perceived, a weighted scene)."""
        return self.graph is not None and any(s.confidence < 1.0 for s in self.objects)


@dataclass(frozen=True)
class Widened:
    """Kinds that count as a class (`vehicle` <- motorcycle), from WordNet or the knowledge
    base, and the nearest class the perceiver sees above a class it does not (`man` -> person)."""

    source: str
    kinds: dict[str, frozenset[str]]
    coarse: dict[str, str] = field(default_factory=dict)
    #: the knowledge base's paths behind `kinds`, readable
    paths: tuple[str, ...] = ()

    @classmethod
    def by_wordnet(cls, sight: Sight, classes: list[str]) -> Widened:
        """Each of `classes` with its WordNet kinds the perceiver names, and the class above
        one it cannot see, all at once, as plain `ask` widens before it looks."""
        return cls("WordNet", widen(sight, classes), coarsened(sight, classes))

    def brief(self) -> str:
        parts = [f"{cls} <- {', '.join(sorted(names))}" for cls, names in self.kinds.items()]
        parts += [f"{cls} -> {above}" for cls, above in self.coarse.items()]
        return "; ".join(parts) or f"nothing from {self.source}"


@dataclass(frozen=True)
class Solved:
    """The distinct answers, best first, with their costs (-1000 ln p); or why there are none."""

    answers: tuple[Answer, ...]
    complete: bool = True
    error: str | None = None
    #: the cost of the likeliest scene, answer or not: each uncertain fact as it is likelier
    base: int = 0
    #: the facts the answers were solved with besides the scene's: "the man" taken to be one
    #: person seen (`qlang.vision.presume.readings`)
    reading: str = ""

    def brief(self) -> str:
        if self.error is not None:
            return f"no answer ({self.error})"
        if not self.answers:
            return "no answer"
        return ", ".join(f"{a.value} (cost {sum(a.cost)})" for a in self.answers)


@dataclass(frozen=True)
class Explained:
    """The objects an answer rests on, and the least sure link among them."""

    answer: str
    evidence: tuple[Seen, ...]
    confidence: float

    def brief(self) -> str:
        return f"{self.answer} rests on {', '.join(map(str, self.evidence)) or 'no object'}"


Output = Programmed | Looked | Widened | Solved | Explained


@dataclass
class Memory:
    question: str | None
    image: str | None = None
    #: a scene graph given (a GQA graph, or a weighted scene with confidences)
    scene: dict[str, Any] | None = None
    #: a scene given as ASP facts
    scene_facts: str | None = None
    program: Programmed | None = None
    #: every program kept, in order (a translator that repeats one finds nothing new)
    history: list[Programmed] = field(default_factory=list)
    #: (tool, the input it worked on): what has run, so that nothing runs twice on one input
    ran: set[tuple[str, Hashable]] = field(default_factory=set)
    looked: Looked | None = None
    kinds: dict[str, frozenset[str]] = field(default_factory=dict)
    coarse: dict[str, str] = field(default_factory=dict)
    #: (source, program) pairs already widened
    widened: set[tuple[str, Node]] = field(default_factory=set)
    solved: Solved | None = None
    solved_at: int = -1
    explained: Explained | None = None
    version: int = 0

    @property
    def programs(self) -> list[Node]:
        return [p.root for p in self.history if p.root is not None]

    @property
    def root(self) -> Node | None:
        return self.program.root if self.program is not None else None

    def add(self, output: Output) -> None:
        """Keep what a tool found (the reasoner found it worth keeping)."""
        match output:
            case Programmed(root=Node()):
                self.program, self.looked, self.solved, self.explained = output, None, None, None
                self.history.append(output)
                self.version += 1
            case Looked():
                self.looked, self.explained = output, None
                self.version += 1
            case Widened():
                for cls, names in output.kinds.items():
                    self.kinds[cls] = self.kinds.get(cls, frozenset()) | names
                self.coarse |= output.coarse
                self.version += 1
            case Solved():
                self.solved, self.solved_at = output, self.version
            case Explained():
                self.explained = output

    def concepts(self) -> Concepts:
        """What to look for: the program's concepts, widened by the kinds and coarse classes."""
        assert self.root is not None
        own = extract(self.root)
        extra = {name for names in self.kinds.values() for name in names} | set(self.coarse.values())
        return expand(Concepts(own.classes | extra, own.attributes, own.values, own.relations))

    def facts(self) -> str:
        """The scene's facts, and a rule for each kind: an object of that name is of the class."""
        assert self.looked is not None
        return "\n".join([self.looked.facts, *rules(self.kinds)])

    def seen(self, cls: str) -> list[Seen]:
        """The objects of the look that are of a class: by name, the ontology or a kind."""
        if self.looked is None:
            return []
        ontology = load()
        kinds = self.kinds.get(cls, frozenset())
        return [s for s in self.looked.objects
                if cls in s.classes or ontology.is_a(s.name, cls) or s.name in kinds]

    def unseen(self, sight: Sight) -> list[str]:
        """The program's words the perceiver cannot see (a scene file sees them all), but for a
        class whose kinds it sees, and a class the question presupposes that is taken to be an
        object seen (`presumed`)."""
        if self.root is None or self.image is None:
            return []
        presumed = {p.cls for p in self.presumed(sight)}
        return [word for kind, word in unseen(sight, self.root)
                if not (kind is Kind.CLASS and (self.kinds.get(word) or word in presumed))]

    def presumed(self, sight: Sight) -> list[Presumption]:
        """The classes the question presupposes ("the man") that are taken to be objects of the
        look, of the nearest class above them the perceiver sees (`coarse`, from widening)."""
        if self.root is None or self.image is None or self.looked is None:
            return []
        return presume(sight, self.root, self.looked.graph, self.coarse.get)

    def yes_no(self) -> bool:
        """Whether the program asks yes or no."""
        return self.root is not None and self.root.signature is not None \
            and self.root.signature.result is Type.BOOL

    def classes(self) -> list[str]:
        """The classes the program names, in step order."""
        assert self.root is not None
        return list(dict.fromkeys(word for node in postorder(self.root) if node.signature
                                  for kind, word in zip(node.signature.literals, node.literals, strict=False)
                                  if kind is Kind.CLASS))

