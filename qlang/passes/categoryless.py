"""Category-less filters: a GQA value no category is known to have is filtered by none.

GQA filters and verifies a value without a category (`filter_any`, `verify_attr(any, ...)`)
when its attribute file lists the value under no category and its programs give it none
(`qlang.train.categories`).  A translator meeting such a value ("the ripe orange") still picks
a category, since most filters have one: `filter(color, ripe)` checks, as every category admits
the values none claims, but no question means it.  `categoryless` writes what GQA writes.
Words GQA does not know (an open vocabulary's) keep their category, and programs a user writes
are left as they are: only translations pass through here.

>>> from qlang.ir import op
>>> from qlang.ontology import load
>>> print(categoryless(op("filter", op("select", op("scene"), "orange"), "color", "ripe"), load()))
filter_any(select(scene(), orange), ripe)
>>> print(categoryless(op("verify_attr", op("unique", op("select", op("scene"), "man")),
...                       "face expression", "happy"), load()))
verify_attr(unique(select(scene(), man)), face expression, happy)
"""

from __future__ import annotations

from qlang.ir import Lit, Node, postorder
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, Ontology

#: the operations that give a value a category (their literals: category, value), and the
#: operation and leading literals each is written with when the value has none
_WITHOUT_CATEGORY: dict[str, tuple[str, tuple[Lit, ...]]] = {
    "filter": ("filter_any", ()),
    "verify_attr": ("verify_attr", (Lit(ANY_CATEGORY),)),
}


def categoryless(root: Node, ontology: Ontology) -> Node:
    """`root` with every value that has no known category filtered and verified without one."""
    rebuilt: dict[Node, Node] = {}
    for node in postorder(root):
        op, args = node.op, tuple(rebuilt[a] if isinstance(a, Node) else a for a in node.args)
        if op in _WITHOUT_CATEGORY:
            category, value = node.literals[:2]
            if category != ANY_CATEGORY and category not in CLASS_CATEGORIES and ontology.categoryless(value):
                op, leading = _WITHOUT_CATEGORY[op]
                args = (*(a for a in args if isinstance(a, Node)), *leading, Lit(value))
        rebuilt[node] = Node(op, args, node.span)
    return rebuilt[root]
