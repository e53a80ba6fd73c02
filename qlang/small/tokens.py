"""Tokens: questions as words, programs in prefix notation, and the two vocabularies.

A program is written in prefix (Polish) notation over the IR: each operation is one token,
followed by its operands' tokens and then its literals, one token per literal however many
words it has (``to the left of``).  Arity comes from the operation table, so no parentheses
or commas are needed and a program is half as many tokens as its nested form.  Operation
tokens end in ``(`` so that no word can be mistaken for one.

>>> from qlang.ir import op
>>> program = op("exist", op("select", op("scene"), "tennis racket"))
>>> prefix(program)
['exist(', 'select(', 'scene(', 'tennis racket']
>>> from_prefix(prefix(program)) == program
True

A question is lower-cased words and punctuation; the plural of a class is split into its
singular and a plural mark, so "poles" and "pole" share what the model learns about the word,
unless GQA has the plural as a class of its own (`cars`, `buses`):

>>> question_tokens("Are there poles or cars?")
['are', 'there', 'pole', '<pl>', 'or', 'cars', '?']

Where a knowledge operation takes any word the knowledge knows (``verify_know(x, made_of,
keratin)``), a program may write a question word outside the vocabulary: the target side has
a token per question position (`word_token`), which stands for the word said there, and a
word no literal starts offers its position's token to copy (`Vocabularies.offers`).

Where a text operation takes free text (``extract(x, "What is it used for?")``), a program may
write the question itself, as the token `QUESTION`, or copy one word or phrase of it as above.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property

from qlang.errors import QlangError, error
from qlang.integers import is_digits
from qlang.ir import Lit, Node
from qlang.ontology import load
from qlang.passes.vocabulary import words as vocabulary_words
from qlang.phrases import WORD, longest
from qlang.signatures import CLOSED_KINDS, MAX_TEXT, SIGNATURES, Kind
from qlang.words import singulars

PAD, BOS, EOS, UNK, PLURAL = "<pad>", "<s>", "</s>", "<unk>", "<pl>"
#: the target token standing for the whole question, as free text (`said_question`)
QUESTION = "<q>"
SPECIAL = (PAD, BOS, EOS, UNK)
#: question positions a program may copy an out-of-vocabulary word from (GQA's longest
#: question has 29 tokens)
QUESTION_WORDS = 40
#: a question word of letters alone: what a word token may stand for (and what the lexical
#: back-off maps, `qlang.train.backoff`)
PLAIN = re.compile(r"[a-z]+")


def word_token(position: int) -> str:
    """The target token standing for the question's word at `position`."""
    return f"<w{position}>"


def _is_word_token(token: str) -> bool:
    return token.startswith("<w") and token.endswith(">") and is_digits(token[2:-1])


def said_question(question: str) -> str:
    """The free text `QUESTION` stands for: the question as typed, its spacing collapsed and
    what is not printable dropped, cut to `MAX_TEXT` characters at a space; a blank question is
    the unknown token, as the model reads it (so the text is always one a program may hold).

    >>> said_question("  What is\tit for? "), said_question(" "), len(said_question("no " * 100))
    ('What is it for?', '<unk>', 200)
    """
    text = " ".join("".join(c if c.isprintable() else " " for c in question).split())
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT + 1].rsplit(" ", 1)[0] or text[:MAX_TEXT]
    return text or UNK


def op_token(name: str) -> str:
    return f"{name}("


def prefix(root: Node) -> list[str]:
    """The program's tokens in prefix notation (the DAG unfolded to its tree)."""
    tokens: list[str] = []
    stack: list[Node | Lit] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, Lit):
            tokens.append(item.value)
            continue
        tokens.append(op_token(item.op))
        stack.extend(reversed(item.args))
    return tokens


def from_prefix(tokens: Sequence[str]) -> Node:
    """The program a complete prefix token sequence writes (raises QlangError otherwise)."""
    position = 0

    def build() -> Node:
        nonlocal position
        if position >= len(tokens) or not tokens[position].endswith("("):
            raise error(QlangError, "syntax", f"prefix program: an operation expected at token "
                        f"{position + 1} of {len(tokens)}")
        name = tokens[position][:-1]
        position += 1
        signature = SIGNATURES.get(name)
        if signature is None:
            raise error(QlangError, "syntax", f"prefix program: unknown operation {name!r}")
        operands = [build() for _ in signature.operands]
        literals = tokens[position:position + len(signature.literals)]
        if len(literals) < len(signature.literals) or any(t.endswith("(") for t in literals):
            raise error(QlangError, "syntax", f"prefix program: {name} lacks a literal")
        position += len(literals)
        return Node(name, (*operands, *(Lit(t) for t in literals)))

    root = build()
    if position != len(tokens):
        raise error(QlangError, "syntax", f"prefix program: {len(tokens) - position} tokens after the end")
    return root


@cache
def _words() -> tuple[frozenset[str], frozenset[str]]:
    """The ontology's words, and the last words of its class names."""
    ontology = load()
    return (frozenset(w for name in ontology.values | ontology.classes for w in name.split()),
            frozenset(name.rpartition(" ")[2] for name in ontology.classes))


@cache
def _singular(word: str) -> str | None:
    """The class word a question word is the plural of, unless the plural is an ontology word
    of its own (`glasses` stays `glasses`)."""
    words, heads = _words()
    if word in words:
        return None
    return next((one for one in singulars(word) if one in heads), None)


def question_tokens(question: str) -> list[str]:
    return [token for token, _surface in _read(question)]


def _read(question: str) -> list[tuple[str, str]]:
    """Tokens with the word each stands for (the plural mark stands for the plural)."""
    pairs: list[tuple[str, str]] = []
    for word in WORD.findall(question.lower()):
        one = _singular(word)
        if one is not None:
            pairs += [(one, one), (PLURAL, word)]
        else:
            pairs.append((word, word))
    return pairs


