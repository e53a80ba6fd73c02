"""Finding the evidence the text operations read (`qlang.text.evidence`): retrieval and
extraction over a scene's documents, for what a program asks, before it is solved.

An object's documents are those about its id or one of its names (a class's, as the bundled
WordNet glosses are); an object without any is never matched, answers nothing and shows nothing.
A match weighs each object by its best document, relative to the best object's (`retrieve.match`);
an extraction runs once per distinct set of documents (objects of one class share theirs); what an
object shows are the documents about its id (the words read from a photo among them), each
certain.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache

from qlang.text import retrieve, sources
from qlang.text.documents import PHOTO, Documents, Passage
from qlang.text.evidence import NOTHING, Evidence, Snippet, cost
from qlang.text.extract import Extraction, Extractor, Lexical, Quote
from qlang.text.retrieve import Retriever, match


@dataclass(frozen=True, slots=True)
class Asked:
    """What a program's text operations ask: the texts of its ``match`` steps and the questions
    of its ``extract`` steps, and whether it ``read``s."""

    matches: frozenset[str] = frozenset()
    questions: frozenset[str] = frozenset()
    reads: bool = False
    #: per question, the objects whose documents may answer it (the objects its input may hold;
    #: extraction is the slow part), where fewer than all
    within: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.matches or self.questions or self.reads)

    @classmethod
    def of(cls, steps: Iterable[tuple[str, Sequence[str]]]) -> Asked:
        """What steps ask, each an operation and its literals (a match's text first)."""
        listed = list(steps)
        return cls(frozenset(words[0] for name, words in listed if name == "match"),
                   frozenset(words[0] for name, words in listed if name == "extract"),
                   any(name == "read" for name, _ in listed))


@dataclass(frozen=True, eq=False)
class Texts:
    """The documents a run answers questions over (None: the bundled glosses, read where a
    question first needs them), and how it searches them: a retriever's name
    (`retrieve.RETRIEVERS`) and what makes the extractor, called where a question first extracts
    (a module's function: a batch's workers get it by pickle, not the model)."""

    documents: Documents | None = None
    retriever: str = retrieve.DEFAULT
    extractor: Callable[[], Extractor] = Lexical

    def read(self, shown: Mapping[str, Sequence[str]] | None = None) -> Documents:
        """The documents (the glosses read where none were given), and after them, each about
        its object, the texts a scene's objects show (`shown`), numbered as evidence numbers them."""
        documents = self.documents if self.documents is not None else glosses()
        photo = [Passage(oid, text, PHOTO) for oid, texts in sorted((shown or {}).items()) for text in texts]
        return documents + Documents(photo) if photo else documents

    def evidence(self, objects: Mapping[str, Collection[str]], asked: Asked,
                 shown: Mapping[str, Sequence[str]] | None = None) -> Evidence:
        """What `asked` finds over a scene's objects (`gather`), the texts they show (`shown`:
        a photo's words) among the documents, each about its object."""
        if not asked:
            return NOTHING
        documents = self.read(shown)
        # the run's documents are indexed once a process; with a scene's own texts, once a
        # question (kept, every photo a server is asked about would stay in memory)
        index = retrieve.retriever if documents is self.read() else retrieve.build
        return gather(documents, objects, asked, extractor=self.extractor,
                      retriever=lambda: index(self.retriever, documents))


#: The bundled glosses, searched by bm25 and the lexical extractor.
GLOSSES = Texts()


@cache
def glosses() -> Documents:
    """The documents a question given none reads: WordNet's glosses of GQA's classes."""
    return sources.documents([])


def gather(documents: Documents, objects: Mapping[str, Collection[str]], asked: Asked, *,
           retriever: Callable[[], Retriever], extractor: Callable[[], Extractor]) -> Evidence:
    """What `asked` finds over a scene's `objects` (id -> its names), as the module docstring
    says; the retriever and the extractor are made only where a question needs them."""
    if not asked:
        return NOTHING
    owned = {oid: numbers for oid, names in objects.items() if (numbers := documents.about([oid, *names]))}
    matches = {text: {m.key: cost(m.weight) for m in match(retriever(), text, owned, len(owned))}
               for text in sorted(asked.matches)} if owned else {}
    answers = _answers(documents, owned, asked, extractor()) if asked.questions and owned else {}
    shown = {oid: tuple(_whole(documents, n) for n in numbers)
             for oid in objects if asked.reads and (numbers := documents.about([oid]))}
    return Evidence(matches, answers, shown)


def _answers(documents: Documents, owned: Mapping[str, Sequence[int]], asked: Asked,
             extractor: Extractor) -> dict[str, dict[str, Snippet]]:
    """Each question's answer from each object's documents it may be asked of, extracted once per
    set of documents (the objects of one class share theirs)."""
    answers: dict[str, dict[str, Snippet]] = {}
    for question in sorted(asked.questions):
        spans: dict[tuple[int, ...], Snippet | None] = {}
        within = asked.within.get(question)
        for oid, numbers in sorted(owned.items()):
            if within is not None and oid not in within:
                continue
            key = tuple(numbers)
            if key not in spans:
                spans[key] = _span(documents, extractor(documents, numbers, question))
            if (found := spans[key]) is not None:
                answers.setdefault(question, {})[oid] = found
    return answers


def _whole(documents: Documents, number: int) -> Snippet:
    """A document as a text its object shows, quoted whole."""
    passage = documents.documents[number]
    return Snippet(passage.text, 0, Quote(number, 0, len(passage.text), passage.text), passage.source)


def _span(documents: Documents, extraction: Extraction) -> Snippet | None:
    if extraction.span is None:
        return None
    return Snippet(extraction.span.text, cost(extraction.weight), extraction.span,
                 documents.documents[extraction.span.document].source)
