"""The categories GQA's programs give to values no attribute category lists.

The attribute file leaves many values unclaimed (`qlang.ontology`), and GQA's programs treat
them two ways: `happy` is filtered by `face expression` and `cloth` by `material`, while `open`,
`parked` and `ripe` are filtered by none (`filter_any`).  Among the 3,091 real questions in the
shared data, a value whose category no other question shows is filtered category-less 35 times
in 40.  What the real training pairs show is the record `qlang.ontology` loads
(`program_categories.json`) and `qlang.passes.categorise` consults: a translator that gives
such a value a category nobody gives it has invented one.
"""

from __future__ import annotations

from collections.abc import Iterable

from qlang.errors import QlangError
from qlang.ir import postorder
from qlang.ontology import ANY_CATEGORY, Ontology
from qlang.passes.categorise import NAMING
from qlang.syntax import gqa
from qlang.train.pairs import Pair


def program_categories(pairs: Iterable[Pair], ontology: Ontology) -> dict[str, list[str]]:
    """Per value no attribute category lists, the categories the real pairs' GQA programs give
    it (sorted; `any` left out: it is no category).  Pairs made by templates or substitution
    (without GQA's `semantic`) say nothing of GQA's habits and are skipped, as is a program
    that does not convert."""
    found: dict[str, set[str]] = {}
    for pair in pairs:
        semantic = pair.record.get("semantic")
        if semantic is None:
            continue
        try:
            root = gqa.to_ir(gqa.steps_from_json(semantic))
        except QlangError:
            continue
        for node in postorder(root):
            if node.op not in NAMING:
                continue
            category, value = node.literals[:2]
            if category != ANY_CATEGORY and not ontology.category_of(value):
                found.setdefault(value, set()).add(category)
    return {value: sorted(categories) for value, categories in sorted(found.items())}
