"""What a question is solved against besides the scene: knowledge and rules.

A `Background` is read and checked once per run (a command reads its rules file and opens its
knowledge bases), travels to batch workers by pickle (the checked rules as they are, the
knowledge as its indexes' paths) and becomes, for one question over one scene, what its clingo
Control gets beside the theory, the scene and the question:

- the rules' statements (`qlang.rules.statements`), lowered once per process;
- the knowledge facts the rules' ``know`` literals read (`rule_facts`): the edges of the
  relations they name that walks of as many steps as one rule has ``know`` literals take, out of
  the words a literal's head may be (a word of the rules, or the scene's where a scene literal
  binds it) and into the words its tail may be where its head is neither, at most `LIMIT` edges
  each way (the strongest); a symmetric relation's edges both ways; words spelled as the rules'
  lowering spells them.  (A literal bound by neither end to the scene or a word reads only what
  these walks reach: the rest of a base of millions of edges is never grounded.)
- the knowledge facts the question's operations read (`query_facts`, by
  `qlang.asp.knowledge_facts.facts`), for the scene's classes;
- what the question's text operations find in the documents (`Texts`: the bundled WordNet
  glosses unless others are given, and the texts the scene's objects show, a photo's words)
  about the scene's objects, as `qlang.asp.text_facts` states it.

The scene's words are read from clingo, not from the scene's text: the atoms
``has_attr(O, A, W)`` of the scene grounded with the rules (`words`), so that the classes the
rules derive count too (those they could derive only through knowledge do not choose which
knowledge is grounded).  That grounding is done only where some knowledge is read:
`qlang.asp.session.ground` does it per question, `GroundedScene` once per scene.  Without rules,
and with questions that read no knowledge, nothing is added at all.
"""

from __future__ import annotations

import atexit
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache

import clingo
from clingo import ast

from qlang import api
from qlang.asp import knowledge_facts, text_facts
from qlang.asp.query import Query
from qlang.asp.theory import parsed
from qlang.asp_names import from_term, to_symbol
from qlang.errors import Diagnostic, Source
from qlang.ir import Node
from qlang.knowledge.graph import Knowledge
from qlang.ontology import Ontology, load
from qlang.passes.lower import Fact
from qlang.rules.check import Rules
from qlang.rules.language import CLASS, Literal, Term, Var, Word
from qlang.rules.statements import add, lower
from qlang.signatures import SIGNATURES
from qlang.text import ranking
from qlang.text.gather import GLOSSES, Asked, Texts

#: The most knowledge edges a scene grounds for the rules (a hub of a large base has thousands).
LIMIT = 1000
#: The predicates of knowledge facts.
KNOWLEDGE = frozenset({"knowledge", "knowledge_cost"})
_CLASS, _NAME = to_symbol(CLASS), to_symbol("name")
#: The rules files lowered in this process, by identity (kept with them, so that an identity is
#: never reused), dropped at exit while clingo can still free its structures.
_LOWERED: dict[int, tuple[Rules, list[ast.AST]]] = {}
atexit.register(_LOWERED.clear)


@dataclass(frozen=True, slots=True)
class Words:
    """The words a scene's objects have (with what the rules derive): classes, and all; and for
    each class, the classes of the objects that have it (where a step's objects may start a walk)."""

    classes: frozenset[str]
    every: frozenset[str]
    together: dict[str, frozenset[str]] = field(default_factory=dict)
    #: each object's names, by its id as the scene writes it (whose documents it has)
    names: dict[str, frozenset[str]] = field(default_factory=dict)
    #: the texts each object shows (``has_text``: a photo's words), by its id
    shown: dict[str, tuple[str, ...]] = field(default_factory=dict)


#: The scene's words, read when first needed.
Lazy = Callable[[], Words]


