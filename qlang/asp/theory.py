"""The theory as clingo reads it: cut to what a question needs, and indexed for many questions.

Every rule of the theory but a few reads one operation's facts in its positive body
(``state(T, O) :- select(T, TI, C), ...``), and operations' facts come only from the question,
so a rule for an operation the question does not use grounds to nothing.  Leaving such rules out
gives the same ground program, at a fraction of the cost: clingo spends most of a small
question's time parsing and preparing the theory's ~80 rules, not grounding them.  (`needs`)

For many questions over one scene (`Shared`), the scene and the rules that read only the scene
are grounded once, and each question is grounded on top of them, clingo multi-shot.  A question's
atoms must not meet the next question's, so every predicate a question brings or derives takes
the question's number first (``state(K, T, O)``), and every rule of a question holds only while
its external ``active(K)`` does: assigned true while the question is solved, released (false for
good) after.  Several questions solved in one search read their costs off the model: each weak
constraint is also a rule deriving an atom per tuple it counts (`Shared.tally`).  The theory
files stay as they are written; this module rewrites them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeVar

import clingo
import clingo.ast as ast
from clingo.ast import ASTType

from qlang import jsontext
from qlang.asp.scene import domain
from qlang.paths import cache_dir, replacing, resource_dir
from qlang.signatures import SIGNATURES

#: The theory's choice rules for query, choose_attr, choose_rel and common: qlang's, among the
#: values the scene has, or the seed thesis's, among the value domain (theory/semantics/).
SEMANTICS = ("qlang", "thesis")
#: What a question is made of: one predicate per operation, and `end`.
INPUTS = frozenset(SIGNATURES) | {"end"}
#: What a scene (and the thesis's value domain) is made of.
SCENE = frozenset({"object", "has_attr", "has_rel", "has_obj_weight", "uncertain", "is_attr",
                   "is_attr_value"})
_DOMAIN = frozenset({"is_attr", "is_attr_value"})


def files(semantics: str) -> list[str]:
    """The theory's files under a semantics: ``theory/*.lp`` in name order, then the
    value-valued operations' choice rules of ``theory/semantics/<semantics>.lp``."""
    if semantics not in SEMANTICS:
        raise ValueError(f"unknown semantics {semantics!r} (one of {', '.join(SEMANTICS)})")
    folder = resource_dir("theory")
    parts = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.lp"))]
    return [*parts, (folder / "semantics" / f"{semantics}.lp").read_text(encoding="utf-8")]


@cache
def theory(semantics: str = "qlang") -> str:
    """The whole theory under a semantics (`SEMANTICS`), with the thesis's value domain."""
    parts = files(semantics)
    return "\n".join([*parts, domain()] if semantics == "thesis" else parts)


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    #: operations it reads in its positive body: without their facts it grounds to nothing
    needs: frozenset[str]
    #: predicates it mentions, and those it defines
    reads: frozenset[str]
    writes: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Theory:
    statements: tuple[Statement, ...]
    #: the thesis's value domain (facts), needed only by a statement that reads it
    domain: str


#: where the analysed theory is kept between processes (reading clingo's AST costs ~35 ms)
CACHE = cache_dir("theory")
#: the analyses' version, in every kept file's name: raised when one keeps something else, so
#: that no process reads what an older analysis kept for the same theory
ANALYSIS = 3


@cache
def parsed(semantics: str = "qlang") -> Theory:
    """The theory's statements, each with the operations it needs; analysed once per theory
    text, then read from the cache (`_kept`)."""
    text = "\n".join(files(semantics))

    def analyse() -> list[list[object]]:
        return [[s.text, sorted(s.needs), sorted(s.reads), sorted(s.writes)]
                for s in map(_statement, _parse(text))]

    def build(rows: Any) -> Theory:
        statements = [Statement(t, frozenset(n), frozenset(r), frozenset(w)) for t, n, r, w in rows]
        return Theory(tuple(statements), domain() if semantics == "thesis" else "")

    return _kept("statements", text, analyse, build)


T = TypeVar("T")


def _kept(kind: str, text: str, analyse: Callable[[], object], build: Callable[[Any], T]) -> T:
    """What `build` makes of `analyse`'s JSON rows for a theory `text`, the rows kept in `CACHE`
    between processes (reading clingo's AST costs tens of milliseconds a process): a copy that
    is missing, damaged or unreadable is analysed again, and an unwritable cache only costs the
    time."""
    path = CACHE / f"{kind}-{ANALYSIS}-{hashlib.sha256(text.encode()).hexdigest()[:32]}.json"
    try:
        kept = jsontext.loads(path.read_text(encoding="utf-8"))
        if kept["digest"] != _digest(kept["rows"]):
            raise ValueError("a damaged cache")  # analysed again below: its text is ASP run as is
        return build(kept["rows"])
    except (OSError, ValueError, TypeError, KeyError):
        rows = analyse()
        with contextlib.suppress(OSError):
            CACHE.mkdir(parents=True, exist_ok=True)
            with replacing(path) as partial:
                partial.write_text(json.dumps({"digest": _digest(rows), "rows": rows}), encoding="utf-8")
        return build(rows)


