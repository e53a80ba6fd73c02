"""Differential test: the ASP back end and the Python interpreter agree on random scenes.

Hypothesis draws small scene graphs (a few objects named from the ontology, attributes,
relations, boxes) and well-typed programs over the same small vocabulary, so that selections
find something.  Both back ends see the same scene: the ASP side through its scene encoder
(`qlang.asp.scene`), the interpreter through `Scene.from_json`, with the ontology as its only
membership source (`Membership(wordnet=False)`), which decides class and category membership exactly as
the encoder does.  Every distinct answer ASP can give (top-k until exhausted: a certain scene
costs nothing, so every model is optimal) must be an answer of the interpreter over its choices
(`evaluate(...).answers`), and the other way round; no answer on one side means none on the
other (an empty `unique`, a query with no value: ASP has no model, the interpreter raises).

Where the two semantics legitimately differ, and the cases excluded with `assume`:

* ``unique`` over several objects: ASP chooses one (by weight; all weights are equal here), the
  interpreter tries each and `interpret` raises `AmbiguousAnswer` when they disagree.  Not
  excluded: comparing answer *sets* makes the two agree.
* Knowledge the scene graph lacks (`KNOWLEDGE_ERRORS`): the interpreter refuses to compare
  objects by a category one of them has no value of (``two_different`` of a red and an
  uncoloured object), to answer a ``place`` from objects, or to place a value the ontology lists
  under no category (``wooden``, which the encoder files under ``any`` only); the theory treats a
  missing value as a difference or a mismatch.  Excluded whenever any choice raised one.
* WordNet: `select animal` finds a horse in the interpreter by WordNet hyponymy even when the
  ontology does not list it; ASP knows only the ontology's ancestors.  Not compared: WordNet is
  off here (tested on its own in test_interpret.py).
* Scene-wide ``location`` (indoors/outdoors) exists only for the interpreter; never generated.

The text operations (``match``, ``extract``, ``read``) read what Python found in the scene's
documents before solving (`qlang.text.evidence`): nothing in most tests, generated evidence in the
test of programs holding them, the ASP side through the facts `qlang.asp.text_facts` makes.

The knowledge operations (``know``, ``verify_know``, ``infer``) read a knowledge graph, the same
on both sides: none but GQA's class hierarchy in most tests, and a generated one (`knowledge_triples`)
in the test of programs ending in them; the ASP side gets the facts `qlang.asp.knowledge_facts` grounds
for the question, so its bounds are tested too (a generated graph never reaches them).

Under the seed thesis's semantics (`semantics="thesis"`, §4.1) the interpreter departs from the
theory by exactly two rules, and a test holds it to that: a relation finding nothing raises
`MissingEdge`, and a choice answers with its first option that holds.  Wherever neither rule
applies, its answers are the theory's.

The thesis's theory (`solve(..., semantics="thesis")`, theory/semantics/thesis.lp) chooses the
value of ``query``, ``choose_attr`` and ``common`` among the value domain and ``choose_rel``'s
among the edges to the class, so it departs from qlang's wherever such a step does not find
exactly one value (one edge) in the scene: with none it guesses, with several it has no answer.
The last test holds it to the interpreter (qlang semantics) wherever every such step finds one.
"""

from __future__ import annotations

import json
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from qlang.asp import knowledge_facts, text_facts
from qlang.asp.background import Background
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.errors import Source
from qlang.interpret import KNOWLEDGE_ERRORS, Membership, MissingEdge, Scene, evaluate, sanitize
from qlang.ir import Node, postorder
from qlang.knowledge import graph as knowledge_graph
from qlang.knowledge.index import build
from qlang.knowledge.triples import Triple
from qlang.ontology import load
from qlang.passes.lower import facts
from qlang.signatures import Type
from qlang.text.documents import Documents
from qlang.text.evidence import NOTHING, Evidence
from qlang.text.gather import Texts
from tests import strategies
from tests.strategies import cases, evidence, knowledge_triples, scene_graphs

#: No knowledge base: the knowledge operations read GQA's class hierarchy alone.
NO_KNOWLEDGE = knowledge_graph.Knowledge(())
#: No documents beside the evidence a test states (not the bundled glosses).
NO_DOCUMENTS = Background(texts=Texts(Documents()))


def asp_answers(root: Node, graph: dict[str, Any], semantics: str = "qlang",
                knowledge: knowledge_graph.Knowledge = NO_KNOWLEDGE, text: Evidence = NOTHING
                ) -> frozenset[str]:
    question = facts(root)
    classes = {c for o in graph["objects"].values() for c in (o["name"], *load().ancestors(o["name"]))}
    scene = "\n".join([SceneLibrary(Source(json.dumps(graph))).facts(),
                       *(f"{s}." for s in knowledge_facts.facts(knowledge, question, classes)),
                       *(f"{s}." for s in text_facts.facts(text, question))])
    found: set[str] = set()
    while True:  # every distinct answer: ask for one more than found until none is new
        options = SolveOptions(top_k=len(found) + 1, distinct=True, semantics=semantics,
                               background=NO_DOCUMENTS)
        answers = {a.value for a in solve(question, scene, options).answers}
        if answers <= found:
            return frozenset(sanitize(a) for a in found)
        found |= answers


