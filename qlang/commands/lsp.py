"""`qlangc lsp`: the language server, for editors (README "Editors")."""

from __future__ import annotations

import click

from qlang.lsp.server import build


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
    build(open_vocabulary).start_io()
