"""The oracle over a question file: why each gold program fails, and the answerable subset.

The seed thesis judges translations only on questions whose own gold program, run by the
interpreter over the scene graph, yields the gold answer (§3.4), and counts why the others fail
(§6.1.1, Table 11), in its two modes of category knowledge: WordNet alone (*pure*) or the
curated GQA mapping first (*w/ metadata*).  Each question gets one verdict: `answerable`, the
failure class that stopped its program, `WrongAnswer` (an answer, not GQA's), `Uncategorized`
(a gold program qlang cannot read) or `NoSceneGraph` (its image is not in the scene file).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from qlang.errors import QlangError
from qlang.interpret import InterpretError, Membership, Scene, interpret
from qlang.interpret.gqa_steps import evaluate_steps
from qlang.syntax import gqa

#: `--mode`: the thesis's *pure* interpreter (WordNet) or the one *w/ metadata* (curated first).
MODES = {"wordnet": Membership(ontology=False), "curated": Membership()}
ANSWERABLE, WRONG, UNCATEGORIZED, NO_SCENE = "answerable", "WrongAnswer", "Uncategorized", "NoSceneGraph"
#: Table 11's rows in its order, then the verdicts it leaves out.
CLASSES = ("EmptyQuery", "AmbiguousAnswer", "MissingEdge", "EmptyChoice", "NonTrivialCategory",
           "NotInWordnet", "IncompleteMetadata", UNCATEGORIZED, WRONG, ANSWERABLE, NO_SCENE)


def verdict(question: Mapping[str, Any], graph: Mapping[str, Any] | None, mode: str,
            semantics: str = "thesis") -> str:
    """Why the question's gold program does (`answerable`) or does not give its gold answer;
    under the thesis semantics its GQA steps run directly, as the thesis's oracle ran them."""
    if graph is None:
        return NO_SCENE
    try:
        steps, scene = gqa.steps_from_json(question["semantic"]), Scene.from_json(graph)
        answer = (evaluate_steps(steps, scene, MODES[mode]).answer if semantics == "thesis"
                  else interpret(gqa.to_ir(steps), scene, MODES[mode], semantics))
    except InterpretError as failure:
        return type(failure).__name__
    except (QlangError, KeyError, TypeError, ValueError):
        return UNCATEGORIZED
    return ANSWERABLE if answer == question.get("answer") else WRONG


def verdicts(questions: Iterable[Mapping[str, Any]], graphs: Mapping[str, Any], mode: str,
             semantics: str = "thesis") -> dict[str, str]:
    """Each question's verdict by id; `graphs` are the scene graphs by image id."""
    return {str(q.get("id")): verdict(q, graphs.get(str(q.get("imageId"))), mode, semantics)
            for q in questions}


def table(by_mode: Mapping[str, Mapping[str, str]]) -> str:
    """Table 11 as Markdown: counts per mode, and shares of the questions with a scene graph."""
    counts = {mode: Counter(found.values()) for mode, found in by_mode.items()}
    judged = {mode: sum(c.values()) - c[NO_SCENE] for mode, c in counts.items()}
    header = ["verdict", *(f"# {m}" for m in by_mode), *(f"% {m}" for m in by_mode)]
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for name in CLASSES:
        shares = [f"{c[name] / judged[m]:.2%}" if judged[m] and name != NO_SCENE else "–"
                  for m, c in counts.items()]
        lines.append("| " + " | ".join([name, *(str(c[name]) for c in counts.values()), *shares]) + " |")
    return "\n".join(lines)
