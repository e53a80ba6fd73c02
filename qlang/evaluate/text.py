"""`qlangc experiment text`: the text half measured as NeuroQL's Figure 6 measures its
primitives, on qlang's labelled set (``qlang/data/text``, its README says how it was labelled):

- retrieval: recall@1/2/5/10/20 of `match` for ``bm25`` and ``dense``: each question's query
  ranks every object and class of the documents (the glosses and the written descriptions
  together), and counts where one the question is about comes within k (a class sharing the
  gold class's gloss, the same WordNet sense, counts as the gold class);
- extraction: exact match and F1 of the extracted span against the gold spans (SQuAD's
  normalisation: lower case, no punctuation nor articles), for the constrained extractor and
  the lexical baseline, over the documents about the question's object; a question the
  documents do not answer scores 1 only for no answer;
- OCR: word accuracy, the share of each photo question's gold words found in the text read
  from its photo (letters and digits compared, case and spaces ignored: the recogniser often
  drops the space between two words).
"""

from __future__ import annotations

import json
import re
import string
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qlang.paths import package_data
from qlang.text import ocr, retrieve, sources
from qlang.text.documents import Documents, about_key
from qlang.text.extract import Extractor, Lexical

SET = package_data("text")
QUESTIONS = SET / "questions.jsonl"
DESCRIPTIONS = SET / "descriptions.jsonl"
PHOTOS = SET / "photos.jsonl"
KS = (1, 2, 5, 10, 20)


@dataclass(frozen=True)
class TextQuestion:
    id: str
    set: str
    question: str
    about: str
    answers: tuple[str, ...]
    #: the query match is measured with (None: the question is not one)
    match: str | None = None


@dataclass(frozen=True)
class PhotoQuestion:
    id: str
    photo: str
    question: str
    answers: tuple[str, ...]


def questions(path: Path = QUESTIONS) -> list[TextQuestion]:
    return [TextQuestion(d["id"], d["set"], d["question"], d["about"], tuple(d["answers"]), d.get("match"))
            for d in _lines(path)]


def photo_questions(path: Path = PHOTOS) -> list[PhotoQuestion]:
    return [PhotoQuestion(d["id"], d["photo"], d["question"], tuple(d["answers"])) for d in _lines(path)]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ----- the measures ------------------------------------------------------------------------------

def normal(text: str) -> str:
    """SQuAD's normalisation of an answer: lower case, no punctuation, no articles, single spaces.

    >>> normal("The  Home-team!")
    'hometeam'
    """
    text = "".join(c for c in text.lower() if c not in string.punctuation)
    return " ".join(w for w in text.split() if w not in {"a", "an", "the"})


def f1(predicted: str, gold: str) -> float:
    """The F1 of the words two answers share."""
    ours, theirs = normal(predicted).split(), normal(gold).split()
    shared = sum((Counter(ours) & Counter(theirs)).values())
    if not shared:
        return 0.0
    precision, recall = shared / len(ours), shared / len(theirs)
    return 2 * precision * recall / (precision + recall)


def scores(predicted: str | None, answers: Sequence[str]) -> tuple[float, float]:
    """Exact match and F1 of an answer (None: no answer) against the gold ones (none: unanswerable)."""
    if not answers or predicted is None:
        hit = float(not answers and predicted is None)
        return hit, hit
    return (float(any(normal(predicted) == normal(a) for a in answers)),
            max(f1(predicted, a) for a in answers))


def words_read(gold: str, read: str) -> float:
    """The share of the gold answer's words found in the text read (letters and digits only)."""
    flat = re.sub(r"[^0-9a-z]", "", read.lower())
    words = [w for w in (re.sub(r"[^0-9a-z]", "", w) for w in gold.lower().split()) if w]
    return sum(w in flat for w in words) / len(words) if words else 1.0


# ----- running ------------------------------------------------------------------------------------

def documents(extra: Sequence[str] = ()) -> Documents:
    """The documents the set is asked over: the glosses and the written descriptions (and any more)."""
    return sources.documents([sources.DEFAULT, str(DESCRIPTIONS), *extra])


def recall(docs: Documents, name: str, asked: Sequence[TextQuestion]) -> list[dict[str, Any]]:
    """Each match question's rank of its object among all the documents' (None: past the last k)."""
    owned: dict[str, list[int]] = {}
    for number, passage in enumerate(docs.documents):
        owned.setdefault(passage.key, []).append(number)
    candidates = retrieve.Candidates(owned)
    texts: dict[str, set[str]] = {}
    for passage in docs.documents:
        texts.setdefault(passage.text, set()).add(passage.key)
    looker = retrieve.retriever(name, docs)
    found = []
    for q in asked:
        if q.match is None:
            continue
        same_sense = {k for n in docs.about([q.about]) for k in texts[docs.documents[n].text]}
        gold = {about_key(q.about)} | same_sense
        start = time.perf_counter()
        ranked = [m.key for m in retrieve.match(looker, q.match, candidates, max(KS))]
        seconds = time.perf_counter() - start
        rank = next((i + 1 for i, key in enumerate(ranked) if key in gold), None)
        found.append({"id": q.id, "set": q.set, "retriever": name, "rank": rank, "seconds": seconds})
    return found


def extraction(docs: Documents, name: str, extractor: Extractor, asked: Sequence[TextQuestion]
               ) -> list[dict[str, Any]]:
    """Each question's extracted answer over the documents about its object, with EM and F1."""
    found = []
    for q in asked:
        start = time.perf_counter()
        answer = extractor(docs, docs.about([q.about]), q.question)
        seconds = time.perf_counter() - start
        text = answer.span.text if answer.span is not None else None
        em, score = scores(text, q.answers)
        found.append({"id": q.id, "set": q.set, "extractor": name, "answer": text, "em": em, "f1": score,
                      "seconds": seconds})
    return found


