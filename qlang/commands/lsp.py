"""`qlangc lsp`: the language server, for editors (docs/editors.md)."""

from __future__ import annotations

import logging

import click

from qlang.errors import printable
from qlang.lsp.server import build


class _OneLine(logging.Formatter):
    """A log record as one line on standard error: what happened and the exception's message,
    never a traceback (pygls logs one for each message it cannot read)."""

    def format(self, record: logging.LogRecord) -> str:
        first = record.getMessage().split("\n", 1)[0]  # some put a traceback in the message itself
        message = f"qlangc lsp: {record.levelname.lower()}: {first}"
        if record.exc_info and record.exc_info[1] is not None:
            message += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
        return printable(message)


@click.command()
@click.option("--open-vocabulary", is_flag=True,
              help="Report unknown classes, attributes and relations as warnings, not errors "
                   "(the client's openVocabulary setting overrides it).")
@click.option("--stdio", is_flag=True, help="Speak over standard input and output (the only way; "
              "accepted because editors pass it).")
def lsp(open_vocabulary: bool, stdio: bool) -> None:
    """Run the language server over standard input and output: diagnostics, completion, hover,
    formatting, definitions, symbols and conversions for programs (.qn nested, .qc code, .qf
    flat, .qg gqa-str, .json gqa), rules (.rules) and knowledge files (.tsv)."""
    handler = logging.StreamHandler()
    handler.setFormatter(_OneLine())
    logging.basicConfig(level=logging.WARNING, handlers=[handler], force=True)
    build(open_vocabulary).start_io()
