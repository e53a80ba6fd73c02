"""Answering a query over a scene with clingo: ranked answers, or a reason why not.

`solve` grounds the query on a Control of its own (`qlang.asp.session.ground`) and `ranked`
reads its answers off the session: the top k from k optimisations, each assuming the answers
found so far false, so they are distinct and in cost order; or the k best models.  A scene
grounded once for many queries answers them the same way (`qlang.asp.multishot`)."""

from __future__ import annotations

import clingo

from qlang.asp.options import DEFAULT_OPTIONS, SolveOptions
from qlang.asp.outcome import Answer, Solution, SolveError
from qlang.asp.query import Query
from qlang.asp.session import Session, ground


def solve(query: Query, scene: str, options: SolveOptions = DEFAULT_OPTIONS) -> Solution:
    """The k best models of a query over scene facts, cheapest first, as answers with their
    rank; with `distinct`, the k best distinct answers instead; `semantics` picks the theory's
    choice rules (`qlang.asp.theory.SEMANTICS`); `background`, the knowledge and rules besides
    the scene; with `atoms`, the best model's atoms too (all of them `options`).

    >>> from qlang.asp.query import read
    >>> cat = read("scene(0). select(1, 0, cat). exist(2, 1). end(2).")
    >>> solve(cat, "object(1). has_attr(1, class, dog).")
    Solution(answers=(Answer(value='no', cost=(), rank=1),), complete=True)
    """
    return ranked(ground(query, scene, options), options)


def ranked(session: Session, options: SolveOptions) -> Solution:
    """A grounded query's answers: its `top_k` best models, or best distinct answers, ranked."""
    top_k, atoms = options.top_k, options.atoms
    if not options.distinct:
        models, complete = session.best_models(top_k, atoms=atoms)
        rank: dict[tuple[int, ...], int] = {}
        for index, model in enumerate(models):
            rank.setdefault(model.cost, index + 1)
        return Solution(tuple(Answer(m.answer, m.cost, rank[m.cost]) for m in models), complete,
                        models[0].atoms if models else ())
    answers: list[Answer] = []
    found: list[tuple[clingo.Symbol, bool]] = []
    best_atoms: tuple[clingo.Symbol, ...] = ()
    for _ in range(top_k):
        try:
            best = session.optimum(found, atoms=atoms and not answers)
        except SolveError:
            if not answers:
                raise
            return Solution(tuple(answers), False, best_atoms)
        if best is None:
            break
        best_atoms = best_atoms or best.atoms
        tied = answers and answers[-1].cost == best.cost  # tied answers share a rank, as models do
        answers.append(Answer(best.answer, best.cost, answers[-1].rank if tied else len(answers) + 1))
        found += [(session.answer_atom(s), False) for s in best.shown if s.name == "ans"]
    return Solution(tuple(answers), True, best_atoms)
