"""Write the gloss half of qlang/data/text/questions.jsonl: questions whose gold spans a pattern
of WordNet's gloss gives (see qlang/data/text/README.md for how the set was labelled).

    PYTHONPATH=. .venv/bin/python scripts/text_gloss_questions.py >> qlang/data/text/questions.jsonl

Each pattern is a cue in the gloss, the question it answers and a query for match; the gold
span is the phrase after the cue, up to the next ";", "," or "(" or the end.  Every question was
read by hand after, and those whose span does not answer it dropped (`DROPPED`); `UNSAID` are
questions the glosses do not answer.
"""

from __future__ import annotations

import json
import re

from qlang.text.glosses import glosses
from qlang.words import article, singulars

#: (cue in the gloss, question, match query): the span after the cue answers the question,
#: and the query asks which class the span describes
PATTERNS = (
    (r"\bused for ", "What is {a} {c} used for?", "Which thing is used for {s}?"),
    (r"\bused to ", "What is {a} {c} used to do?", "Which thing is used to {s}?"),
    (r"\bmade (?:of|from) ", "What is {a} {c} made of?", "Which thing is made of {s}?"),
    (r"\bworn on (?!or )", "Where is {a} {c} worn?", "Which thing is worn on {s}?"),
    (r"\bconsisting of ", "What does {a} {c} consist of?", "Which thing consists of {s}?"),
    (r"\bdesigned (?:for|to) ", "What is {a} {c} designed for?", "Which thing is designed for {s}?"),
)
#: classes whose gloss does not say: no answer
UNSAID = (("cup", "Who invented the cup?"), ("fork", "When was the fork first used?"),
          ("ladder", "How tall is the ladder?"), ("oven", "Who makes the oven?"),
          ("bottle", "How much does the bottle cost?"))
MOST = 70
#: read by hand and dropped: the pattern's span does not answer the question
DROPPED = frozenset({"arm", "mixer", "number", "character", "salad", "pillowcase", "path", "pan",
                     "armor", "sunglass", "clothing"})


def main() -> None:
    written = 0
    classes = {passage.about for passage in glosses()}
    for passage in glosses():
        plural = any(s != passage.about and s in classes for s in singulars(passage.about))
        if " " in passage.about or plural or passage.about in DROPPED or written >= MOST:
            continue
        for cue, question, query in PATTERNS:
            found = re.search(cue + r"([^;,()]+)", passage.text)
            if found is None:
                continue
            span = found.group(1).strip()
            if not 1 <= len(span.split()) <= 6:
                continue
            written += 1
            print(json.dumps({"id": f"g{written:02d}", "set": "glosses",
                              "question": question.format(a=article(passage.about), c=passage.about),
                              "about": passage.about, "answers": [span], "match": query.format(s=span)}))
            break
    for number, (about, question) in enumerate(UNSAID, start=written + 1):
        print(json.dumps({"id": f"g{number:02d}", "set": "glosses", "question": question, "about": about,
                          "answers": []}))


if __name__ == "__main__":
    main()
