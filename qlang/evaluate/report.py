"""The Markdown report of an experiment, with PNG plots, rebuilt from its results log."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean, median
from typing import Any

from qlang.evaluate.experiments import failures, log_key
from qlang.records.output import read_results

REPORT = "report.md"
#: The report's rate columns: (heading, the field of the results log it counts).
RATES = (("parse", "parsed"), ("check", "checked"), ("exact", "exact"), ("strict", "strict"),
         ("execution", "execution"), ("answer acc.", "correct"), ("answerable", "answerable"))
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
    #: the thesis's "#Avg Examples": examples the prompts showed, on average (None: not logged)
    examples_shown: float | None = None
    #: "generosity@k" -> (accuracy, accuracy over the oracle-answerable questions)
    answers: dict[str, tuple[float, float | None]] = field(default_factory=dict)


def rows(results: list[dict[str, Any]], axis_names: list[str]) -> list[Row]:
    """One row per configuration, in the order the log first mentions them."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        groups[result["config"]].append(_upgraded(result))
    table = []
    for config, group in groups.items():
        table.append(_row(config, {a: group[0].get(a) for a in axis_names}, group))
    return table


def _row(config: str, axes: dict[str, object], group: list[dict[str, Any]]) -> Row:
    seconds = [r["seconds"] for r in group if r.get("seconds")]
    speed = [r["completion_tokens"] / r["seconds"] for r in group if r.get("seconds")]
    shown = [r["examples_shown"] for r in group if isinstance(r.get("examples_shown"), int)]
    return Row(config, axes, len(group), {heading: _rate(group, key) for heading, key in RATES},
               median(seconds) if seconds else 0.0, mean(speed) if speed else 0.0,
               mean(shown) if shown else None, _answer_rates(group))


def _answer_rates(group: list[dict[str, Any]]) -> dict[str, tuple[float, float | None]]:
    """Per generosity@k: accuracy over the judged results, and over the answerable ones."""
    judged = [r for r in group if isinstance(r.get("answer_correct"), dict)]
    answerable = [r for r in judged if r.get("answerable")]
    keys = dict.fromkeys(k for r in judged for k in r["answer_correct"])
    return {key: (sum(bool(r["answer_correct"].get(key)) for r in judged) / len(judged),
                  sum(bool(r["answer_correct"].get(key)) for r in answerable) / len(answerable)
                  if answerable else None) for key in keys}


def by_sampling(results: list[dict[str, Any]]) -> list[Row]:
    """The thesis's Table 5: every configuration of one sampling strategy pooled into a row."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        if "sampling" in result:
            groups[str(result["sampling"])].append(_upgraded(result))
    return [_row(sampling, {"sampling": sampling}, group) for sampling, group in groups.items()]


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
    results = read_results(str(log), log_key)
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
             "median seconds per question; tok/s: generated tokens per second.", *failures(results), ""]
    lines += _table(table, axis_names)
    if "sampling" in axis_names:
        lines += ["", "By sampling strategy (every configuration of it pooled; thesis Table 5):", "",
                  *_table(by_sampling(results), ["sampling"])]
    if any("path" in r for r in results):
        lines += ["", "Which translator answered (a cascade's paths), and how exact each was:", "",
                  *_paths_table(results)]
    if any(row.answers for row in table):
        lines += ["", "Answers over the scene graphs (the k best models; raw / over the questions "
                  "the oracle answers):", "", *_answers_table(table, axis_names)]
    lines += [""] + [f"![{plot.stem}]({plot.name})" for plot in plots]
    report = out / REPORT
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return report


def _table(table: list[Row], axis_names: list[str]) -> list[str]:
    examples = any(row.examples_shown is not None for row in table)
    header = [*axis_names, "n", *(["#avg examples"] if examples else []),
              *(heading for heading, _ in RATES), "vs oracle", "time (s)", "tok/s"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table:
        shown = [f"{row.examples_shown:.2f}" if row.examples_shown is not None else "–"] if examples else []
        oracle = row.answers.get("strict@1", (0.0, None))[1]
        cells = [*(str(row.axes[a]) for a in axis_names), str(row.n), *shown,
                 *(_percent(row.rates[heading]) for heading, _ in RATES), _percent(oracle),
                 f"{row.seconds:.3f}", f"{row.tokens_per_second:.0f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _paths_table(results: list[dict[str, Any]]) -> list[str]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    totals: dict[str, int] = defaultdict(int)
    for result in results:
        totals[result["config"]] += 1
        if "path" in result:
            groups[(result["config"], str(result["path"]))].append(result)
    lines = ["| configuration | path | answers | exact there | time (s) |", "|---|---|---|---|---|"]
    for (config, path), group in groups.items():
        seconds = [r["seconds"] for r in group if r.get("seconds")]
        lines.append(f"| {config} | {path} | {len(group) / totals[config]:.1%} | "
                     f"{_percent(_rate(group, 'exact'))} | {median(seconds) if seconds else 0.0:.3f} |")
    return lines


def _answers_table(table: list[Row], axis_names: list[str]) -> list[str]:
    keys = list(dict.fromkeys(key for row in table for key in row.answers))
    header = [*axis_names, *(f"{key} (raw / oracle)" for key in keys)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table:
        cells = [f"{_percent(row.answers[k][0])} / {_percent(row.answers[k][1])}" if k in row.answers
                 else "–" for k in keys]
        lines.append("| " + " | ".join([*(str(row.axes[a]) for a in axis_names), *cells]) + " |")
    return lines


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
