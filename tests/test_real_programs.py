"""The 3,091 real GQA questions: every gold program converts and round-trips."""

from __future__ import annotations

from collections import Counter

import qlang
from qlang.errors import QlangError
from qlang.passes.canonical import canonicalize
from qlang.passes.typecheck import check
from qlang.syntax import SYNTAXES, gqa
from tests.conftest import all_questions, questions

ASP = ("flat", "nested", "code")


def _gold(question: dict) -> qlang.Node:
    return canonicalize(gqa.to_ir(gqa.steps_from_json(question["semantic"])))


def test_every_gold_program_converts_between_all_syntaxes(data_dir) -> None:
    questions = all_questions()
    assert len(questions) == 3091
    unlowerable: Counter[str] = Counter()
    mismatches = []
    for qid, question in questions.items():
        try:
            root = _gold(question)
        except QlangError as exc:
            unlowerable[exc.diagnostics[0].message] += 1
            continue
        texts = {s: SYNTAXES[s].print(root) for s in ASP}
        for source in ASP:
            for target in ASP:
                converted = qlang.convert(texts[source], target, from_=source)
                if qlang.parse(converted, target) != root or converted != texts[target]:
                    mismatches.append((qid, source, target))
    print(f"\n{len(questions)} gold programs; {sum(unlowerable.values())} cannot be lowered")
    for reason, count in unlowerable.most_common():
        print(f"  {count:5d}  {reason}")
    assert not mismatches, mismatches[:5]
    assert not unlowerable


def test_every_gold_program_checks_clean(data_dir) -> None:
    """Including the vocabulary: the bundled ontology knows every word GQA's programs use."""
    problems: Counter[str] = Counter()
    for question in all_questions().values():
        for diagnostic in check(_gold(question)):
            problems[diagnostic.message] += 1
    assert not problems, problems.most_common(10)


def test_semantic_str_reads_like_the_semantic_list(data_dir) -> None:
    """GQA ships each program twice; both forms must give the same IR."""
    for question in all_questions().values():
        assert qlang.parse(question["semanticStr"], "gqa-str") == _gold(question)


def test_all_66_operation_strings_of_the_dev_set_are_covered(data_dir) -> None:
    operations = {s["operation"] for q in questions("testdev_ood_head.json").values() for s in q["semantic"]}
    assert len(operations) == 66