class Background:
    """Knowledge bases and a rules file, either or both (None: none), how the knowledge
    operations rank their paths (`qlang.text.ranking`), and the documents the text operations
    read and how (by default the bundled glosses, searched by bm25 and the lexical extractor)."""

    def __init__(self, knowledge: Knowledge | None = None, rules: Rules | None = None,
                 rank: str = ranking.DEFAULT, texts: Texts = GLOSSES) -> None:
        self.knowledge = knowledge
        self.rules = rules
        self.rank = ranking.checked(rank)
        self.texts = texts

    def ontology(self) -> Ontology:
        """What programs over these rules are checked against: GQA's words and the rules' own."""
        return load() if self.rules is None else self.rules.declared.extend(load())

    def check(self, root: Node, *, open_vocabulary: bool = False, source: Source | None = None
              ) -> list[Diagnostic]:
        """A program's warnings against these rules' words and this knowledge's (`api.check`,
        which raises `CheckError` with its errors): every command checks a program so."""
        return api.check(root, open_vocabulary=open_vocabulary, source=source, ontology=self.ontology(),
                         knowledge=self.knowledge)

    def compile(self, text: str, syntax: str | None = None, *, name: str = "<input>") -> Node:
        """A program's text parsed, checked as `check` does and canonical (`api.compile`)."""
        return api.compile(text, syntax, name=name, ontology=self.ontology(), knowledge=self.knowledge)

    def statements(self) -> list[ast.AST]:
        """The rules as clingo statements (none without rules), lowered once per process."""
        if self.rules is None:
            return []
        kept = _LOWERED.get(id(self.rules))
        if kept is None:
            kept = _LOWERED[id(self.rules)] = (self.rules, lower(self.rules))
        return kept[1]

    @property
    def known(self) -> bool:
        """Whether there is knowledge to read (``--kb none`` is none)."""
        return self.knowledge is not None and bool(self.knowledge.indexes)

    def rule_facts(self, words: Lazy) -> list[clingo.Symbol]:
        """The knowledge facts the rules' ``know`` literals read, over a scene of these words."""
        if self.rules is None or self.knowledge is None or not self.known:
            return []
        out: set[str] = set()  # where walks start, forwards and backwards
        into: set[str] = set()
        named: list[Term] = []
        hops = 0
        for rule in self.rules.rules:
            known = [c.atom for c in rule.body if isinstance(c, Literal) and c.atom.predicate == "know"]
            scene = {t.name for c in rule.body if isinstance(c, Literal) and not c.negated
                     and c.atom.predicate != "know" for t in c.atom.args if isinstance(t, Var)}
            for head, relation, tail in (atom.args for atom in known):
                anchored = isinstance(head, Word) or head.name in scene
                out |= {head.value} if isinstance(head, Word) else words().every if anchored else set()
                into |= {tail.value} if isinstance(tail, Word) else \
                    words().every if not anchored and tail.name in scene else set()
                named.append(relation)
            hops = max(hops, len(known))
        relations = {r.value for r in named if isinstance(r, Word)} \
            if all(isinstance(r, Word) for r in named) else None
        steps = [*self.knowledge.reach(out, hops, relations=relations, limit=LIMIT),
                 *self.knowledge.reach(into, hops, into=True, relations=relations, limit=LIMIT)]
        edges = knowledge_facts.walked(step.triple for step in steps)
        return [knowledge_facts.stated(edge) for edge in edges]

    def ready(self, question: Query, semantics: str = "qlang") -> None:
        """Load what the question's knowledge operations need before its time starts: the
        ranker's model, by `question`, is a process's one-time cost, not a question's."""
        if reading(semantics).intersection(f.name for f in question):
            ranking.ready(self.rank)

    def query_facts(self, question: Query, words: Lazy, semantics: str = "qlang",
                    text: str | None = None) -> list[clingo.Symbol]:
        """The knowledge facts the question's operations read, over a scene of these words
        (with no knowledge base, GQA's class hierarchy still makes a car a vehicle for `infer`),
        ranked as `rank` says against the English question `text`, where there is one), and
        what its text operations find about the scene's objects."""
        found: list[clingo.Symbol] = []
        if reading(semantics).intersection(f.name for f in question):
            found += knowledge_facts.facts(self.knowledge or Knowledge(()), question, words().classes,
                                           together=words().together, rank=self.rank, text=text)
        asked = Asked.of((f.name, [str(a) for a in f.args[1 + len(SIGNATURES[f.name].operands):]])
                         for f in question if f.name in text_facts.READING)
        if asked:
            asked = replace(asked, within=_asked_of(question, words()))
            found += text_facts.facts(self.texts.evidence(words().names, asked, words().shown), question)
        return found

    def words(self, scene: str) -> Words:
        """The words the scene's objects have, with those the rules derive without knowledge:
        read off the scene grounded with the rules (a scene clingo rejects has none)."""
        ctl = clingo.Control(logger=lambda code, message: None)
        try:
            ctl.add("base", [], scene)
            add(ctl, self.statements())
            ctl.ground([("base", [])])
        except RuntimeError:
            return Words(frozenset(), frozenset())
        classes: set[str] = set()
        of: dict[clingo.Symbol, set[str]] = {}  # each object's classes
        every: set[str] = set()
        names: dict[str, set[str]] = {}
        for atom in ctl.symbolic_atoms.by_signature("has_attr", 3):
            thing, category, value = atom.symbol.arguments
            word = from_term(str(value))
            every.add(word)
            if category == _CLASS:
                classes.add(word)
                of.setdefault(thing, set()).add(word)
            elif category == _NAME:
                names.setdefault(from_term(str(thing)), set()).add(word)
        shown: dict[str, list[str]] = {}
        for atom in ctl.symbolic_atoms.by_signature("has_text", 2):
            thing, text = atom.symbol.arguments
            shown.setdefault(from_term(str(thing)), []).append(from_term(str(text)))
        together: dict[str, set[str]] = {}
        for own in of.values():
            for cls in own:
                together.setdefault(cls, set()).update(own)
        return Words(frozenset(classes), frozenset(every), {c: frozenset(w) for c, w in together.items()},
                     {o: frozenset(n) for o, n in names.items()}, {o: tuple(t) for o, t in shown.items()})


def _asked_of(question: Query, words: Words) -> dict[str, frozenset[str]]:
    """Per question an ``extract`` asks, the objects its input may hold: those named by a class
    its input's objects may have (`knowledge_facts.starts`, as a knowledge walk starts)."""
    steps: dict[int | str, Fact] = {f.args[0]: f for f in question}
    within: dict[str, set[str]] = {}
    for fact in question:
        if fact.name == "extract":
            classes = knowledge_facts.starts(steps, fact, set(words.classes), words.together)
            within.setdefault(str(fact.args[2]), set()).update(
                oid for oid, names in words.names.items() if not classes.isdisjoint(names))
    return {question: frozenset(objects) for question, objects in within.items()}


#: No knowledge base and no rules, what a question given no background is solved against (GQA's
#: class hierarchy still makes a car a vehicle for `infer`).
NOTHING = Background()


@cache
def reading(semantics: str = "qlang") -> frozenset[str]:
    """The operations whose theory rules read knowledge facts, directly or through predicates
    that rules of no operation derive from them."""
    statements = parsed(semantics).statements
    derived = set(KNOWLEDGE)
    for _ in statements:  # to a fixpoint: a chain of such predicates is at most this long
        more = {p for s in statements if not s.needs and s.reads & derived for p in s.writes}
        if more <= derived:
            break
        derived |= more
    return frozenset(op for s in statements if s.reads & derived for op in s.needs)

