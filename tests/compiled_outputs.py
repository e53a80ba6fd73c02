"""What qlang makes of the real GQA programs, as JSON lines on standard output: run once pure
(``QLANG_PURE=1``) and once compiled by tests/test_compiled.py, which wants the same lines.

Each program is read from GQA's JSON, checked, printed in every syntax, each print read back,
lowered to facts, and damaged (cut short, a word replaced by an unknown one, an operand
dropped) so that parse and check errors, with their locations, are compared too.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import qlang
from qlang import compiled
from qlang.errors import QlangError
from qlang.paths import GQA_QUESTIONS
from qlang.syntax import SYNTAXES

TARGETS = ("flat", "nested", "code", "gqa")
#: a word that is an argument (not an operation), replaced by one no vocabulary has
_WORD = re.compile(r"(?<=, )[a-z]{3,}\b(?!\()")


def _errors(exc: QlangError) -> list[Any]:
    return [d.to_json() for d in exc.diagnostics]


def _attempt(work: Any) -> Any:
    try:
        return work()
    except QlangError as exc:
        return {"errors": _errors(exc)}


def _damaged(text: str) -> list[str]:
    return [text[: len(text) * 2 // 3], _WORD.sub("zorblax", text, count=1), text.replace(",", "", 1)]


def outcome(semantic: list[Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    root = qlang.parse(json.dumps(semantic), "gqa")
    result["warnings"] = _attempt(lambda: [d.to_json() for d in qlang.check(root)])
    result["facts"] = _attempt(lambda: qlang.lower(root))
    for target in TARGETS:
        text = _attempt(lambda target=target: SYNTAXES[target].print(root))
        result[target] = text
        if not isinstance(text, str):
            continue
        result[f"{target} again"] = _attempt(lambda text=text, target=target: repr(qlang.parse(text, target)))
        result[f"{target} damaged"] = [_attempt(lambda t=t, target=target: repr(qlang.compile(t, target)))
                                       for t in _damaged(text)]
    return result


def main() -> None:
    print(json.dumps({"compiled": compiled.active()}))
    for path in sorted(GQA_QUESTIONS.glob("*.json")):
        for qid, question in json.loads(path.read_text()).items():
            print(json.dumps({"id": qid, **_attempt(lambda q=question: outcome(q["semantic"]))}))


if __name__ == "__main__":
    sys.exit(main())
