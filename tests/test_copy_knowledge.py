"""The small parser copies the words of the knowledge in use (`ask --kb`), not the bundled base's
only; and the ASP theory's graph walks the knowledge's hops
(`qlang.asp.knowledge_facts.WalkedKnowledge`)."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from qlang.api import check, parse
from qlang.asp.knowledge_facts import WalkedKnowledge
from qlang.ir import Lit
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.relations import SYMMETRIC
from qlang.knowledge.triples import Triple
from qlang.ontology import load
from qlang.small.parser import SmallParser
from tests.conftest import run, write, yesno_examples

#: a word neither the ontology nor the bundled base has, which a user's knowledge file may
WORD = "porcelainware"
QUESTION = f"Is the cup usually made of {WORD}?"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A knowledge file of one real edge the bundled base lacks, and the real GQA scene (of the
    50 yes/no examples) that has a cup, as ASP facts."""
    folder = tmp_path_factory.mktemp("copy")
    kb = write(folder / "porcelain.tsv", f"cup\tmade_of\t{WORD}\n")
    facts = next(f for _, _, f in yesno_examples() if re.search(r"has_attr\(\d+, name, cup\)", f))
    return kb, write(folder / "cup.lp", facts)


def test_the_word_is_known_only_to_the_file(files: tuple[str, str]) -> None:
    assert Path(files[1]).read_text().count(", name, cup)") == 1  # so "the cup" is one object
    ontology = load()
    assert WORD not in ontology.classes | ontology.values
    assert not sources.knowledge([]).knows(WORD)
    assert sources.knowledge([files[0]]).knows(WORD)


def test_ask_copies_a_word_only_the_given_knowledge_knows(files: tuple[str, str]) -> None:
    """The cascade's small parser is sure of it, so no language model is loaded."""
    kb, scene = files
    code, out, _ = run("ask", QUESTION, "--scene", scene, "--kb", kb)
    assert code == 0
    assert f"program: verify_know(unique(select(scene(), cup)), made_of, {WORD})" in out
    assert "answer:  yes" in out


@pytest.mark.parametrize("kb", [[], ["--kb", "none"]], ids=["bundled", "none"])
def test_without_the_word_the_parser_writes_a_program_the_knowledge_checks(
        files: tuple[str, str], kb: list[str]) -> None:
    """Neither the bundled base nor no knowledge knows the word: the parser writes the same
    operation with a value of the vocabulary instead (its best is ``wood``), which checks against
    that knowledge, and no cup is made of it there."""
    _, scene = files
    code, out, err = run("ask", QUESTION, "--scene", scene, *kb, "--translator", "small")
    assert code == 0, err
    program = re.search(r"^program: (.*)$", out, re.M)
    assert program is not None and "answer:  no" in out
    root = parse(program[1])
    check(root, knowledge=Knowledge(()) if kb else None)
    assert program[1].startswith("verify_know(unique(select(scene(), cup)), made_of, ")
    assert isinstance(root.args[2], Lit) and root.args[2].value in load().values


@pytest.fixture(scope="module")
def parser() -> SmallParser:
    return SmallParser.load()


def test_the_parser_copies_against_the_bundled_base_by_default(parser: SmallParser) -> None:
    """``keratin`` is the bundled base's, not the ontology's: copied by default and from the
    base given, never from no knowledge; `programs` as `parse`."""
    question = "Is the horn usually made of keratin?"
    program = "verify_know(unique(select(scene(), horn)), made_of, keratin)"
    assert "keratin" not in load().values
    bundled, nothing = sources.knowledge([]), Knowledge(())
    for knowledge in (None, bundled):
        (best,) = parser.parse([question], knowledge)
        assert best.root == parse(program)
        assert parser.programs(question, knowledge)[0].root == parse(program)
    (best,) = parser.parse([question], nothing)
    assert best.root is not None and "keratin" not in best.tokens
    assert all("keratin" not in parsed.tokens for parsed in parser.programs(question, nothing))


WORDS = [["dog"], ["cup"], ["table", "water"], ["car", "dog", "pizza"]]
RELATIONS = [None, {"related_to"}, {"made_of"}, {"is_a", "synonym"}]


def _walked(knowledge: Knowledge, words: list[str], into: bool, relations: set[str] | None) -> set[Triple]:
    """The edges out of `words` (into them) as walked, from the knowledge's edges: each forwards,
    a symmetric one also backwards, turned to read from where the walk starts."""
    forwards = knowledge.edges(words, into=into, relations=relations)
    against = knowledge.edges(words, into=not into, relations=relations)
    return set(forwards) | {Triple(e.tail, e.relation, e.head, e.weight) for e in against
                            if e.relation in SYMMETRIC}


@pytest.mark.parametrize("relations", RELATIONS, ids=str)
@pytest.mark.parametrize("into", [False, True], ids=["out", "into"])
def test_the_theorys_graph_and_the_knowledge_take_the_same_hops(into: bool,
                                                                 relations: set[str] | None) -> None:
    """On the bundled base: `WalkedKnowledge.hops` is `Knowledge.hops` as walked, with GQA's hierarchy
    where ``is_a`` is asked; both are every edge, a symmetric one also backwards."""
    knowledge = sources.knowledge([])
    graph = WalkedKnowledge(knowledge)
    backwards = 0
    for words in WORDS:
        expected = _walked(knowledge, words, into, relations)
        hops = knowledge.hops(words, into=into, relations=relations)
        backwards += sum(hop.backward for hop in hops)
        assert {Triple(s.start, s.triple.relation, s.end, s.weight) for s in hops} == expected
        hierarchy = set(graph.hierarchy(words, into)) if relations is None or "is_a" in relations else set()
        assert set(graph.hops(words, into=into, relations=relations)) == expected | hierarchy
        limited = list((Counter(graph.hops(words, into=into, relations=relations, limit=3))
                        - Counter(hierarchy)).elements())
        assert len(limited) == min(3, len(expected))
        assert all(e.weight >= max((o.weight for o in expected - set(limited)), default=0) for e in limited)
    assert (backwards > 0) == (relations is None or "related_to" in relations)  # the symmetric one
