"""MkDocs hook: the repository files the docs link to become files of the site.

A page links to `../bench/README.md` or `../reports/seek/seek.png` as the repository lays them
out, so the link works where the Markdown is read (an editor, a forge) and on the site alike.
MkDocs only knows the files under `docs/`; this hook adds every linked file outside it that
exists (Markdown ones as pages, whose own links are followed in turn), under `repository/` in
the site.  A link to a file that does not exist is left alone, so `mkdocs build --strict` still
fails on it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel

#: a Markdown link's or image's target, up to an anchor, a title or the closing parenthesis
LINK = re.compile(r"\]\(([^)#\s]+)")
#: where the linked repository files live in the site
PREFIX = "repository/"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    docs = Path(config.docs_dir)
    pending = [f for f in files if f.src_uri.endswith(".md")]
    while pending:
        page = pending.pop()
        text = (docs / page.src_uri).read_text(encoding="utf-8")
        for target in LINK.findall(text):
            uri = posixpath.normpath(posixpath.join(posixpath.dirname(page.src_uri), target))
            if not uri.startswith("../") or uri in files.src_uris or "://" in target:
                continue
            if not (docs / uri).is_file():
                continue  # MkDocs reports it: the strict build fails
            added = File(uri, str(docs), config.site_dir, config.use_directory_urls,
                         dest_uri=_destination(uri), inclusion=InclusionLevel.NOT_IN_NAV)
            files.append(added)
            if uri.endswith(".md"):
                pending.append(added)
    return files


def _destination(uri: str) -> str:
    """`../bench/README.md` -> `repository/bench/README.html`; other files keep their name."""
    inside = PREFIX + uri.removeprefix("../")
    return inside[:-3] + ".html" if inside.endswith(".md") else inside
