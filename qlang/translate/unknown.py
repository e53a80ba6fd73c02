"""The words of a question that name something qlang does not know, and what the program
reads instead.

Both translators write only words of the language, so a question about a rocket comes back
as a program about a window: an answer to another question.  A question word is *unknown*
when it is none of the words qlang has read and the program does not say it:

- not a word the small parser was trained to read: its source vocabulary, every word of GQA's
  training questions and of the ontology (a word it would read as ``<unk>``), nor a plural or
  singular of one;
- not said in the program (a knowledge operation copies a word only the knowledge knows, a
  text operation the whole question);
- not half of a known word written apart (``surf board``);
- and a noun: WordNet has a noun sense for it (a name of something, not a misspelling) and
  English uses it as a noun at least as often as otherwise ("go" is a verb), none of whose
  synonyms the program says (``background`` read as GQA's ``ground``).  WordNet is read last,
  for the few words the rest leaves;
- and it is reported only where the program reads a name the question does not say: a program
  whose every name the question says answers the question's own words ("What qualities do
  snails usually have?" is `know(..., has_property)`).

The vocabulary is data, GQA's own questions: no list of words is written here.

`spoken` puts the question's word back: where the program reads one class for one unknown
word ("Is there a rocket?" as `exist(select(scene(), window))`), the program about the word
itself (`exist(select(scene(), rocket))`), a class outside GQA's vocabulary that only a
perceiver matching it through WordNet can see (`qlang.vision.filed`); a scene graph without it
answers as about any class it lacks.  The word is a WordNet noun of lowercase letters only,
the spelling `unknown_words` checked, so it reaches ASP as a plain constant.

A known word can be lost too: "What color are the cat's eyes?" comes back as the cat's colour,
brown, an answer about the cat.  Where a possessive's thing is a class of GQA's the program
does not say and the program reads the owner's class, `spoken` gives the program about the
thing instead (`owned`: the eyes' colour), as GQA's own programs select what is asked of.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from qlang.errors import Diagnostic, Span, shown
from qlang.ir import Lit, Node, postorder
from qlang.signatures import Kind
from qlang.words import plural, singulars

#: a question's words as the small parser reads them (`qlang.small.tokens`), letters only
_WORD = re.compile(r"[A-Za-z]+(?:['-][A-Za-z]+)*")
_LETTERS = re.compile(r"[a-z]+")
#: a possessive and its thing: "the cat's eyes", "the dogs' tails"
_POSSESSIVE = re.compile(r"\b([a-z]+)(?:'s|s')\s+([a-z]+)\b")
#: the literal kinds that name what a question asks about: what an unknown word was read as
_NAMING = (Kind.CLASS, Kind.VALUE)


@dataclass(frozen=True, slots=True)
class UnknownWord:
    #: the word as the question writes it, and where (line 1: the question is one line)
    word: str
    span: Span
    #: the program's names the question does not say: what the program reads instead
    instead: tuple[str, ...]

    @property
    def message(self) -> str:
        return (f"{shown(self.word)} is not a word qlang knows; the program reads "
                f"{', '.join(map(repr, self.instead))}")

    @property
    def kept(self) -> str:
        """What is said where the program speaks the word itself instead (`spoken`)."""
        return f"{shown(self.word)} is not a word qlang knows; the program asks about it as the question says"

    def to_json(self) -> dict[str, object]:
        return {"word": self.word, "column": self.span.column, "instead": list(self.instead),
                "message": self.message}

    def diagnostic(self) -> Diagnostic:
        return Diagnostic("vocabulary", self.message, self.span, warning=True)


def unknown_words(question: str, program: Node) -> tuple[UnknownWord, ...]:
    """The question's unknown words (see the module docstring), in the order said."""
    known = _known() | _program_words(program)
    values = frozenset(value.lower() for _kind, value in _literals(program))
    matches = list(_WORD.finditer(question))
    words = [m.group().lower() for m in matches]
    found = [match for i, (match, word) in enumerate(zip(matches, words, strict=True))
             if _LETTERS.fullmatch(word) and not _forms(word) & known
             and not any(_forms(joined) & known for joined in _joined(words, i))
             and _names_something_else(word, values)]
    if not found:
        return ()
    question_words = {form for word in words for form in _forms(word)}
    instead = tuple(dict.fromkeys(name for name in _names(program)
                                  if not set(name.split()) <= question_words))
    if not instead:  # every name the program reads, the question says
        return ()
    return tuple(UnknownWord(m.group(), Span(1, m.start() + 1, 1, m.end() + 1), instead)
                 for m in found)


