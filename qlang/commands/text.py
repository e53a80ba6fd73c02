"""`qlangc text`: documents matched, extracted from and read off photos, from the command line;
and `qlangc experiment text`, the three measured on qlang's labelled text set."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

from qlang.commands.console import fail, output_folder
from qlang.errors import QlangError
from qlang.text.documents import Documents


@click.command("text")
@click.option("--out", required=True, type=click.Path(file_okay=False),
              help="The folder for the log (results.jsonl), the report and its plot.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many questions of each set.")
@click.option("--baseline-only", is_flag=True, help="Only the lexical extractor (no language model).")
def text_experiment(out: str, limit: int | None, baseline_only: bool) -> None:
    """Recall@1/2/5/10/20 of match (bm25, dense), EM and F1 of extract (constrained, lexical) and
    OCR word accuracy, on the labelled set of qlang/data/text (NeuroQL's Figure 6)."""
    from qlang.evaluate import text
    from qlang.text.extract import Extractor, Lexical

    folder = output_folder(out, files=("results.jsonl", "report.md"))
    try:
        extractors: dict[str, Extractor] = {"lexical": Lexical()} if baseline_only \
            else text.default_extractors()
        report = text.run(folder, extractors, limit=limit, progress=lambda stage: click.echo(stage, err=True))
    except QlangError as exc:
        fail(exc)
    click.echo(f"report: {report}")


def docs_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--docs``: the documents asked (repeatable; none: the bundled glosses)."""
    return click.option("--docs", "docs", multiple=True, metavar="FILE|default|none",
                        help="A documents file (JSON lines {about, text, source}), default (WordNet's "
                        "glosses of GQA's classes, used when none is given) or none; repeatable.")(command)


def _documents(specs: tuple[str, ...]) -> Documents:
    from qlang.text import sources

    try:
        return sources.documents(specs)
    except QlangError as exc:
        fail(exc)


@click.group()
def text() -> None:
    """Documents: match them to a text, extract the span answering a question (constrained
    decoding or the lexical baseline), read the text a photo shows.

    Documents are JSON lines {about, text, source}, about an object id or a class; --docs
    names them (the bundled WordNet glosses of GQA's classes by default)."""


@text.command("match")
@click.argument("query")
@docs_option
@click.option("--retriever", type=click.Choice(["bm25", "dense"]), default="bm25", show_default=True)
@click.option("-k", "k", type=click.IntRange(min=1, max=10_000), default=5, show_default=True)
def match(query: str, docs: tuple[str, ...], retriever: str, k: int) -> None:
    """The K objects and classes whose documents best match QUERY: weight, what, best document."""
    from qlang.text import retrieve

    documents = _documents(docs)
    candidates: dict[str, list[int]] = {}
    for number, passage in enumerate(documents.documents):
        candidates.setdefault(passage.key, []).append(number)
    for found in retrieve.match(retrieve.retriever(retriever, documents), query, candidates, k):
        click.echo(f"{found.weight:.3f}\t{found.key}\t{documents.documents[found.document].text}")


@text.command("extract")
@click.argument("question")
@click.option("--about", required=True, multiple=True, help="An object id or a class whose documents "
              "are read (repeatable).")
@docs_option
@click.option("--extractor", type=click.Choice(["constrained", "lexical"]), default="constrained",
              show_default=True, help="The bundled language model under a grammar of the documents' "
              "spans, or the lexical baseline.")
def extract(question: str, about: tuple[str, ...], docs: tuple[str, ...], extractor: str) -> None:
    """The span of the documents about an object or class that answers QUESTION, quoted with
    the span marked [[thus]]; 'no answer' (exit 1) where they do not say."""
    from qlang.text.extract import Lexical

    documents = _documents(docs)
    try:
        if extractor == "lexical":
            answer = Lexical()(documents, documents.about(about), question)
        else:
            from qlang.translate.reader_model import constrained

            answer = constrained()(documents, documents.about(about), question)
    except QlangError as exc:
        fail(exc)
    if answer.span is None:
        click.echo("no answer")
        sys.exit(1)
    span = answer.span
    click.echo(span.text)
    click.echo(f"  {documents.marked(span.document, span.start, span.end)}")


@text.command("read")
@click.argument("image", type=click.Path(exists=True, dir_okay=False))
def read(image: str) -> None:
    """The regions of text IMAGE shows: confidence, class (words or number), box, text."""
    from qlang.text import ocr
    from qlang.vision.image import read as read_image

    try:
        regions = ocr.read(read_image(image))
    except QlangError as exc:
        fail(exc)
    for region in regions:
        box = ", ".join(f"{v:.0f}" for v in region.box)
        click.echo(f"{region.confidence:.3f}\t{region.kind}\t({box})\t{region.text}")
