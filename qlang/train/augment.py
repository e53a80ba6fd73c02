"""Data augmentation: new training pairs by consistent word substitution, in GQA's own phrasing.

A translator trained on a few thousand real pairs sees each class, value and relation in few
contexts.  `augment` swaps a program's words for others of the same ontology category (a class
for a class of the same class category, a value for a value of the node's attribute category, a
relation for a relation of the same grammatical form) in the program and in the question, so the
phrasing stays GQA's and only the vocabulary varies.

A word is swapped only where the question says it unambiguously: whole words, case-insensitive,
once or exactly as often as the program uses it, not inside a longer vocabulary phrase (`blue` in
"light blue", `in` in "in front of") and not overlapping another program word.  Anything else
stays as it was (GQA often says "animal" for the class `dog`), so question and program never
disagree.  Classes keep their number in the question ("shirts" -> "jackets", "man" -> "women"
never), "a"/"an" and a capital at the sentence start follow the new word, and a class keeps its
place in the hierarchy towards the program's other classes ("a lamb or a cow", asked of an
`animal`, become two other animals; a category word such as `animal` is never swapped).  Every
new program is checked.  A new pair's record drops what no longer holds (`STALE_FIELDS`: the
answer, the GQA semantic, ...) and names its source in `augmented_from`.

>>> from qlang.train.pairs import Pair
>>> steps = [("select", [], "apple (1)"), ("relate", [0], "man,holding,s (2)"), ("exist", [1], "?")]
>>> semantic = [{"operation": o, "dependencies": d, "argument": a} for o, d, a in steps]
>>> source = Pair("q2", "img", "Is there a man holding an apple?", "", "train",
...               {"semantic": semantic, "answer": "yes"})
>>> for new in augment([source], 2):
...     print(new.id, new.question, "|", new.program)
q2~aug0 Is there a soldier driving a pineapple? |
  exist(relate(select(scene(), pineapple), soldier, driving, subject))
q2~aug1 Is there a cowboy throwing a pineapple? |
  exist(relate(select(scene(), pineapple), cowboy, throwing, subject))
>>> new.record
{'question': 'Is there a cowboy throwing a pineapple?', 'augmented_from': 'q2'}
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from qlang.api import check
from qlang.errors import QlangError
from qlang.ir import Lit, Node, postorder
from qlang.ontology import ANY_CATEGORY, CLASS_CATEGORIES, Ontology, load
from qlang.passes.canonical import canonicalize
from qlang.paths import package_data
from qlang.phrases import names
from qlang.signatures import Kind
from qlang.syntax import SYNTAXES, gqa
from qlang.train.pairs import Pair
from qlang.words import article, plural, plural_only

#: Record fields that describe the source question and no longer hold for a substituted one.
STALE_FIELDS = ("annotations", "answer", "fullAnswer", "semantic", "semanticStr", "entailed",
                "equivalent", "groups")

#: Values a question never says as such (GQA's lemmatiser left them in the attribute file), or
#: that are no adjective ("the making a face man").
_ODD_VALUES = frozenset({"brushing tooth", "shaking hand", "adida", "performing trick",
                         "taking picture", "making a face"})
#: Relations too common or too odd to swap safely ("of" is in nearly every question).
_FIXED_RELATIONS = frozenset({"of", "contain", "hang from", "about to hit"})
_PREPOSITIONS = frozenset({"above", "across", "along", "alongside", "around", "at", "behind",
                           "below", "beneath", "beside", "between", "beyond", "by", "close",
                           "down", "in", "inside", "near", "next", "on", "outside", "over", "to",
                           "under", "underneath", "with", "within"})
_PARTICIPLES = frozenset({"drawn", "hidden", "hung", "kept", "seen", "sewn", "stuck", "worn"})
#: The class category that is no category: `air`, `away`, `back`, `antenna` ...
_GRAB_BAG = "name"
#: where a word is in the question: start, end, and whether in the plural (None: inside a
#: longer vocabulary phrase such as `blue` in "light blue", which makes the word unsafe to swap)
_Found = tuple[int, int, bool | None]
_WORD_EDGE = r"(?<![\w-]){}(?![\w-])"
_ARTICLE = re.compile(r"(?<![\w-])(an?)(\s+)$", re.IGNORECASE)
_WORDS_BEFORE = re.compile(r"(?:[\w-]+\s+){0,3}$")
_WORDS_AFTER = re.compile(r"^(?:\s+[\w-]+){0,3}")


@dataclass(frozen=True, slots=True)
class _Word:
    """A program word that may be swapped, where the question says it, and what it may become."""

    word: str
    pool: tuple[str, ...]
    spans: tuple[_Found, ...]


def augment(pairs: Sequence[Pair], copies: int, *, seed: int = 0,
            syntax: str = "nested") -> list[Pair]:
    """Up to `copies` new pairs per pair (only the new ones); the same for the same seed."""
    return [new for pair in pairs for new in _augment_one(pair, copies, seed, syntax)]


def _augment_one(pair: Pair, copies: int, seed: int, syntax: str) -> Iterator[Pair]:
    try:
        root = canonicalize(gqa.to_ir(gqa.steps_from_json(pair.record.get("semantic"))))
    except QlangError:
        return
    words = _swappable(root, pair.question, load())
    seen = {pair.question}
    for i in range(copies if words else 0):
        rng = random.Random(f"{seed}\0{pair.id}\0{i}")
        mapping: dict[str, str] = {}
        for word in words:
            free = [w for w in word.pool if not any(_overlapping(w, v) for v in mapping.values())]
            if free:
                mapping[word.word] = rng.choice(free)
        question = _rewrite(pair.question, words, mapping)
        new_root = _substitute(root, mapping)
        if question in seen or not _checks(new_root):
            continue
        seen.add(question)
        record = {k: v for k, v in pair.record.items() if k not in STALE_FIELDS}
        yield Pair(f"{pair.id}~aug{i}", pair.image, question, SYNTAXES[syntax].print(new_root),
                   pair.split, record | {"question": question, "augmented_from": pair.id})


def _checks(root: Node) -> bool:
    try:
        check(root)
    except QlangError:
        return False
    return True


def _substitute(root: Node, mapping: dict[str, str]) -> Node:
    done: dict[Node, Node] = {}
    for node in postorder(root):
        done[node] = Node(node.op, tuple(done[a] if isinstance(a, Node) else
                                         Lit(mapping.get(a.value, a.value)) for a in node.args))
    return done[root]


def _rewrite(question: str, words: list[_Word], mapping: dict[str, str]) -> str:
    edits = sorted((start, end, plural(mapping[w.word]) if many else mapping[w.word])
                   for w in words if w.word in mapping for start, end, many in w.spans)
    out, at = [], 0
    for start, end, new in edits:
        before = question[at:start]
        if found := _ARTICLE.search(before):
            fixed = article(new)
            fixed = fixed.capitalize() if found.group(1)[0].isupper() else fixed
            before = before[:found.start()] + fixed + found.group(2)
        out += [before, new[0].upper() + new[1:] if question[start].isupper() else new]
        at = end
    return "".join(out) + question[at:]


def _groups(root: Node, ontology: Ontology) -> dict[str, list[tuple[str, str]]]:
    """Each literal word of a program with the (kind, category) of every place it fills."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for node in postorder(root):
        sig = node.signature
        if sig is None:
            continue
        category = ""
        for kind, arg in zip(sig.literals, node.args[len(sig.operands):], strict=False):
            if not isinstance(arg, Lit):
                continue
            if kind is Kind.ATTR:
                category = arg.value
            if kind is Kind.VALUE and category in CLASS_CATEGORIES:
                group = ("class", "")
            elif kind is Kind.VALUE:
                owners = ontology.category_of(arg.value)
                known = category if category and category != ANY_CATEGORY else ""
                group = ("value", known or (owners[0] if len(owners) == 1 else ""))
            else:
                group = (kind.value, "")
            groups.setdefault(arg.value, []).append(group)
    return groups


