"""GQA's categories: each value a translation filters or verifies, in the category GQA's
programs give it.

GQA filters and verifies a value without a category (`filter_any`, `verify_attr(any, ...)`)
when its attribute file lists the value under no category and its programs give it none
(`qlang.train.categories`), and with its category when it has one: among the 3,091 real
questions in the shared data, 1,195 of the 1,205 filters of a listed value name its category.
A translator does not always: meeting a value it never learnt ("the ripe orange") it picks a
category, since most filters have one, and `filter(color, ripe)` checks, as every category
admits the values none lists; or it writes `filter_any(playing)`, which checks too. No question
means either. `categorise` writes what GQA writes: no category for a value that has none, its
one category for a value filtered without one. A value of several categories keeps what the
translator gave it.

Words GQA does not know (an open vocabulary's) keep their category, and programs a user writes
are left as they are: only translations pass through here.

>>> from qlang.ir import op
>>> from qlang.ontology import load
>>> orange = op("select", op("scene"), "orange")
>>> print(categorise(op("filter", orange, "color", "ripe"), load()))
filter_any(select(scene(), orange), ripe)
>>> print(categorise(op("filter_any", orange, "playing"), load()))
filter(select(scene(), orange), activity, playing)
>>> print(categorise(op("verify_attr", op("unique", orange), "face expression", "happy"), load()))
verify_attr(unique(select(scene(), orange)), face expression, happy)
"""

from __future__ import annotations

from qlang.ir import Lit, Node, postorder
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, Ontology

#: the operations that name a value's category (their first literal), as GQA writes them
NAMING = frozenset({"filter", "verify_attr"})
#: the operations that filter or verify a value, with or without a category
_FILTERS = frozenset({"filter", "filter_any"})
_CATEGORISED = NAMING | _FILTERS


def categorise(root: Node, ontology: Ontology) -> Node:
    """`root` with every GQA value filtered and verified in the category GQA gives it."""
    rebuilt: dict[Node, Node] = {}
    for node in postorder(root):
        args = tuple(rebuilt[a] if isinstance(a, Node) else a for a in node.args)
        rebuilt[node] = Node(node.op, args, node.span)
        if node.op not in _CATEGORISED or node.signature is None or len(args) != node.signature.arity:
            continue  # what the checker refuses, it refuses as written
        *given, value = node.literals
        category = given[0] if given else ANY_CATEGORY
        settled = _settled(category, value, ontology)
        if settled != category:
            operand = next(a for a in args if isinstance(a, Node))
            rebuilt[node] = _written(node.op, operand, settled, value, node)
    return rebuilt[root]


def _settled(category: str, value: str, ontology: Ontology) -> str:
    """The category GQA gives `value` where a translation gave it `category`."""
    if category in CLASS_CATEGORIES or value not in ontology.categories[ANY_CATEGORY]:
        return category
    known = ontology.known_categories(value)
    if not known:
        return ANY_CATEGORY
    if category == ANY_CATEGORY and len(known) == 1:
        return next(iter(known))
    return category


def _written(op: str, operand: Node, category: str, value: str, source: Node) -> Node:
    if op in _FILTERS:
        if category == ANY_CATEGORY:
            return Node("filter_any", (operand, Lit(value)), source.span)
        return Node("filter", (operand, Lit(category), Lit(value)), source.span)
    return Node(op, (operand, Lit(category), Lit(value)), source.span)