def spoken(question: str, root: Node) -> Node | None:
    """The program speaking the question's one unknown word where it reads one class the
    question does not say, in the word's WordNet form (``rockets`` -> ``rocket``), else about
    what a possessive names where it reads the owner (`owned`); None where neither applies (no
    such word, or it was read as several names, or as a value)."""
    unknown = unknown_words(question, root)
    if len(unknown) != 1 or len(unknown[0].instead) != 1:
        return None if unknown else owned(question, root)
    (instead,) = unknown[0].instead
    if not any(kind is Kind.CLASS and value == instead for kind, value in _literals(root)) \
            or any(kind is not Kind.CLASS and value == instead for kind, value in _literals(root)):
        return None
    return _renamed(root, instead, _lemma(unknown[0].word.lower()), {})


def owned(question: str, root: Node) -> Node | None:
    """The program about the thing of the question's possessive ("the cat's eyes": `eye`s)
    where the program reads the owner's class (`cat`) and says no form of the thing, a class
    of GQA's; None where there is no such possessive."""
    from qlang.ontology import load

    classes, said = load().classes, _program_words(root)
    for match in _POSSESSIVE.finditer(question.lower()):
        owner, thing = match.groups()
        named = [form for form in (thing, *sorted(_forms(thing) - {thing})) if form in classes]
        if not named or _forms(thing) & said:
            continue
        read = [value for kind, value in _literals(root) if kind is Kind.CLASS and value in _forms(owner)]
        if read:
            return _renamed(root, read[0], named[0], {})
    return None


def _renamed(node: Node, old: str, new: str, done: dict[Node, Node]) -> Node:
    """`node` with each class literal `old` written `new` (a shared step rebuilt once)."""
    if node in done:
        return done[node]
    signature = node.signature
    args = tuple(_renamed(arg, old, new, done) if isinstance(arg, Node)
                 else Lit(new, arg.span) if arg.value == old and signature is not None
                 and signature.kind(position) is Kind.CLASS else arg
                 for position, arg in enumerate(node.args))
    done[node] = renamed = Node(node.op, args, node.span)
    return renamed


def _lemma(word: str) -> str:
    """A noun's dictionary form as WordNet reads it (``rockets`` -> ``rocket``)."""
    from qlang.wordnet import WordNetMissing, reader

    try:
        wn = reader()  # read already where the word was found unknown through WordNet
    except WordNetMissing:
        return word
    lemma = wn.morphy(word, wn.NOUN)
    return lemma if isinstance(lemma, str) and _LETTERS.fullmatch(lemma) else word


def _joined(words: list[str], i: int) -> list[str]:
    """The word written together with the one before it and with the one after it: a
    compound written apart (``surf board``) is the known word (``surfboard``)."""
    joined = []
    if i > 0:
        joined.append(words[i - 1] + words[i])
    if i + 1 < len(words):
        joined.append(words[i] + words[i + 1])
    return joined


def _forms(word: str) -> set[str]:
    """A word, its plural and its singulars: any of them known, the word is."""
    return {word, plural(word), *singulars(word)}


@cache
def _known() -> frozenset[str]:
    """The words the shipped small parser reads (its source vocabulary)."""
    from qlang.small.files import read_config  # numpy: loaded with the parser's files
    from qlang.small.parser import SMALL_MODEL

    return frozenset(read_config(SMALL_MODEL).source)


def _literals(program: Node) -> Iterator[tuple[Kind | None, str]]:
    for node in postorder(program):
        signature = node.signature
        for position, arg in enumerate(node.args):
            if isinstance(arg, Lit):
                yield (signature.kind(position) if signature else None), arg.value


def _program_words(program: Node) -> frozenset[str]:
    """Every word the program's literals say, in each of its forms."""
    return frozenset(form for _kind, value in _literals(program)
                     for word in _WORD.findall(value.lower()) for form in _forms(word))


def _names(program: Node) -> Iterator[str]:
    return (value for kind, value in _literals(program) if kind in _NAMING)


def _names_something_else(word: str, said: frozenset[str]) -> bool:
    """Whether a word is a noun none of whose synonyms the program says (`background` read as
    GQA's `ground` is the same thing)."""
    synonyms = _synonyms(word)
    return bool(synonyms) and not synonyms & said


@cache
def _synonyms(word: str) -> frozenset[str]:
    """The names of a word's noun senses in WordNet; none where it has none, or where English
    uses it more often as another part of speech (SemCor's counts: "go", "fly").  Without
    WordNet, the word itself (a warning too many rather than an answer about another thing)."""
    from qlang.wordnet import WordNetMissing, names, reader  # nltk takes seconds to import

    try:
        wn = reader()
    except WordNetMissing:
        return frozenset({word})
    counts = {pos: sum(lemma.count() for sense in wn.synsets(word, pos) for lemma in sense.lemmas()
                       if lemma.name().lower() in (word, wn.morphy(word, pos)))
              for pos in (wn.NOUN, wn.VERB, wn.ADJ, wn.ADV)}
    if counts[wn.NOUN] < max(counts.values()):
        return frozenset()
    return frozenset(name for sense in wn.synsets(word, wn.NOUN) for name in names(sense))
