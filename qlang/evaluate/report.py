"""The Markdown report of an experiment, with PNG plots, rebuilt from its results log."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from statistics import mean, median
from typing import Any

REPORT = "report.md"
#: The report's rate columns: (heading, the field of the results log it counts).
RATES = (("parse", "parsed"), ("check", "checked"), ("exact", "exact"), ("strict", "strict"),
         ("execution", "execution"), ("answer acc.", "correct"))
#: The program metrics, side by side in the bar plot.
_PLOTTED = ("parse", "check", "strict", "exact", "execution")


@dataclass(frozen=True, slots=True)
class Row:
    config: str
    axes: dict[str, object]
    n: int
    #: heading -> the share of the results having the field where it holds (None: none has it)
    rates: dict[str, float | None]
    seconds: float
    tokens_per_second: float


def rows(results: list[dict[str, Any]], axis_names: list[str]) -> list[Row]:
    """One row per configuration, in the order the log first mentions them."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        groups[result["config"]].append(_upgraded(result))
    table = []
    for config, group in groups.items():
        seconds = [r["seconds"] for r in group if r.get("seconds")]
        speed = [r["completion_tokens"] / r["seconds"] for r in group if r.get("seconds")]
        table.append(Row(config, {a: group[0].get(a) for a in axis_names}, len(group),
                         {heading: _rate(group, key) for heading, key in RATES},
                         median(seconds) if seconds else 0.0, mean(speed) if speed else 0.0))
    return table


def _upgraded(result: dict[str, Any]) -> dict[str, Any]:
    """A result logged before `strict` existed: its `exact` was order-sensitive, today's strict."""
    if "exact" in result and "strict" not in result:
        return {k: v for k, v in result.items() if k != "exact"} | {"strict": result["exact"]}
    return result


def _rate(results: list[dict[str, Any]], key: str) -> float | None:
    having = [r for r in results if key in r]
    return sum(bool(r[key]) for r in having) / len(having) if having else None


def _percent(rate: float | None) -> str:
    return f"{rate:.1%}" if rate is not None else "–"


def write(out: Path, title: str, log: Path, axis_names: list[str], command: str) -> Path:
    """Write `report.md` and its plots next to the log; returns the report's path."""
    results = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    table = rows(results, axis_names)
    plots = [_bars(out, table, title)]
    if "examples" in axis_names:
        plots.append(_by_examples(out, table))
    lines = [f"# {title}", "", f"Command: `{command}`", "",
             f"{len({r['id'] for r in results})} questions, {len(table)} configurations. "
             "parse / check: the output is a program / a well-typed one in the GQA vocabulary; "
             "exact: it equals the gold program up to the order of symmetric operands and of a "
             "choice's alternatives; strict: it equals it as it is (canonical DAGs); execution: "
             "it gives the gold program's outcome on each of a suite of synthetic scenes; time: "
             "median seconds per question; tok/s: generated tokens per second.", ""]
    header = [*axis_names, "n", *(heading for heading, _ in RATES), "time (s)", "tok/s"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table:
        cells = [*(str(row.axes[a]) for a in axis_names), str(row.n),
                 *(_percent(row.rates[heading]) for heading, _ in RATES), f"{row.seconds:.2f}",
                 f"{row.tokens_per_second:.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + [f"![{plot.stem}]({plot.name})" for plot in plots]
    report = out / REPORT
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report


def _figure(width: float = 7.0, height: float = 3.6) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(width, height), dpi=100)


def _bars(out: Path, table: list[Row], title: str) -> Path:
    figure, axes = _figure(max(6.0, 0.5 * len(table) + 3))
    positions = range(len(table))
    width = 0.8 / len(_PLOTTED)
    for offset, name in enumerate(_PLOTTED):
        axes.bar([p + (offset - (len(_PLOTTED) - 1) / 2) * width for p in positions],
                 [r.rates[name] or 0.0 for r in table], width, label=name)
    axes.set_xticks(list(positions), [r.config for r in table], rotation=30 if len(table) > 4 else 0,
                    ha="right" if len(table) > 4 else "center", fontsize=8)
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("rate")
    axes.set_title(title)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path = out / "rates.png"
    figure.savefig(path)
    return path


def _by_examples(out: Path, table: list[Row]) -> Path:
    figure, axes = _figure()
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for row in table:
        cover = " +cover" if row.axes.get("cover_operators") else ""
        exact = row.rates["exact"]
        if exact is not None:
            series[f"{row.axes.get('sampling')}{cover}"].append((int(str(row.axes["examples"])), exact))
    for label, points in sorted(series.items()):
        xs, ys = zip(*sorted(points), strict=True)
        axes.plot(xs, ys, marker="o", label=label)
    axes.set_xlabel("examples in the prompt")
    axes.set_ylabel("exact match with gold")
    axes.legend(fontsize=8)
    figure.tight_layout()
    path = out / "exact_by_examples.png"
    figure.savefig(path)
    return path
