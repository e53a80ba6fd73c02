"""The bundled default knowledge base: WordNet's relations among GQA's classes
(`wordnet_base`) and Pattern's commonsense network (`commonsense`), both from what installs
offline (WordNet from Debian's packages, as `make install` fetches it; the network is a file
of the package), indexed once into the project's cache.

`make install` builds it (``qlangc kb build default``); a checkout without it, or with a base
of an older `RECIPE`, builds it on first use, in about ten seconds (mostly loading WordNet).
Provenance and licences: ``qlang/data/knowledge/README.md``.
"""

from __future__ import annotations

from collections.abc import Iterator

from qlang import wordnet
from qlang.knowledge import commonsense, wordnet_base
from qlang.knowledge.index import Index, build
from qlang.knowledge.triples import KnowledgeError, Triple, failure
from qlang.paths import cache_dir

#: The version of how the base is made: a cached base of another recipe is built again.
RECIPE = "2"
INDEX = cache_dir("knowledge") / "default.sqlite"
SOURCE = "bundled: WordNet 3.0 (GQA's classes) and Pattern's commonsense network"


def triples() -> Iterator[Triple]:
    yield from wordnet_base.triples()
    yield from commonsense.triples()


def rebuild() -> Index:
    """Build the bundled base's index (again)."""
    try:
        return build(triples(), INDEX, {"source": SOURCE, "recipe": RECIPE}, force=True)
    except wordnet.WordNetMissing as exc:
        raise failure(f"the bundled knowledge base needs WordNet: {exc}", "--kb default") from None


def index() -> Index:
    """The bundled base's index, built first where it is missing, unreadable or of another
    recipe."""
    try:
        found = Index(INDEX) if INDEX.is_file() else None
    except KnowledgeError:
        found = None
    return found if found is not None and found.about.get("recipe") == RECIPE else rebuild()