def agree(graph: dict[str, Any], root: Node, semantics: str = "qlang",
          knowledge: knowledge_graph.Knowledge = NO_KNOWLEDGE, text: Evidence = NOTHING) -> None:
    """Both back ends give the same answers, outside the excluded cases (module docstring)."""
    outcome = evaluate(root, Scene.from_json(graph), Membership(wordnet=False), knowledge=knowledge,
                       text=text)
    assume(not any(isinstance(f, KNOWLEDGE_ERRORS) for f in outcome.failures))
    assert asp_answers(root, graph, semantics, knowledge, text) == outcome.answers, \
        (str(root), graph, outcome.failures)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_asp_and_interpreter_agree(case: tuple[dict[str, Any], Node]) -> None:
    agree(*case)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(knowledge=True), triples=knowledge_triples())
def test_asp_and_interpreter_agree_over_generated_knowledge(case: tuple[dict[str, Any], Node],
                                                           triples: list[Triple]) -> None:
    """know, verify_know and infer over a generated knowledge graph (and GQA's hierarchy)."""
    with TemporaryDirectory() as folder:
        agree(*case, knowledge=knowledge_graph.Knowledge([build(triples, Path(folder) / "k.sqlite", {})]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(text=True), data=st.data())
def test_asp_and_interpreter_agree_over_generated_documents(case: tuple[dict[str, Any], Node],
                                                           data: st.DataObject) -> None:
    """match, extract and read over what generated documents say about the scene's objects."""
    graph, root = case
    agree(graph, root, text=data.draw(evidence(graph)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=scene_graphs(), root=strategies.programs(max_depth=4))
def test_asp_and_interpreter_agree_over_the_whole_vocabulary(graph: dict[str, Any], root: Node) -> None:
    """The shared strategy's programs: every word of the ontology, mostly finding nothing."""
    agree(graph, root)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_the_thesis_semantics_departs_from_asp_only_by_its_two_rules(
        case: tuple[dict[str, Any], Node]) -> None:
    graph, root = case
    scene = Scene.from_json(graph)
    thesis = evaluate(root, scene, Membership(wordnet=False), semantics="thesis", knowledge=NO_KNOWLEDGE)
    assume(not any(isinstance(f, KNOWLEDGE_ERRORS) for f in thesis.failures))
    chooses = any(n.op in ("choose_attr", "choose_rel") for n in postorder(root))
    if any(isinstance(f, MissingEdge) for f in thesis.failures) or chooses:
        qlang_answers = evaluate(root, scene, Membership(wordnet=False), knowledge=NO_KNOWLEDGE).answers
        assert thesis.answers <= qlang_answers, (str(root), graph)  # it only refuses or picks
        return
    assert asp_answers(root, graph) == thesis.answers, (str(root), graph, thesis.failures)


def finds_one(node: Node, graph: dict[str, Any]) -> bool:
    """Whether a query/choose/common step finds exactly one value (choose_rel: one edge) for
    each object its input may be."""
    scene, membership = Scene.from_json(graph), Membership(wordnet=False)
    if node.op != "choose_rel":
        outcome = evaluate(node, scene, membership, knowledge=NO_KNOWLEDGE)
        return len(outcome.answers) == 1 and not outcome.failures
    cls, rel0, rel1, direction = node.literals
    picked = evaluate(node.operands[0], scene, membership)
    objects = graph["objects"]
    for x in picked.answers:
        if direction == "subject":  # edges has_rel(O', R, x)
            edges = {(o, r["name"]) for o, obj in objects.items() for r in obj["relations"]
                     if r["object"] == x and membership.is_a(obj["name"], cls)}
        else:  # edges has_rel(x, R, O')
            edges = {(r["object"], r["name"]) for r in objects[x]["relations"]
                     if membership.is_a(objects[r["object"]]["name"], cls)}
        if len({edge for edge in edges if edge[1] in (rel0, rel1)}) != 1:
            return False
    return bool(picked.answers) and not picked.failures


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=cases(results=(Type.VALUE,)))  # ending in query, choose_* or common
def test_the_thesis_theory_agrees_wherever_each_choice_finds_one_value(
        case: tuple[dict[str, Any], Node]) -> None:
    graph, root = case
    assume(all(finds_one(n, graph) for n in postorder(root)
               if n.op in ("query", "choose_attr", "choose_rel", "common")))
    agree(graph, root, "thesis")
