"""The knowledge in use (one or more indexes, read as one graph) and the two questions a
question asks of it: the neighbourhood of some words, and the best paths between two.

A *hop* walks an edge from its head to its tail; a symmetric relation's edges (and, with
`both_ways`, every edge) are also walked from tail to head.  `neighbourhood(words, k)` is every
edge a walk of at most k hops from `words` can take: what grounding a question needs, so that
it never touches the rest of a graph of millions of edges.  A path weighs the product of its
edges' weights; `paths` finds the best simple paths of at most k hops, best first, as GATHER
ranks its inference paths, in the small graph that two half-length walks (out of the start,
into the goal) reach.  Where several indexes hold one edge, its greatest weight counts.

A search is bounded (`PathBounds`): in a dense graph or around a hub of millions of edges the walks
would read the whole index and the partial paths would outgrow any memory, so the walks keep
the strongest edges up to a count, the partial paths are counted, and a deadline stops both
(SQLite's queries included).  A search cut short keeps the paths found, which are still the
best of what it saw, in order, and says which bound cut it.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Literal, TypeVar

from qlang.knowledge.index import Index, OutOfTime
from qlang.knowledge.relations import BY_NAME, SYMMETRIC
from qlang.knowledge.triples import Triple

T = TypeVar("T", Triple, "Hop")
#: Partial paths looked at between two looks at the clock.
_TICK = 1000
#: Which bound cut a search short.
Cut = Literal["edges", "visits", "seconds"]


@dataclass(frozen=True, slots=True)
class PathBounds:
    """The most a path search does: `edges` read from the indexes (the two walks together),
    partial paths `visits`ed, and `seconds`."""

    edges: int = 20_000
    visits: int = 200_000
    seconds: float = 5.0


@dataclass(frozen=True, slots=True)
class PathsFound:
    """The paths a search found, best first, and the bound that `cut` it short (None: every
    path of the graph is among those it weighed)."""

    paths: list[Path]
    cut: Cut | None = None


@dataclass(frozen=True, slots=True, order=True)
class Hop:
    """An edge walked from head to tail, or `backward` from tail to head."""

    triple: Triple
    backward: bool = False

    @property
    def start(self) -> str:
        return self.triple.tail if self.backward else self.triple.head

    @property
    def weight(self) -> float:
        return self.triple.weight

    @property
    def end(self) -> str:
        return self.triple.head if self.backward else self.triple.tail

    def __str__(self) -> str:
        """How the hop reads after its start: ``-used_for-> drinking``; an edge walked against
        its direction ``<-is_a- motorcycle`` (a symmetric one reads the same both ways)."""
        relation = self.triple.relation
        if self.backward and relation not in SYMMETRIC:
            return f"<-{relation}- {self.end}"
        return f"-{relation}-> {self.end}"


@dataclass(frozen=True, slots=True)
class Path:
    hops: tuple[Hop, ...]

    @property
    def weight(self) -> float:
        return math.prod(hop.weight for hop in self.hops)

    def __str__(self) -> str:
        """``cup -used_for-> drinking -related_to-> water``"""
        return " ".join([self.hops[0].start, *map(str, self.hops)])


class Knowledge:
    """Indexes read together as one graph (none: a graph without edges)."""

    def __init__(self, indexes: Sequence[Index]) -> None:
        self.indexes = tuple(indexes)

    def edges(self, words: Iterable[str], *, into: bool = False, relations: Collection[str] | None = None,
              limit: int | None = None) -> list[Triple]:
        """The edges out of `words` (into them, with `into`), of `relations` (default: all),
        sorted; an edge several indexes hold once, with its greatest weight; with `limit`, the
        `limit` strongest (ties in edge order)."""
        wanted = set(words)
        best: dict[tuple[str, str, str], float] = {}
        for index in self.indexes:
            for edge in index.edges(wanted, into=into, relations=relations, limit=limit):
                key = (edge.head, edge.relation, edge.tail)
                best[key] = max(best.get(key, 0.0), edge.weight)
        return sorted(_strongest([Triple(*key, weight) for key, weight in best.items()], limit))

    def knows(self, word: str) -> bool:
        """Whether some index has an edge with `word` at one of its ends."""
        return any(index.knows(word) for index in self.indexes)

    def hops(self, words: Iterable[str], *, into: bool = False, relations: Collection[str] | None = None,
             both_ways: bool = False, limit: int | None = None) -> list[Hop]:
        """Every hop out of `words` (into them, with `into`), sorted; with `limit`, the
        `limit` strongest (ties in hop order)."""
        wanted = set(words)
        found = [Hop(edge) for edge in self.edges(wanted, into=into, relations=relations, limit=limit)]
        against = relations if both_ways else SYMMETRIC.intersection(BY_NAME if relations is None
                                                                      else relations)
        if against is None or against:
            found += [Hop(edge, backward=True)
                      for edge in self.edges(wanted, into=not into, relations=against, limit=limit)]
        return sorted(_strongest(found, limit))

    def reach(self, words: Iterable[str], hops: int, *, into: bool = False,
              relations: Collection[str] | None = None, both_ways: bool = False,
              limit: int | None = None) -> set[Hop]:
        """Every hop a walk of at most `hops` hops out of `words` takes (into them, with
        `into`: the walks that end in `words`), breadth first, one query per level; with
        `limit`, at most that many, the strongest of each level first (as GATHER keeps the
        heaviest neighbours of a hub)."""
        seen = frontier = set(words)
        taken: set[Hop] = set()
        for _ in range(hops):
            left = None if limit is None else limit - len(taken)
            if not frontier or left == 0:
                break
            level = self.hops(frontier, into=into, relations=relations, both_ways=both_ways, limit=left)
            taken.update(level)
            frontier = {hop.start if into else hop.end for hop in level} - seen
            seen = seen | frontier
        return taken

    def neighbourhood(self, words: Iterable[str], hops: int, *, relations: Collection[str] | None = None,
                      both_ways: bool = False, limit: int | None = None) -> list[Triple]:
        """Every edge a walk of at most `hops` hops out of `words` can take (at most `limit`,
        as `reach` picks them), sorted: the knowledge a question about `words` needs grounded."""
        return sorted({hop.triple for hop in self.reach(words, hops, relations=relations,
                                                         both_ways=both_ways, limit=limit)})

    def paths(self, start: str, goal: str, max_hops: int = 3, *, relations: Collection[str] | None = None,
              both_ways: bool = False, limit: int = 10) -> list[Path]:
        """The best `limit` simple paths of 1 to `max_hops` hops from `start` to `goal`, best
        first (ties: shorter first, then in word order), within the default `PathBounds`."""
        return self.search(start, goal, max_hops, relations=relations, both_ways=both_ways, limit=limit).paths

    def search(self, start: str, goal: str, max_hops: int = 3, *, relations: Collection[str] | None = None,
               both_ways: bool = False, limit: int = 10, bounds: PathBounds = PathBounds()) -> PathsFound:
        """`paths`, within `bounds`, saying which one cut the search short."""
        deadline = time.monotonic() + bounds.seconds
        side = max(1, bounds.edges // 2)
        try:
            with self._until(deadline):
                out = self.reach([start], (max_hops + 1) // 2, relations=relations, both_ways=both_ways,
                                 limit=side)
                into = self.reach([goal], max_hops // 2, into=True, relations=relations, both_ways=both_ways,
                                  limit=side)
        except OutOfTime:
            return PathsFound([], "seconds")
        found = self._best(start, goal, out | into, max_hops, limit, bounds.visits, deadline)
        cut = "edges" if found.cut is None and side in (len(out), len(into)) else found.cut
        return PathsFound(found.paths, cut)

    @contextmanager
    def _until(self, deadline: float) -> Iterator[None]:
        with ExitStack() as stack:
            for index in self.indexes:
                stack.enter_context(index.until(deadline))
            yield

    @staticmethod
    def _best(start: str, goal: str, hops: set[Hop], max_hops: int, limit: int, visits: int,
              deadline: float) -> PathsFound:
        """The best `limit` simple paths from `start` to `goal` over `hops`, best first, looking
        at no more than `visits` partial paths and stopping at `deadline`."""
        shown: dict[tuple[str, str], Hop] = {}  # one hop of those that read the same, the heaviest
        for hop in sorted(hops, key=lambda hop: (-hop.weight, hop)):
            shown.setdefault((hop.start, str(hop)), hop)
        out: dict[str, list[Hop]] = {}
        for hop in sorted(shown.values()):
            out.setdefault(hop.start, []).append(hop)
        left = _distances_to(goal, hops, max_hops)
        found: list[Path] = []
        queue: list[tuple[float, int, tuple[str, ...], tuple[Hop, ...]]] = [(-1.0, 0, (start,), ())]
        queued = 1
        for popped in itertools.count(1):
            if not queue or len(found) >= limit:
                break
            if popped % _TICK == 0 and time.monotonic() > deadline:
                return PathsFound(found, "seconds")
            weight, length, words, walked = heapq.heappop(queue)
            if walked and words[-1] == goal:
                found.append(Path(walked))
                continue
            for hop in out.get(words[-1], ()):
                if hop.end not in words and hop.end in left and length + 1 + left[hop.end] <= max_hops:
                    if queued >= visits:
                        return PathsFound(found, "visits")
                    queued += 1
                    heapq.heappush(queue, (weight * hop.weight, length + 1, (*words, hop.end),
                                           (*walked, hop)))
        return PathsFound(found)


def _strongest(items: list[T], limit: int | None) -> list[T]:
    """The `limit` strongest of `items` (all, without a limit), ties in their order."""
    if limit is None:
        return items
    return sorted(items, key=lambda item: (-item.weight, item))[:limit]


def _distances_to(goal: str, walked: Iterable[Hop], most: int) -> dict[str, int]:
    """How many of the `walked` hops each word is from `goal`, up to `most` (walking them
    backwards)."""
    into: dict[str, set[str]] = {}
    for hop in walked:
        into.setdefault(hop.end, set()).add(hop.start)
    distance, frontier = {goal: 0}, [goal]
    for hops in range(1, most + 1):
        frontier = list(dict.fromkeys(word for end in frontier for word in into.get(end, ())
                                      if word not in distance))
        distance.update((word, hops) for word in frontier)
    return distance
