"""The README stays a short way in, and the documentation site's pages stay in step with it and
with the code (`make test` builds the site itself with `mkdocs build --strict`)."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).parents[1]


def _pages() -> dict[str, str]:
    return {page.name: page.read_text(encoding="utf-8")
            for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}


def _nav_pages(nav: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        target = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(target) if isinstance(target, list) else [str(target)]
    return pages


def test_the_readme_is_short() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 300


def test_the_readme_lists_every_page_of_the_site() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    listed = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", (ROOT / "README.md").read_text(encoding="utf-8")))
    pages = _nav_pages(nav)
    assert pages and listed == set(pages)
    assert all((ROOT / "docs" / page).is_file() for page in pages)


def test_the_readme_keeps_the_two_set_up_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo   # installs everything" in readme
    assert "make test   # installs everything" in readme


def test_the_architecture_page_shows_the_layers_lint_imports_checks() -> None:
    linter = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c["layers"] for c in linter["contracts"] if c["type"] == "layers")
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = page.split("<!-- layers -->\n```\n")[1].split("```\n<!-- /layers -->")[0]
    assert block.splitlines() == layers


#: names in the docs that are editor settings, not Python
SETTINGS = {"qlang.openVocabulary", "qlang.server.command"}


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for attr in parts[i:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        return True
    return False


def test_every_python_name_the_docs_cite_exists() -> None:
    """A rename that forgets the docs fails here rather than misleading a reader."""
    cited = {(page, name) for page, text in _pages().items()
             for name in re.findall(r"(?<![\w/])qlang(?:\.[A-Za-z_]\w*)+", text)}
    assert [cite for cite in sorted(cited) if cite[1] not in SETTINGS and not _resolves(cite[1])] == []


def test_every_repository_path_the_docs_cite_exists() -> None:
    """A module split or a moved file that forgets the docs fails here (globs aside)."""
    folders = "qlang|tests|bench|scripts|theory|grammars|examples|editors|reports|docs"
    cited = {(name, path.rstrip(".,:;)")) for name, text in _pages().items()
             for path in re.findall(rf"(?<![\w./-])((?:{folders})/[\w./*-]*)", text)}
    assert [cite for cite in sorted(cited) if "*" not in cite[1] and not (ROOT / cite[1]).exists()] == []