def _digest(rows: object) -> str:
    """A checksum of the cached rows: a cache cut or overwritten into other valid JSON is
    analysed again, never run."""
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def cut(operations: Collection[str], scene: str, semantics: str = "qlang") -> str:
    """The theory cut to the statements that can ground anything with a question of these
    `operations` (its facts' names, ``end`` among them) and this scene.

    Any operation name followed by "(" in the scene keeps its rules too, so that a scene that
    brings operation facts of its own is served as well.
    """
    # a scene brings an operation's facts only as ``name(``: looking for those few strings is
    # far cheaper than listing every word of a large scene (more than its grounding costs)
    words = {name for name in INPUTS if name in operations or name + "(" in scene}
    theory = parsed(semantics)
    kept = [s for s in theory.statements if s.needs <= words]
    if theory.domain and any(s.reads & _DOMAIN for s in kept if not s.writes & _DOMAIN):
        kept.append(Statement(theory.domain, frozenset(), frozenset()))
    return "\n".join(s.text for s in kept)


@dataclass(frozen=True, slots=True)
class Shared:
    """The theory split for multi-shot solving: `base` is grounded once with the scene; each of
    `parts` (name, operations it needs, text under ``#program name(k).``) with the question."""

    base: str
    parts: tuple[tuple[str, frozenset[str], str], ...]
    #: the predicates that carry the question's number
    indexed: frozenset[str]
    #: the operations (name, arity) a question's facts may state: ``op(k, x1, ..., xn)`` goes
    #: straight into clingo's backend (clingo prepares every statement it was ever given again
    #: at each grounding, so facts are not added as statements)
    facts: frozenset[tuple[str, int]]
    #: beside `parts`, where several questions are solved in one search: each weak constraint as
    #: a rule deriving ``TALLY(k, Priority, Weight, (k, Terms...))``, one atom per tuple clingo
    #: counts, so that each question's cost can be read off the one model
    tally: tuple[tuple[str, frozenset[str], str], ...] = ()


#: The predicate of `Shared.tally`'s atoms: no theory rule writes it, and rules files derive
#: only class, attr and rel.
TALLY = "qlang_cost"


@cache
def shared(semantics: str = "qlang") -> Shared | None:
    """The theory split for multi-shot solving; None where questions write scene predicates (the
    thesis's choice rules choose `has_attr`/`has_rel` atoms, so its questions cannot share them).
    Split once per theory text, then read from the cache (`_kept`), as `parsed` is."""
    text = "\n".join(files(semantics))

    def analyse() -> dict[str, object] | None:
        split = _split(text)
        if split is None:
            return None
        return {"base": split.base, "parts": _rows(split.parts), "tally": _rows(split.tally),
                "indexed": sorted(split.indexed), "facts": sorted(split.facts)}

    def build(rows: Any) -> Shared | None:
        if rows is None:
            return None
        return Shared(str(rows["base"]), _parts(rows["parts"]), frozenset(rows["indexed"]),
                      frozenset((str(name), int(arity)) for name, arity in rows["facts"]),
                      _parts(rows["tally"]))

    return _kept("shared", text, analyse, build)


def _rows(parts: tuple[tuple[str, frozenset[str], str], ...]) -> list[list[object]]:
    return [[name, sorted(needs), text] for name, needs, text in parts]


def _parts(rows: Any) -> tuple[tuple[str, frozenset[str], str], ...]:
    return tuple((str(name), frozenset(needs), str(text)) for name, needs, text in rows)


def _split(text: str) -> Shared | None:
    """`shared`, analysed from the theory's text."""
    statements = _parse(text)
    rules = [s for s in statements if s.ast_type in (ASTType.Rule, ASTType.Minimize)]
    indexed = {p for s in rules for p in _atoms(s)} - SCENE
    written = {p for s in rules if _atoms(s).keys() & indexed for p in _atoms(s, heads=True)}
    if written & SCENE:
        return None
    k = ast.SymbolicTerm(statements[0].location, clingo.Function("k"))
    active = ast.Literal(k.location, ast.Sign.NoSign,
                         ast.SymbolicAtom(ast.Function(k.location, "active", [k], False)))
    index = _Index(indexed, k)
    inputs: set[tuple[str, int]] = set()
    base: list[str] = ["#show."]  # the answer is shown per question, as ans(V)
    parts: dict[frozenset[str], list[str]] = {frozenset(): ["#external active(k)."]}
    tally: dict[frozenset[str], list[str]] = {}
    needs_of = _derived_needs(statements)
    for s in statements:
        needs = needs_of(s)
        if s.ast_type in (ASTType.Rule, ASTType.Minimize) and _atoms(s).keys() & indexed:
            s = index(s)
            if s.ast_type == ASTType.Minimize:  # one question's costs never merge with another's
                s = s.update(terms=[k, *s.terms])
                tally.setdefault(needs, []).append(str(_tally(s, k, active)))
            parts.setdefault(needs, []).append(str(s.update(body=[active, *s.body])))
        elif s.ast_type == ASTType.Defined and s.name in indexed:
            if s.name in INPUTS:
                inputs.add((s.name, s.arity))
        elif s.ast_type == ASTType.ShowSignature and s.name in indexed:
            xs = ",".join(f"X{i}" for i in range(s.arity))
            parts[frozenset()].append(f"#show {s.name}({xs}) : {s.name}(k,{xs}).")
        else:
            base.append(str(s))
    named = tuple((f"question_{'_'.join(sorted(needs))}", needs, "\n".join(texts))
                  for needs, texts in parts.items())
    tallied = tuple((f"tally_{'_'.join(sorted(needs))}", needs, "\n".join(texts))
                    for needs, texts in tally.items())
    return Shared("\n".join(base), named, frozenset(indexed), frozenset(inputs), tallied)


