"""`qlangc lsp`: the language server, qlang met in the editor.

Every answer is derived from what the command line already has: the parsers and their located
errors, the checker, the formatter and the converters (`qlang.api`), the operation table (what
each argument position of an operation holds) and the ontology (the words of each kind).  The
one thing made here is `calls`, a reading of a text being written that never fails, which tells
at any position which operation and argument it stands in.

- `languages`: which language a document is in (first-line marker, file extension, or a guess);
- `documents`: a document's text, its positions in the client's units, its analyses (cached);
- `calls`: the calls and words of a nested, code-like or flat text, as written;
- `diagnostics`, `completion`, `hover`, `navigation` (definitions, references, symbols),
  `edits` (formatting, conversion): one request each;
- `server`: the pygls server that answers them.
"""
