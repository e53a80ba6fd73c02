"""`qlangc kb build|stats|paths`: knowledge indexed, described and searched (the `--kb` option
they share with every command that reads knowledge is `qlang.commands.background_options`)."""

from __future__ import annotations

import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import NoReturn

import click

from qlang.commands.background_options import kb_option, knowledge_from
from qlang.commands.console import Bounded, fail
from qlang.errors import QlangError, error
from qlang.knowledge import bundled, sources
from qlang.knowledge.graph import Cut, PathBounds
from qlang.knowledge.index import Index, build, check_target
from qlang.knowledge.relations import BY_NAME
from qlang.knowledge.triples import Triple, normal_word

#: The bounds of `kb paths`, unless its options say otherwise.
_BOUNDS = PathBounds()


@click.group()
def kb() -> None:
    """Knowledge bases: index one (build), describe one (stats), find paths in one (paths)."""


@kb.command("build")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--out", type=click.Path(dir_okay=False),
              help="The index to write.  Default: `default` alone rebuilds the bundled base in the "
                   "cache; else the first FILE's name with .sqlite for its extensions, beside it.")
@click.option("--force", is_flag=True, help="Replace an existing --out that is no knowledge index.")
def build_command(files: tuple[str, ...], out: str | None, force: bool) -> None:
    """Index knowledge files (qlang's TSV, ConceptNet's assertions CSV, gzipped or not, detected;
    `default`, the bundled base; `-`, standard input) into one SQLite index."""
    start, tally = time.perf_counter(), Counter[str]()
    target = _target(files, out) if files != (sources.DEFAULT,) or out is not None else None
    try:
        if target is None:
            index = bundled.rebuild()
        else:
            check_target(target, force=force)
            with _stopping() as stop:
                try:
                    index = build(_triples(files, tally), target, {"source": ", ".join(files)},
                                  force=force, stopped=stop.asked)
                except KeyboardInterrupt:
                    if not stop.asked():
                        raise
                    fail(error(QlangError, "output", f"stopped by {signal.Signals(stop.signal).name} "
                               "before the index was complete; nothing was written", path=str(target)))
    except QlangError as exc:
        fail(exc)
    skipped = "".join(f"; skipped {count:,} ({why})" for why, count in sorted(tally.items()))
    click.echo(f"{index.path}: {index.edge_count:,} edges, {index.words:,} words "
               f"({time.perf_counter() - start:.1f} s){skipped}")


class _Stop:
    """The signal that asked a build to stop (0: none has)."""

    def __init__(self) -> None:
        self.signal = 0

    def asked(self) -> bool:
        return self.signal != 0


@contextmanager
def _stopping() -> Iterator[_Stop]:
    """SIGINT and SIGTERM, while an index is built, raise KeyboardInterrupt and are remembered
    in the `_Stop` given: the build removes its partial file and says which signal stopped it
    (SIGTERM would otherwise end the process at once and leave the partial file behind)."""
    stop = _Stop()

    def handler(number: int, frame: FrameType | None) -> None:
        stop.signal = number
        raise KeyboardInterrupt

    before = {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for number, handling in before.items():
            signal.signal(number, handling)


def _target(files: tuple[str, ...], out: str | None) -> Path:
    named = [Path(file) for file in files if file not in (sources.DEFAULT, "-")]
    if out is None:
        if not named:
            raise click.UsageError("give --out: no FILE names the index")
        target = named[0].with_name(Path(named[0].name.removesuffix(".gz")).stem + ".sqlite")
    else:
        target = Path(out)
    if any(target.resolve() == path.resolve() for path in named):
        raise click.UsageError(f"{target} is an input: the index would overwrite it")
    return target


def _triples(files: tuple[str, ...], tally: Counter[str]) -> Iterator[Triple]:
    for file in files:
        if file == "-":
            if sys.stdin is None:
                raise error(QlangError, "input", "standard input is closed", path="<stdin>")
            yield from sources.read(sys.stdin.buffer, "<stdin>", tally)
        else:
            yield from sources.triples(file, tally)


@kb.command()
@kb_option
def stats(kb: tuple[str, ...]) -> None:
    """What the knowledge in use holds: edges per relation and words, for each base."""
    knowledge = knowledge_from(kb)
    if not knowledge.indexes:
        click.echo("no knowledge (--kb none)")
    for index in knowledge.indexes:
        _describe(index)


def _describe(index: Index) -> None:
    click.echo(f"{index.path}: {index.about.get('source', '')}")
    click.echo(f"  {index.edge_count:,} edges, {index.words:,} words")
    width = max(map(len, index.relations), default=0)
    for relation, count in sorted(index.relations.items(), key=lambda item: (-item[1], item[0])):
        click.echo(f"  {relation:<{width}}  {count:>9,}")


@kb.command()
@click.argument("start")
@click.argument("goal")
@click.option("--max-hops", type=click.IntRange(min=1, max=6), default=3, show_default=True,
              help="The most edges a path has.")
@click.option("--relation", "relations", multiple=True, type=click.Choice(sorted(BY_NAME)),
              help="Walk only these relations (repeatable; default: all).")
@click.option("--both-ways", is_flag=True, help="Walk every edge against its direction too (shown <-r-).")
@click.option("--limit", type=click.IntRange(min=1, max=1000), default=10, show_default=True,
              help="How many paths, best first.")
@click.option("--max-edges", type=click.IntRange(min=2, max=10_000_000), default=_BOUNDS.edges,
              show_default=True, help="The most edges read around START and GOAL (the strongest first).")
@click.option("--max-visits", type=click.IntRange(min=1, max=10_000_000), default=_BOUNDS.visits,
              show_default=True, help="The most partial paths the search weighs.")
@click.option("--timeout", type=Bounded(min=0, min_open=True, max=86_400), default=_BOUNDS.seconds,
              show_default=True, help="The most seconds the search takes.")
@kb_option
def paths(start: str, goal: str, max_hops: int, relations: tuple[str, ...], both_ways: bool, limit: int,
          max_edges: int, max_visits: int, timeout: float, kb: tuple[str, ...]) -> None:
    """The best paths from START to GOAL, by the product of their edges' weights, best first:
    `qlangc kb paths cup drinking`.  A search that reaches --max-edges, --max-visits or
    --timeout prints the paths it found, which are the best of what it saw, and says so."""
    start, goal = _word(start, "START"), _word(goal, "GOAL")
    knowledge = knowledge_from(kb)
    for word in (start, goal):
        if not knowledge.knows(word):
            _none(f"{word!r} is in no knowledge base in use")
    found = knowledge.search(start, goal, max_hops, relations=relations or None, both_ways=both_ways,
                             limit=limit, bounds=PathBounds(max_edges, max_visits, timeout))
    for path in found.paths:
        click.echo(f"{path.weight:.3f}  {path}")
    cut = f"; {_CUT[found.cut]}" if found.cut is not None else ""
    if not found.paths:
        _none(f"no path of at most {max_hops} edges from {start!r} to {goal!r}{cut}")
    if found.cut is not None:
        click.echo(f"note: the search stopped early: {_CUT[found.cut]}", err=True)


#: What each bound that cut a search short says: what it did, and the option that raises it.
_CUT: dict[Cut, str] = {
    "edges": "it read the strongest edges near the words up to --max-edges (raise it to read more)",
    "visits": "it weighed --max-visits partial paths (raise it to weigh more)",
    "seconds": "it ran out of time (raise --timeout to give it more)",
}


def _word(text: str, name: str) -> str:
    try:
        return normal_word(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint=name) from None


def _none(message: str) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(1)