def copy_words(question: str, words: frozenset[str]) -> list[str | None]:
    """Per question token, the literal a program may copy from there: the longest phrase of
    `words` the question says from that token on (plural marks skipped), and a plural mark
    the plural itself (``poles``).

    >>> copy_words("Are the poles to the left of the black cat?", frozenset(
    ...     {"black cat", "cat", "to the left of", "left", "pole", "poles"}))
    [None, None, 'pole', 'poles', 'to the left of', None, 'left', None, None, 'black cat', 'cat', None]
    """
    read = _read(question)
    said = [(i, surface) for i, (token, surface) in enumerate(read) if token != PLURAL]
    result: list[str | None] = [None] * len(read)
    for i, (token, surface) in enumerate(read):
        if token == PLURAL and surface in words:
            result[i] = surface
    spoken = [surface for _i, surface in said]
    for k, (i, _surface) in enumerate(said):
        if (found := longest(spoken, k, words)) is not None:
            result[i] = found[0]
    return result


@dataclass(frozen=True)
class Vocabulary:
    """Token <-> id for one side of the model; ids 0-3 are the special tokens."""

    tokens: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "_ids", {t: i for i, t in enumerate(self.tokens)})

    def __len__(self) -> int:
        return len(self.tokens)

    def __contains__(self, token: object) -> bool:
        ids: dict[str, int] = self._ids  # type: ignore[attr-defined]
        return token in ids

    def id(self, token: str) -> int:
        ids: dict[str, int] = self._ids  # type: ignore[attr-defined]
        return ids.get(token, ids[UNK])

    def ids(self, tokens: Iterable[str]) -> list[int]:
        return [self.id(t) for t in tokens]

    @classmethod
    def of(cls, tokens: Iterable[str]) -> Vocabulary:
        return cls(tuple(dict.fromkeys((*SPECIAL, *tokens))))


@dataclass(frozen=True)
class Vocabularies:
    """A model's two sides, and how a question reads in them (as training and decoding both
    read it)."""

    source: Vocabulary
    target: Vocabulary
    #: a word the source side lacks -> the trained word read for it (`qlang.train.backoff`)
    backoff: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def words(self) -> frozenset[str]:
        """The words a program may copy from a question: every literal of the target side."""
        return frozenset(t for t in self.target.tokens if t not in SPECIAL and t != QUESTION
                         and not t.endswith("(") and not _is_word_token(t))

    def offers(self, question: str) -> list[str | None]:
        """Per question token, the literal a program may copy from there: the vocabulary phrase
        it starts (`copy_words`), else, if the model has word tokens, a word as its position's."""
        offered = copy_words(question, self.words)
        if word_token(0) not in self.target:  # a model made before word tokens
            return offered
        surfaces = [surface for _token, surface in _read(question)]
        return [word_token(i) if offer is None and i < QUESTION_WORDS and PLAIN.fullmatch(surface)
                else offer for i, (offer, surface) in enumerate(zip(offered, surfaces, strict=True))]

    def row(self, question: str) -> tuple[list[int], list[int]]:
        """A question's token ids, a word the source side lacks read as its back-off word, and
        per token the target id of the literal it offers (padding: none), which is the word as
        said; an empty question is one unknown token."""
        ids = self.source.ids(self.backoff.get(t, t) for t in question_tokens(question))
        pad = self.target.id(PAD)
        if not ids:
            return [self.source.id(UNK)], [pad]
        return ids, [pad if w is None else self.target.id(w) for w in self.offers(question)]

    def program_ids(self, question: str, tokens: Sequence[str]) -> list[int]:
        """A program's target ids; a literal outside the vocabulary is the word token of the
        first question position that offers it, or the question's token where it is the question
        (unknown if neither)."""
        by_word = {said_question(question): QUESTION} if QUESTION in self.target else {}
        for offer, (_token, surface) in zip(self.offers(question), _read(question), strict=True):
            if offer is not None and _is_word_token(offer):
                by_word.setdefault(surface, offer)
        return [self.target.id(t if t in self.target else by_word.get(t, UNK)) for t in tokens]

    def said(self, question: str, tokens: Sequence[str]) -> tuple[str, ...]:
        """A decoded program's tokens with each word token replaced by the word it stands for,
        and the question's token by the question."""
        surfaces = [surface for _token, surface in _read(question)]
        return tuple(surfaces[int(t[2:-1])] if _is_word_token(t) else said_question(question)
                     if t == QUESTION else t for t in tokens)


def source_vocabulary(questions: Iterable[str], min_count: int = 1) -> Vocabulary:
    """The training questions' tokens, and every word of the ontology (so a word that only
    augmented data or a user brings still has its own embedding)."""
    counts = Counter(t for q in questions for t in question_tokens(q))
    ontology = load()
    words = {w for name in ontology.values | ontology.classes | ontology.relations
             | set(ontology.categories) for w in name.split()}
    kept = [t for t, n in counts.most_common() if n >= min_count]
    return Vocabulary.of([PLURAL, *kept, *sorted(words - set(kept))])


def target_vocabulary() -> Vocabulary:
    """Every operation and every word a literal may be: the whole language, from the
    operation table and the ontology, whatever the training data happened to contain; and
    the word tokens of the question's positions and of the question itself."""
    ontology = load()
    words = (ontology.classes | set(ontology.categories) | ontology.values | ontology.relations
             | {w for ws in CLOSED_KINDS.values() for w in ws} | vocabulary_words(Kind.KREL))
    return Vocabulary.of([*(op_token(name) for name in SIGNATURES), *sorted(words),
                          *map(word_token, range(QUESTION_WORDS)), QUESTION])
