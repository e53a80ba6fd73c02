"""GATHER's ranker: `know` and `infer` rank their paths by the edges' weights, or by the
question as well (MiniLM embeddings of the question and each edge's words), end to end through
the solver and the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from qlang import api
from qlang.asp.background import Background
from qlang.asp.knowledge_facts import said
from qlang.asp.options import SolveOptions
from qlang.asp.scene import SceneLibrary
from qlang.asp.solve import solve
from qlang.commands.main import cli
from qlang.errors import QlangError, Source
from qlang.knowledge.graph import Knowledge
from qlang.knowledge.index import build
from qlang.knowledge.triples import Triple
from qlang.passes.lower import facts
from qlang.text import ranking
from tests.conftest import qlangc_process

#: two uses of a cup the weights tie on, and one a question about drinking should not prefer
EDGES = [Triple("cup", "used_for", "drinking", 0.6), Triple("cup", "used_for", "storing pencils", 0.6),
         Triple("cup", "used_for", "measuring flour", 0.5)]
PROGRAM = "know(unique(select(scene(), cup)), used_for)"


@pytest.fixture(scope="module")
def cups(tmp_path_factory: pytest.TempPathFactory) -> Knowledge:
    return Knowledge([build(EDGES, tmp_path_factory.mktemp("kb") / "cups.sqlite", {})])


def scene() -> str:
    cup = {"name": "cup", "x": 10, "y": 10, "w": 20, "h": 20, "attributes": [], "relations": []}
    return SceneLibrary(Source(json.dumps({"width": 300, "height": 300, "objects": {"1": cup}}))).facts()


def best(knowledge: Knowledge, rank: str, question: str | None) -> list[str]:
    background = Background(knowledge, rank=rank)
    query = facts(api.compile(PROGRAM, knowledge=knowledge))
    options = SolveOptions(3, distinct=True, background=background, question=question)
    return [a.value for a in solve(query, scene(), options).answers]


def test_weight_ranking_leaves_the_edges_as_they_are() -> None:
    assert ranking.ranked(EDGES, ranking.WEIGHT, "anything at all") == EDGES


def test_an_unknown_ranking_is_a_clear_error() -> None:
    with pytest.raises(QlangError, match="no ranking 'votes'"):
        ranking.checked("votes")


def test_an_edge_is_said_as_words_and_a_program_by_its_literals() -> None:
    assert ranking.said(EDGES[1]) == "cup used for storing pencils"
    assert said(facts(api.compile(PROGRAM))) == "cup used for"


def test_question_ranking_weighs_the_edge_the_question_is_about_most() -> None:
    weights = [e.weight for e in ranking.ranked(EDGES, ranking.QUESTION, "What do people keep pens in?")]
    assert weights[1] == max(weights)
    assert all(0 < w <= e.weight for w, e in zip(weights, EDGES, strict=True))


def test_the_question_reorders_the_solvers_answers(cups: Knowledge) -> None:
    """Tied weights: the weight ranking orders by the words, the question's by what it asks."""
    assert best(cups, ranking.WEIGHT, "What are pencils kept in?")[0] == "drinking"
    assert best(cups, ranking.QUESTION, "Where can I keep my pencils?")[0] == "storing pencils"
    assert best(cups, ranking.QUESTION, "What does one drink from a cup?")[0] == "drinking"
    # no English question: the program's own words, which favour no use of the cup over another's
    assert set(best(cups, ranking.QUESTION, None)) == {e.tail for e in EDGES}


def test_solve_takes_rank_on_the_command_line(tmp_path_factory: pytest.TempPathFactory) -> None:
    args = [*cups_files(tmp_path_factory.mktemp("cli")), "--top-k", "3", "--distinct"]
    ran = CliRunner().invoke(cli, [*args, "--rank", "question"])
    assert ran.exit_code == 0, ran.output
    assert {line.split("\t")[0] for line in ran.output.splitlines()} == {e.tail for e in EDGES}
    bad = CliRunner().invoke(cli, [*args, "--rank", "votes"])
    assert bad.exit_code == 2 and "votes" in bad.output



def cups_files(folder: Path) -> list[str]:
    """The cups' knowledge, scene and program as files: `solve`'s arguments for them."""
    (folder / "cups.tsv").write_text("".join(f"{h}\t{r}\t{t}\t{w}\n" for h, r, t, w in EDGES))
    (folder / "scene.lp").write_text(scene())
    (folder / "cup.qp").write_text(PROGRAM)
    return ["solve", "--program", str(folder / "cup.qp"), "--scene", str(folder / "scene.lp"),
            "--kb", str(folder / "cups.tsv")]


def test_the_ranker_loads_its_model_only_to_rank_a_path(tmp_path: Path) -> None:
    """Before, `--rank question` loaded torch and MiniLM as the background was made: 14 s and
    590 MB for a program with no knowledge operation, or one that failed its check."""
    (tmp_path / "q.qn").write_text("exist(select(scene(), cup))\n")
    (tmp_path / "s.lp").write_text(scene())
    probe = ("import sys\nfrom qlang.commands.main import main\n"
             "try:\n    main()\nexcept SystemExit:\n    print('torch' in sys.modules, file=sys.stderr)")
    args = ["solve", "--program", str(tmp_path / "q.qn"), "--scene", str(tmp_path / "s.lp"),
            "--rank", "question"]
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=False)
    assert done.stdout == "yes\n" and done.stderr.splitlines()[-1] == "False", done


def test_loading_the_rankers_model_is_no_questions_time(tmp_path: Path) -> None:
    """A fresh process takes seconds to load MiniLM; a half-second timeout still answers."""
    code, output = qlangc_process(*cups_files(tmp_path), "--rank", "question", "--timeout", "0.5")
    assert code == 0 and output.split("\t")[0] in {e.tail for e in EDGES}, output
