"""Which language a document is written in: a first-line marker, else its file extension, else
the program syntax its text looks like (`qlang.syntax.detect`).

| extension | language |
|---|---|
| `.qn` | nested |
| `.qc` | code (code-like) |
| `.qf` | flat |
| `.qg` | gqa-str (GQA's `semanticStr`) |
| `.json` | gqa (GQA's JSON list of steps, or a question record) |
| `.rules` | rules |
| `.tsv` | knowledge (one triple a line) |

The marker is a comment of the language it names, so the text stays valid: ``% qlang: code``
(the program syntaxes comment with `%`), ``# qlang: rules``, ``# qlang: knowledge``.

>>> language_of("file:///tmp/q.txt", "% qlang: flat\\nscene(0). exist(1, 0). end(1).")
'flat'
>>> language_of("file:///tmp/q.qc", "exist(select(scene(), cat))"), language_of("untitled:1", "[]")
('code', 'gqa')
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import urlparse

from qlang.syntax import SYNTAXES, detect

RULES = "rules"
KNOWLEDGE = "knowledge"

#: The extension of each language, and so of the file a conversion writes.
EXTENSIONS = {**{name: syntax.extension for name, syntax in SYNTAXES.items()},
              RULES: ".rules", KNOWLEDGE: ".tsv"}
_BY_EXTENSION = {extension: language for language, extension in EXTENSIONS.items()}
#: The comment each language a marker may name starts with.
_COMMENTS = {**{name: syntax.comment for name, syntax in SYNTAXES.items() if syntax.comment},
             RULES: "#", KNOWLEDGE: "#"}
MARKER = re.compile(r"([%#])\s*qlang:\s*([a-z-]+)\s*$")


def language_of(uri: str, text: str) -> str:
    """The language of the document at `uri` whose text is `text`."""
    marked = marker(text)
    if marked is not None:
        return marked
    extension = posixpath.splitext(urlparse(uri).path)[1].lower()
    return _BY_EXTENSION.get(extension) or detect(text[:4096])


def marker(text: str) -> str | None:
    """The language a first-line marker names, if the text has one in that language's comment."""
    first = MARKER.match(text[:200].split("\n", 1)[0].strip())
    if first is None or _COMMENTS.get(first[2]) != first[1]:
        return None
    return first[2]


def path_for(uri: str, language: str) -> str | None:
    """The URI of the file beside `uri` with `language`'s extension (None unless a file URI
    that names a file: ``file://`` or a folder's has none to be beside).

    >>> path_for("file:///tmp/q.qc", "flat"), path_for("file://", "flat"), path_for("untitled:1", "flat")
    ('file:///tmp/q.qf', None, None)
    """
    parsed = urlparse(uri)
    root, _ = posixpath.splitext(parsed.path)
    if parsed.scheme != "file" or not posixpath.basename(root):
        return None
    return parsed._replace(path=root + EXTENSIONS[language]).geturl()