def reading(asked: Sequence[PhotoQuestion], folder: Path = SET) -> list[dict[str, Any]]:
    """Each photo question's words read, and the share of its gold words among them."""
    import numpy as np

    found, seen = [], {}
    for q in asked:
        if q.photo not in seen:
            image = _photo(q.photo, folder)
            start = time.perf_counter()
            regions = ocr.read(np.asarray(image))
            seen[q.photo] = (" ".join(r.text for r in regions), time.perf_counter() - start)
        read, seconds = seen[q.photo]
        found.append({"id": q.id, "photo": q.photo, "read": read, "accuracy": words_read(q.answers[0], read),
                      "seconds": seconds})
    return found


def _photo(name: str, folder: Path) -> Any:
    from PIL import Image

    if name.startswith("skimage:"):
        from skimage import data

        return Image.fromarray(getattr(data, name.removeprefix("skimage:"))()).convert("RGB")
    return Image.open(folder / name).convert("RGB")


def run(out: Path, extractors: dict[str, Extractor], *, limit: int | None = None,
        progress: Callable[[str], None] = lambda _: None) -> Path:
    """Every measure, logged to ``results.jsonl`` and summed up in ``report.md`` with a plot."""
    asked = questions()[:limit]
    photos = photo_questions()[:limit]
    docs = documents()
    results: list[dict[str, Any]] = []
    for name in retrieve.RETRIEVERS:
        progress(f"match, {name}")
        results += recall(docs, name, asked)
    for name, extractor in extractors.items():
        progress(f"extract, {name}")
        results += extraction(docs, name, extractor, asked)
    progress("ocr")
    results += reading(photos)
    with open(out / "results.jsonl", "w", encoding="utf-8") as log:
        log.writelines(json.dumps(r) + "\n" for r in results)
    return write(out, results, len(docs))


def default_extractors() -> dict[str, Extractor]:
    """The constrained extractor over the bundled model, and the lexical baseline."""
    from qlang.translate.reader_model import constrained

    return {"constrained": constrained(), "lexical": Lexical()}


# ----- the report ---------------------------------------------------------------------------------

def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else 0.0


def write(out: Path, results: list[dict[str, Any]], documents_count: int) -> Path:
    matched = [r for r in results if "retriever" in r]
    extracted = [r for r in results if "extractor" in r]
    read = [r for r in results if "photo" in r]
    lines = ["# Text: match, extract and OCR", "",
             f"Over qlang's labelled set (`qlang/data/text`, its README says how it was labelled): "
             f"{len({r['id'] for r in extracted})} questions over documents, "
             f"{len({r['id'] for r in matched})} of them match queries ranking all "
             f"{documents_count:,} documents' objects and classes, {len(read)} questions about photos.", "",
             "## match: recall@k", "", "| retriever | " + " | ".join(f"R@{k}" for k in KS) + " | median ms |",
             "|---|" + "---:|" * (len(KS) + 1)]
    curves: dict[str, list[float]] = {}
    for name in dict.fromkeys(r["retriever"] for r in matched):
        rows = [r for r in matched if r["retriever"] == name]
        curves[name] = [sum(r["rank"] is not None and r["rank"] <= k for r in rows) / len(rows) for k in KS]
        lines.append(f"| {name} | " + " | ".join(f"{v:.1%}" for v in curves[name])
                     + f" | {1000 * _median([r['seconds'] for r in rows]):.1f} |")
    lines += ["", "## extract: exact match and F1", "",
              "| extractor | set | questions | EM | F1 | median s |", "|---|---|---:|---:|---:|---:|"]
    bars: dict[str, tuple[float, float]] = {}
    for name in dict.fromkeys(r["extractor"] for r in extracted):
        for part in ("all", *dict.fromkeys(r["set"] for r in extracted)):
            rows = [r for r in extracted if r["extractor"] == name and part in ("all", r["set"])]
            em = sum(r["em"] for r in rows) / len(rows)
            score = sum(r["f1"] for r in rows) / len(rows)
            bars[name] = bars.get(name, (em, score))
            lines.append(f"| {name} | {part} | {len(rows)} | {em:.1%} | {score:.1%} | "
                         f"{_median([r['seconds'] for r in rows]):.2f} |")
    accuracy = sum(r["accuracy"] for r in read) / len(read) if read else 0.0
    lines += ["", "## OCR: word accuracy", "",
              f"{accuracy:.1%} of the gold words of {len(read)} photo questions are read "
              f"(median {_median([r['seconds'] for r in read]):.2f} s a photo).", "",
              "![match, extract and OCR](text.png)", ""]
    _plot(out / "text.png", curves, bars, accuracy)
    report = out / "report.md"
    report.write_text("\n".join(lines), encoding="utf-8")
    return report


def _plot(path: Path, curves: dict[str, list[float]], bars: dict[str, tuple[float, float]],
          accuracy: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    for name, values in curves.items():
        left.plot(KS, values, marker="o", label=name)
    left.set(xlabel="k", ylabel="recall@k", title="match", ylim=(0, 1), xticks=KS)
    left.legend()
    names = [*bars, "OCR"]
    right.bar([i - 0.2 for i in range(len(bars))], [bars[n][0] for n in bars], 0.4, label="EM")
    right.bar([i + 0.2 for i in range(len(bars))], [bars[n][1] for n in bars], 0.4, label="F1")
    right.bar([len(bars)], [accuracy], 0.4, label="word accuracy")
    right.set(xticks=range(len(names)), xticklabels=names, ylim=(0, 1), title="extract and OCR")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