def _swappable(root: Node, question: str, ontology: Ontology) -> list[_Word]:
    """The program's words that the question says unambiguously, with their replacements."""
    groups = _groups(root, ontology)
    said = _phrases(question)
    classes = {w for w, gs in groups.items() if ("class", "") in gs}
    spans = {w: list(_occurrences(question, w, w in classes)) for w in groups}
    words = []
    for word, places in sorted(groups.items()):
        if len(set(places)) != 1 or not _said_clearly(word, places, spans):
            continue
        kind, category = places[0]
        # a plural in the question needs a countable replacement: one GQA names in the plural
        countable = any(many for _, _, many in spans[word]) and not plural_only(word)
        kin = {other: _related(word, other) for other in classes - {word}}
        pool = tuple(w for w in _pool(word, kind, category, ontology)
                     if w not in said and plural(w) not in said
                     and not any(_overlapping(w, other) for other in groups)
                     and all(_related(w, other) == related for other, related in kin.items())
                     and (not countable or plural(w) in _object_names()))
        if pool:
            words.append(_Word(word, pool, tuple(spans[word])))
    return words


def _said_clearly(word: str, places: list[tuple[str, str]],
                  spans: dict[str, list[_Found]]) -> bool:
    """Whether the question says a word as often as the program uses it, never inside a longer
    vocabulary phrase nor overlapping another program word.  A value or relation said once may
    serve several uses ("are there red doors or windows"); a class said once for two uses may
    have been said the second time by a synonym, so it is not swapped."""
    found = spans[word]
    shared = len(found) == 1 and places[0][0] != "class"
    if not found or (len(found) != len(places) and not shared) or any(m is None for *_, m in found):
        return False
    others = [s for w, theirs in spans.items() if w != word for s in theirs]
    return not any(s < e2 and s2 < e for s, e, _ in found for s2, e2, _ in others)