def _tally(s: ast.AST, k: ast.AST, active: ast.AST) -> ast.AST:
    """A weak constraint ``:~ Body. [W@P, k, Terms]`` as the rule
    ``TALLY(k, P, W, (k, Terms)) :- active(k), Body.``: true exactly when the constraint's
    tuple counts, one atom per tuple as clingo counts each tuple once."""
    where = s.location
    terms = ast.Function(where, "", list(s.terms), False)
    head = ast.Literal(where, ast.Sign.NoSign, ast.SymbolicAtom(
        ast.Function(where, TALLY, [k, s.priority, s.weight, terms], False)))
    return ast.Rule(where, head, [active, *s.body])


def _derived_needs(statements: list[ast.AST]) -> Callable[[ast.AST], frozenset[str]]:
    """A statement's needs, counting those of the predicates its positive body reads: a weak
    constraint on ``know_best`` grounds to nothing without `know`'s facts, as `know`'s rules
    do, so it goes with them rather than into every question's grounding."""
    writers: dict[str, list[frozenset[str]]] = {}
    for s in statements:
        if s.ast_type == ASTType.Rule:
            for name in _atoms(s, heads=True):
                writers.setdefault(name, []).append(_statement(s).needs)

    def needs(s: ast.AST) -> frozenset[str]:
        own = _statement(s).needs
        if s.ast_type not in (ASTType.Rule, ASTType.Minimize):
            return own
        for name in _positive(s):
            if (found := writers.get(name)) and all(found):
                own |= frozenset.intersection(*found)
        return own

    return needs


def _positive(s: ast.AST) -> set[str]:
    """The predicates a rule's body reads in plain positive literals."""
    return {lit.atom.symbol.name for lit in s.body
            if lit.ast_type == ASTType.Literal and lit.sign == ast.Sign.NoSign
            and lit.atom.ast_type == ASTType.SymbolicAtom and lit.atom.symbol.ast_type == ASTType.Function}


def _parse(text: str) -> list[ast.AST]:
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return [s for s in statements if s.ast_type not in (ASTType.Program, ASTType.Comment)]


def _statement(s: ast.AST) -> Statement:
    needs: frozenset[str] = frozenset()
    if s.ast_type in (ASTType.Rule, ASTType.Minimize):
        needs = frozenset(
            lit.atom.symbol.name for lit in s.body
            if lit.ast_type == ASTType.Literal and lit.sign == ast.Sign.NoSign
            and lit.atom.ast_type == ASTType.SymbolicAtom
            and lit.atom.symbol.ast_type == ASTType.Function and lit.atom.symbol.name in INPUTS)
    elif s.ast_type == ASTType.Defined and s.name in INPUTS:
        needs = frozenset([s.name])
    return Statement(str(s), needs, frozenset(_atoms(s)), frozenset(_atoms(s, heads=True)))


class _Atoms(ast.Transformer):
    """The predicates (name -> arity) a statement mentions, or only those its head defines."""

    def __init__(self, heads: bool) -> None:
        self.found: dict[str, int] = {}
        self.heads = heads

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        if node.symbol.ast_type == ASTType.Function:
            self.found[node.symbol.name] = len(node.symbol.arguments)
        return node

    def visit_ConditionalLiteral(self, node: ast.AST) -> ast.AST:
        self(node.literal)
        if not self.heads:
            self.visit_sequence(node.condition)
        return node


def _atoms(s: ast.AST, *, heads: bool = False) -> dict[str, int]:
    visitor = _Atoms(heads)
    if heads:
        if s.ast_type == ASTType.Rule:
            visitor(s.head)
    else:
        visitor(s)
    return visitor.found


class _Index(ast.Transformer):
    """Puts the question's number first in every atom of a question predicate."""

    def __init__(self, names: set[str], k: ast.AST) -> None:
        self.names = names
        self.k = k

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:
        symbol = node.symbol
        if symbol.ast_type == ASTType.Function and symbol.name in self.names:
            return node.update(symbol=symbol.update(arguments=[self.k, *symbol.arguments]))
        return node
