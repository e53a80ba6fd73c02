"""Hypothesis strategies for well-typed programs, generated from the operation table.

Every operation of `SIGNATURES` can appear; operand types and literal kinds come from its
signature, literal words from the bundled GQA ontology (values narrowed to the attribute
category of the same node), so every generated program passes the checker.  `cases` draws a
small scene graph and a program over mostly its own words, for the differential tests, and
`knowledge_triples` a small knowledge graph over the same words, `evidence` what documents say
about its objects; `mutated`
breaks a text a little, for the parsers' fuzzing; `hostile_words` are open-vocabulary words no
reader may misread, for the printers; `texts` are free-text literals, hostile ones among them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from qlang.ir import Lit, Node
from qlang.knowledge.triples import Triple
from qlang.ontology import load
from qlang.passes.vocabulary import RELATION_NAMES
from qlang.passes.vocabulary import words as vocabulary_words
from qlang.signatures import CLOSED_KINDS, MAX_TEXT, SIGNATURES, Kind, Signature, Type
from qlang.text.evidence import Evidence, Snippet

_ONTOLOGY = load()
_WORDS = {kind: sorted(vocabulary_words(kind)) for kind in Kind}
_ADMISSIBLE = {cat: sorted(values) for cat, values in _ONTOLOGY.admissible.items()}
#: The smallest program of each type: where generation stops when the depth runs out.
_LEAF_OPS = {Type.OBJECTS: "scene", Type.OBJECT: "unique", Type.BOOL: "exist", Type.VALUE: "query"}


#: free texts that would break a reader or ASP if anything were spelled unquoted or unescaped
HOSTILE_TEXTS = ('a"). #show x/0. b("', "x :- not y.", '\\"', "%*", "end(0).", "_", "var1 = scene()",
                 "What is it used for?", "wet paint", "  spaced  ", "ü ß 中文 ok", "select: x->y [0]")


def texts() -> st.SearchStrategy[str]:
    """Free-text literals the checker accepts: printable, not blank, at most `MAX_TEXT` long."""
    characters = st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")) \
        | st.sampled_from(' "\\_%.():-#')
    drawn = st.text(characters, min_size=1, max_size=MAX_TEXT).filter(lambda t: bool(t.strip()))
    return st.one_of(st.sampled_from(HOSTILE_TEXTS), drawn)


def words(kind: Kind, category: str | None = None) -> st.SearchStrategy[str]:
    if kind is Kind.TEXT:
        return texts()
    if kind is Kind.VALUE and category in _ADMISSIBLE:
        return st.sampled_from(_ADMISSIBLE[category])
    if kind in CLOSED_KINDS:
        return st.sampled_from(CLOSED_KINDS[kind])
    return st.sampled_from(_WORDS[kind])


def _other_than(taken: frozenset[str]) -> Callable[[str], bool]:
    return lambda word: word not in taken


#: the words a literal of a kind may be, given the attribute category of its node so far
Vocabulary = Callable[[Kind, str | None], st.SearchStrategy[str]]


@st.composite
def literals(draw: st.DrawFn, signature: Signature, vocabulary: Vocabulary = words) -> list[Lit]:
    """The literals of a `signature`'s node; a choice's alternatives differ, as the checker
    requires (from the whole vocabulary of their kind where `vocabulary` offers one word)."""
    result: list[Lit] = []
    category = None
    for position, kind in enumerate(signature.literals):
        pool = vocabulary(kind, category)
        if position in signature.alternatives:
            taken = frozenset(result[i].value for i in signature.alternatives if i < position)
            pool = st.one_of(pool, words(kind, category)).filter(_other_than(taken)) if taken else pool
        word = draw(pool)
        category = word if kind is Kind.ATTR else category
        result.append(Lit(word))
    return result


def _differs(first: Node) -> Callable[[Node], bool]:
    return lambda node: node != first


@st.composite
def nodes(draw: st.DrawFn, result: Type, depth: int, vocabulary: Vocabulary = words) -> Node:
    """A well-typed node yielding `result`, at most about `depth` operations deep."""
    fitting = sorted(s.name for s in SIGNATURES.values() if result.accepts(s.result))
    name = _LEAF_OPS[result] if depth <= 0 else draw(st.sampled_from(fitting))
    signature = SIGNATURES[name]
    operands: list[Node] = []
    for operand in signature.operands:
        if operands and signature.symmetric:  # its two operands differ, as the checker requires
            # (at least one operation deep: the smallest programs of a type are all one program)
            drawn = nodes(operand, max(depth - 1, 1), vocabulary).filter(_differs(operands[0]))
        else:
            drawn = nodes(operand, depth - 1, vocabulary)
        operands.append(draw(drawn))
    return Node(name, (*operands, *draw(literals(signature, vocabulary))))


def programs(max_depth: int = 5, vocabulary: Vocabulary = words) -> st.SearchStrategy[Node]:
    """Whole programs: their root yields an answer."""
    return st.tuples(st.sampled_from([Type.BOOL, Type.VALUE]), st.integers(1, max_depth)).flatmap(
        lambda spec: nodes(spec[0], spec[1], vocabulary))


#: characters mutations insert: the punctuation of every syntax, and a few letters and digits
MUTATION_ALPHABET = "()[],.:=->_ \n\"'%|?\\abcdez019"


#: characters of hostile open-vocabulary words: those of mutations, and the spaces readers strip
HOSTILE_ALPHABET = MUTATION_ALPHABET + "\t\r\u00a0\u2028\0"
#: words some syntax reads as its own (GQA: the whole scene, any class, relate_attr, negate, object
#: ids, the attribute name; a code-like variable; an ASP keyword)
SPECIAL_WORDS = ("scene", "_", "same color", "not(red)", "cup (1)", "type", "rel", "any", "var1", "not")


def hostile_words(kind: Kind, category: str | None) -> st.SearchStrategy[str]:
    """Open-vocabulary words from `HOSTILE_ALPHABET` or `SPECIAL_WORDS`, among real ones;
    directions and modes stay the closed words they are."""
    if kind in CLOSED_KINDS or kind in (Kind.KREL, Kind.TEXT):
        return words(kind, category)
    return st.one_of(words(kind, category), st.sampled_from(SPECIAL_WORDS),
                     st.text(HOSTILE_ALPHABET, max_size=6))


# --- small scenes, and programs over their words (for the differential tests) ---------------

NAMES = ("dog", "cat", "horse", "man", "woman", "car", "table", "shirt")
CATEGORIES = ("animal", "person", "vehicle", "furniture", "clothing")
VALUES = {
    "color": ("white", "black", "red"),
    "material": ("metal", "plastic", "wooden"),
    "size": ("large", "small"),
    "hposition": ("left", "middle", "right"),
    "vposition": ("top", "bottom"),
    "pose": ("standing",),
}
VALUES |= {"any": tuple(v for vs in VALUES.values() for v in vs), "name": NAMES,
           "class": NAMES + CATEGORIES, "place": ("beach",)}
ATTRIBUTES = (*(v for cat in ("color", "material", "size", "pose") for v in VALUES[cat]), "left")
RELATIONS = ("on", "near", "holding", "to the left of")
#: knowledge relations as programs write them (``related to`` is symmetric), and the words of
#: generated knowledge: the scenes' classes and values, and a few only knowledge has
KNOWLEDGE_RELATIONS = ("is a", "used for", "related to", "made of")
KNOWLEDGE_WORDS = (*NAMES, *CATEGORIES, "metal", "wooden", "white", "pet", "wheel", "riding")


@st.composite
def knowledge_triples(draw: st.DrawFn, max_size: int = 16) -> list[Triple]:
    """A small knowledge graph over `KNOWLEDGE_WORDS`, half of it ``is_a`` edges, so that `infer`
    finds members of classes (an edge drawn twice keeps its greatest weight in an index)."""
    word = st.sampled_from(KNOWLEDGE_WORDS)
    relation = st.one_of(st.just("is_a"), st.sampled_from([RELATION_NAMES[r] for r in KNOWLEDGE_RELATIONS]))
    return draw(st.lists(st.builds(Triple, word, relation, word, st.sampled_from((1.0, 0.9, 0.5, 0.2))),
                         max_size=max_size))


@st.composite
def scene_graphs(draw: st.DrawFn) -> dict[str, Any]:
    ids = [str(i) for i in range(draw(st.integers(2, 4)))]
    coordinate = st.integers(0, 290)
    objects = {
        oid: {"name": draw(st.sampled_from(NAMES)),
              "attributes": draw(st.lists(st.sampled_from(ATTRIBUTES), max_size=3, unique=True)),
              "relations": draw(st.lists(st.fixed_dictionaries(
                  {"name": st.sampled_from(RELATIONS), "object": st.sampled_from(ids)}), max_size=3)),
              "x": draw(coordinate), "y": draw(coordinate), "w": 10, "h": 10}
        for oid in ids
    }
    return {"width": 300, "height": 300, "objects": objects}


#: the texts of generated programs' text operations, few, so that generated evidence finds them
TEXTS = ("waterproof", "What is it used for?", "loud \"bass\"")
#: what generated documents answer and objects show
SAID = ("drinking", "STOP", "to the left of", "open 24 hours", "x_y")


@st.composite
def cases(draw: st.DrawFn, results: tuple[Type, ...] = (Type.BOOL, Type.VALUE), knowledge: bool = False,
          text: bool = False) -> tuple[dict[str, Any], Node]:
    """A scene and a program ending in one of `results`, whose classes and relations are mostly
    the scene's own, so that selections and relations find something; with `knowledge`, ending
    in an operation that reads knowledge; with `text`, holding a text operation near its root
    (`evidence` makes what its documents say)."""
    graph = draw(scene_graphs())
    objects = graph["objects"]
    edges = [(o["name"], r["name"], objects[r["object"]]["name"])
             for o in objects.values() for r in o["relations"]]
    # classes at the ends of the scene's relations first, so that relations find something
    present = {w for edge in edges for w in edge} or {o["name"] for o in objects.values()}

    def mostly_present(pool: tuple[str, ...]) -> tuple[str, ...]:
        """The words of the pool in the scene (a class category by a member), and one any."""
        found = [w for w in pool if w in present or load().class_members.get(w, frozenset()) & present]
        return (*found, draw(st.sampled_from(pool)))

    pools = {Kind.CLASS: mostly_present(NAMES + CATEGORIES), Kind.REL: mostly_present(RELATIONS),
             Kind.ATTR: tuple(VALUES), Kind.KREL: KNOWLEDGE_RELATIONS}

    def vocabulary(kind: Kind, category: str | None) -> st.SearchStrategy[str]:
        if kind is Kind.TEXT:
            return st.sampled_from(TEXTS)
        return st.sampled_from(CLOSED_KINDS.get(kind) or (VALUES[category or "any"] if kind is Kind.VALUE
                                                          else pools[kind]))

    spec = draw(st.tuples(st.sampled_from(results), st.integers(1, 4)))
    if text:
        reading = sorted(s.name for s in SIGNATURES.values() if s.documents)
        signature = SIGNATURES[draw(st.sampled_from(reading))]
        operands = [draw(nodes(t, spec[1] - 1, vocabulary)) for t in signature.operands]
        node = Node(signature.name, (*operands, *draw(literals(signature, vocabulary))))
        if not signature.result.is_answer:  # a set: asked about
            node = draw(st.sampled_from([Node("exist", (node,)),
                                         Node("query", (Node("unique", (node,)), Lit("name")))]))
        return graph, node
    if not knowledge:
        return graph, draw(nodes(*spec, vocabulary))
    signature = SIGNATURES[draw(st.sampled_from(sorted(s.name for s in SIGNATURES.values()
                                                        if s.knowledge and s.result in results)))]
    operands = [draw(nodes(t, spec[1] - 1, vocabulary)) for t in signature.operands]

    def known(kind: Kind, category: str | None) -> st.SearchStrategy[str]:
        """A class or value of the knowledge: one with members, or one only knowledge has."""
        return st.sampled_from(KNOWLEDGE_WORDS[len(NAMES):]) if kind in (Kind.CLASS, Kind.VALUE) \
            else vocabulary(kind, category)

    return graph, Node(signature.name, (*operands, *draw(literals(signature, known))))


@st.composite
def evidence(draw: st.DrawFn, graph: dict[str, Any]) -> Evidence:
    """What documents might say over a scene: each of `TEXTS` matching some objects, answered by
    some, and some objects showing texts, at a few costs (ties among them)."""
    ids = sorted(graph["objects"])
    costs = st.sampled_from((0, 105, 693, 1609))
    some = st.lists(st.sampled_from(ids), unique=True)
    matches = {t: {o: draw(costs) for o in draw(some)} for t in TEXTS}
    answers = {t: {o: Snippet(draw(st.sampled_from(SAID)), draw(costs)) for o in draw(some)} for t in TEXTS}
    shown = {o: tuple(Snippet(s, draw(costs)) for s in draw(st.lists(st.sampled_from(SAID), max_size=2,
                                                                  unique=True)))
             for o in draw(some)}
    return Evidence(matches, answers, shown)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """`text` with a few characters deleted, inserted, duplicated or swapped."""
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        match draw(st.sampled_from(["delete", "insert", "duplicate", "swap"])):
            case "delete":
                text = text[:i] + text[j:]
            case "insert":
                text = text[:i] + draw(st.text(MUTATION_ALPHABET, max_size=4)) + text[i:]
            case "duplicate":
                text = text[:j] + text[i:j] + text[j:]
            case "swap":
                text = text[:i] + text[j:] + text[i:j]
    return text
