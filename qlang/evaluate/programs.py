"""Program-level metrics, no real scene needed: does a translation parse, check, equal the gold?

Equal three ways, from strictest to loosest: `strict`, the canonical DAGs are equal; `exact`,
they are up to the order of symmetric operands and a choice's alternatives, which a question
does not fix (`qlang.passes.canonical.equivalent`); `execution`, the two programs give the same
outcome on every scene of the gold program's synthetic suite (`qlang.evaluate.execution`).

Per-operation confusion counts, over the canonical DAGs, which operations a translator drops
(in the gold program, missing from its output) and which it invents (the other way round).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from qlang.api import check, parse
from qlang.errors import Diagnostic, QlangError
from qlang.evaluate.execution import execution_match
from qlang.ir import Node, postorder
from qlang.passes.canonical import canonicalize, equivalent
from qlang.records.batch import attempt


@dataclass(frozen=True)
class ProgramScore:
    parsed: bool
    checked: bool
    exact: bool = False
    strict: bool = False
    execution: bool = False
    dropped: Counter[str] = field(default_factory=Counter)
    invented: Counter[str] = field(default_factory=Counter)
    error_kind: str | None = None


def operations(root: Node) -> Counter[str]:
    return Counter(node.op for node in postorder(canonicalize(root)))


def score(text: str | None, syntax: str, gold: Node) -> ProgramScore:
    """How a translation (program text, or None when there was none) compares with the gold."""
    if text is None:
        return ProgramScore(False, False, dropped=operations(gold), error_kind="none")
    try:
        root = parse(text, syntax)
    except QlangError as exc:
        return ProgramScore(False, False, dropped=operations(gold), error_kind=exc.kind)
    expected, actual = operations(gold), operations(root)
    try:
        check(root)
    except QlangError as exc:
        return ProgramScore(True, False, dropped=expected - actual,
                            invented=actual - expected, error_kind=exc.kind)
    exact = equivalent(root, gold)
    return ProgramScore(True, True, exact, canonicalize(root) == canonicalize(gold),
                        exact or execution_match(root, gold), expected - actual, actual - expected)


def counted(text: str | None, syntax: str, gold: Node) -> tuple[ProgramScore, Diagnostic | None]:
    """`score`, and why it failed where it did not come out (a failure of qlang's, not of the
    translation's): then the translation counts as no program, so that every one is counted."""
    def unscored(why: QlangError) -> tuple[ProgramScore, Diagnostic | None]:
        return ProgramScore(False, False, dropped=operations(gold), error_kind=why.kind), why.diagnostics[0]

    return attempt(lambda: (score(text, syntax, gold), None), unscored)


@dataclass(frozen=True)
class Summary:
    total: int
    parse_rate: float
    check_rate: float
    exact_rate: float
    strict_rate: float
    execution_rate: float
    dropped: Counter[str]
    invented: Counter[str]
    errors: Counter[str]

    def to_json(self) -> dict[str, object]:
        return {"total": self.total, "parse_rate": self.parse_rate, "check_rate": self.check_rate,
                "exact_rate": self.exact_rate, "strict_rate": self.strict_rate,
                "execution_rate": self.execution_rate, "dropped": dict(self.dropped.most_common()),
                "invented": dict(self.invented.most_common()), "errors": dict(self.errors)}


def summarize(scores: Iterable[ProgramScore]) -> Summary:
    scores = list(scores)
    total = len(scores) or 1
    dropped: Counter[str] = Counter()
    invented: Counter[str] = Counter()
    for s in scores:
        dropped += s.dropped
        invented += s.invented

    def rate(name: str) -> float:
        return sum(bool(getattr(s, name)) for s in scores) / total

    return Summary(len(scores), rate("parsed"), rate("checked"), rate("exact"), rate("strict"),
                   rate("execution"), dropped, invented,
                   Counter(s.error_kind for s in scores if s.error_kind))