def _occurrences(question: str, word: str, is_class: bool) -> Iterator[_Found]:
    vocabulary = names()
    forms = {word: False} | ({plural(word): True} if is_class and plural(word) != word else {})
    for form, many in forms.items():
        pattern = _WORD_EDGE.format(r"\s+".join(map(re.escape, form.split())))
        for found in re.finditer(pattern, question, re.IGNORECASE):
            before = _WORDS_BEFORE.search(question[:found.start()])
            after = _WORDS_AFTER.search(question[found.end():])
            left = before.group().lower().split() if before else []
            right = after.group().lower().split() if after else []
            compound = any(" ".join([*left[len(left) - i:], word, *right[:j]]) in vocabulary
                           for i in range(len(left) + 1) for j in range(len(right) + 1) if i or j)
            yield found.start(), found.end(), None if compound else many


def _phrases(question: str) -> set[str]:
    """Every run of up to four words of a question, lower-cased: what it already says."""
    tokens = re.findall(r"[\w-]+", question.lower())
    return {" ".join(tokens[i:j]) for i in range(len(tokens))
            for j in range(i + 1, min(i + 5, len(tokens) + 1))}


def _overlapping(a: str, b: str) -> bool:
    """Whether one phrase holds the other as whole words (`tie` and `bow tie`)."""
    return f" {a} " in f" {b} " or f" {b} " in f" {a} "


def _related(a: str, b: str) -> bool:
    """Whether one class is a category of the other (`cow` and `animal`)."""
    return a in _ancestors(b) or b in _ancestors(a)


@cache
def _ancestors(name: str) -> frozenset[str]:
    return frozenset(load().ancestors(name))


def _pool(word: str, kind: str, category: str, ontology: Ontology) -> list[str]:
    """Candidate replacements in a fixed order, before excluding what the pair already says."""
    if kind == "class":
        return _class_pool(word)
    if kind == "value" and category in ontology.categories and category not in CLASS_CATEGORIES:
        return sorted(ontology.categories[category] - _ODD_VALUES - {word})
    if kind == "rel" and (form := _relation_form(word)):
        return sorted(r for r in ontology.relations
                      if r != word and r not in _FIXED_RELATIONS and _relation_form(r) == form)
    return []


@cache
def _class_pool(word: str) -> list[str]:
    """Real GQA object names of the class's narrowest class category, of the same number.

    A category word (`animal`) is a class of its own and is not swapped; neither is a class
    whose categories are not nested (`chicken`: animal and meat), where a swap could change
    what it means.
    """
    ontology = load()
    owners = [c for c in ontology.ancestors(word) if c != _GRAB_BAG]
    if word in ontology.class_members or not owners:
        return []
    members = {c: ontology.class_members[c] for c in owners}
    narrowest = min(owners, key=lambda c: (len(members[c]), c))
    if not all(members[narrowest] <= m for m in members.values()):
        return []
    return sorted(w for w in members[narrowest] & _object_names()
                  if w != word and w not in ontology.class_members
                  and plural_only(w) == plural_only(word))


def _relation_form(relation: str) -> str:
    """The grammatical form a relation takes in a question, so a swap stays grammatical."""
    first, *rest = relation.split()
    if relation in _FIXED_RELATIONS:
        return ""
    if rest and rest[-1] == "than":
        return "comparative"
    if first.endswith("ing"):
        return "verb"
    if first.endswith("ed") or first in _PARTICIPLES:
        return "participle"
    return "preposition" if first in _PREPOSITIONS else ""


@cache
def _object_names() -> frozenset[str]:
    """GQA's object names as questions spell them (the class file also has lemmatiser stubs)."""
    text = package_data("ontology", "name_gqa.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip())
