"""`--kb`, the option of every command that reads knowledge (`kb_option`, `knowledge_from`); and
with `--rules`, what the commands that answer questions solve them against besides the scene
(`background_options`, `background_from`), with `--rank` where they solve them
(`answering_options`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from qlang import limits
from qlang.commands.console import F, fail, read_source
from qlang.errors import QlangError
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.text import ranking

if TYPE_CHECKING:
    from qlang.asp.background import Background

kb_option = click.option(
    "--kb", "kb", multiple=True, metavar="FILE|default|none",
    help="Knowledge to use (repeatable): a TSV or ConceptNet file (indexed once, into the cache) "
         "or an index from `qlangc kb build`; 'default' is the bundled base, used when no --kb is "
         "given; 'none' is no knowledge.")


def knowledge_from(specs: tuple[str, ...]) -> Knowledge:
    """The knowledge `--kb` names (exit 1 where a file is bad)."""
    try:
        return sources.knowledge(specs)
    except QlangError as exc:
        fail(exc)


rules_option = click.option(
    "--rules", type=click.Path(dir_okay=False), metavar="FILE",
    help="A rules file (Horn rules with negation over the scene and knowledge, as "
         "examples/athlete.rules): what they derive, programs use as scene facts.")


def background_options(command: F) -> F:
    """`--kb` and `--rules`, on a command that answers questions."""
    return kb_option(rules_option(command))


rank_option = click.option(
    "--rank", type=click.Choice(ranking.RANKS), default=ranking.DEFAULT, show_default=True,
    help="How know and infer rank their paths: by the edges' weights, or by how well each "
         "path's words match the question as well (MiniLM embeddings).")


def answering_options(command: F) -> F:
    """`--kb`, `--rules` and `--rank`, on a command that solves questions."""
    return background_options(rank_option(command))


def background_from(kb: tuple[str, ...], rules: str | None, rank: str = ranking.DEFAULT) -> Background:
    """The knowledge `--kb` names and the rules `--rules` reads, checked once (exit 1 with every
    problem located where either is bad), the knowledge's paths ranked as `--rank` says.
    (Imported here: compile and check take these options but need clingo's side only with --kb
    or --rules.)"""
    from qlang.asp.background import Background
    from qlang.rules import read

    knowledge = knowledge_from(kb)
    if rules is None:
        return Background(knowledge, rank=rank)
    source = read_source(rules, limits.RULES)
    try:
        return Background(knowledge, read(source), rank)
    except QlangError as exc:
        fail(exc)
