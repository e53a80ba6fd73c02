"""AVIS's decision loop (its Algorithm 2) over qlang's tools, within bounds.

The memory starts with the question (and the photo or scene); the state is `start` (or
`translate` where a program is given).  At each step the planner picks one of the tools the
graph allows in the state (`graph.feasible`), the tool runs, and the reasoner judges its output:
uninformative, it is dropped and the planner chooses again in the same state without that tool
(backtracking); informative, it is kept and the tool's name becomes the state; final, its answer
is the answer.  When no tool is left, or a bound is reached (`--max-steps`, `--budget-ms`), the
answer is "cannot tell", with the reason the last judgement gave.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from qlang.ir import Node
from qlang.seek.memory import Memory, Programmed
from qlang.seek.planner import Planner, Priority
from qlang.seek.reasoner import FINAL, UNINFORMATIVE, Verdict, judge
from qlang.seek.tools import Context
from qlang.seek.transitions import GRAPH, START, feasible
from qlang.timing import Stages

CANNOT_TELL = "cannot tell"


@dataclass(frozen=True)
class Bounds:
    #: the most tools run
    max_steps: int = 24
    #: the most wall-clock milliseconds, model loads included; a tool whose nominal cost no longer
    #: fits is not started
    budget_ms: float = 60_000.0


@dataclass(frozen=True)
class ToolCall:
    number: int
    state: str
    tool: str
    #: the tool's output, in brief
    output: str
    verdict: Verdict
    ms: float

    def to_json(self) -> dict[str, object]:
        return {"step": self.number, "state": self.state, "tool": self.tool, "output": self.output,
                **self.verdict.to_json(), "ms": round(self.ms, 1)}


@dataclass(frozen=True)
class Sought:
    """An answer with its confidence, or "cannot tell" with the reason; and how it was found."""

    #: None: cannot tell
    answer: str | None
    confidence: float
    reason: str
    #: the program answered (the last kept)
    program: str | None
    steps: tuple[ToolCall, ...]
    planner: str
    stages: Stages

    def to_json(self) -> dict[str, Any]:
        return {"answer": self.answer if self.answer is not None else CANNOT_TELL,
                "cannot_tell": self.answer is None, "confidence": round(self.confidence, 4),
                "reason": self.reason, "program": self.program, "planner": self.planner,
                "steps": [step.to_json() for step in self.steps],
                "time_ms": {stage: round(s * 1000, 1) for stage, s in self.stages.seconds.items()}}

    def render(self) -> str:
        """The trace as a table (each tool, its output in brief, the verdict), then the answer."""
        rows = [("step", "state", "tool", "output", "verdict")]
        rows += [(str(s.number), s.state, s.tool, _short(s.output, 58),
                  f"{s.verdict.kind}: {s.verdict.why}") for s in self.steps]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
                 + "  " + row[4] for row in rows]
        if self.answer is None:
            lines.append(f"answer:  {CANNOT_TELL} ({self.reason})")
        else:
            lines.append(f"answer:  {self.answer} (confidence {self.confidence:.2f}: {self.reason})")
        return "\n".join(lines)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def seek(question: str | None, context: Context, *, image: str | None = None,
         scene: dict[str, Any] | None = None, scene_facts: str | None = None, program: Node | None = None,
         planner: Planner | None = None, graph: Mapping[str, tuple[str, ...]] = GRAPH,
         bounds: Bounds = Bounds()) -> Sought:
    """Answer `question` (or the checked `program`) about the photo `image`, the scene graph
    `scene` or the ASP facts `scene_facts`, running the tools `graph` allows as `planner`
    chooses, within `bounds`."""
    planner = planner or Priority()
    start = time.perf_counter()
    loads_before = dict(context.loaded.seconds)
    context.stages = Stages()
    if image is not None and context.perceiver is None:
        from qlang.pipeline import load_perceiver

        context.perceiver = load_perceiver(context.vision)  # loads beside translating
    memory = Memory(question, image, scene, scene_facts)
    state = START
    if program is not None:
        memory.add(Programmed("given", program))
        state = "translate"
    excluded: set[str] = set()
    steps: list[ToolCall] = []
    #: why no answer yet: how the last answer was judged (solve, explain), else the last failure
    doubts: dict[bool, str] = {}
    while True:
        left = bounds.budget_ms - (time.perf_counter() - start) * 1000
        doubt = doubts.get(True) or doubts.get(False) or "no tool could answer"
        if len(steps) >= bounds.max_steps:
            reason = f"the bound of {bounds.max_steps} steps is reached; {doubt}"
            break
        tools = feasible(graph, state, memory, context, excluded, left)
        if not tools:
            spent = feasible(graph, state, memory, context, excluded, float("inf"))
            reason = f"the budget of {bounds.budget_ms:g} ms is spent; {doubt}" if spent else doubt
            break
        tool = planner.choose(state, tools, memory, [f"{s.tool}: {s.output}" for s in steps])
        memory.ran.add((tool.name, tool.key(memory, context)))
        began = time.perf_counter()
        output = tool.run(memory, context)
        verdict = judge(tool.name, output, memory, context)
        steps.append(ToolCall(len(steps) + 1, state, tool.name, output.brief(), verdict,
                              (time.perf_counter() - began) * 1000))
        if tool.name in ("solve", "explain") or verdict.kind == UNINFORMATIVE:
            doubts[tool.name in ("solve", "explain")] = verdict.why
        if verdict.kind == UNINFORMATIVE:
            excluded.add(tool.name)
            continue
        memory.add(output)
        state, excluded = tool.name, set()
        if verdict.kind == FINAL:
            assert verdict.answer is not None and verdict.confidence is not None
            return _sought(verdict.answer, verdict.confidence, verdict.why, memory, steps, planner,
                           context, loads_before)
    return _sought(None, 0.0, reason, memory, steps, planner, context, loads_before)


def _sought(answer: str | None, confidence: float, reason: str, memory: Memory, steps: list[ToolCall],
            planner: Planner, context: Context, loads_before: dict[str, float]) -> Sought:
    stages = Stages()
    for label, seconds in context.loaded.seconds.items():  # the models this search loaded
        if seconds > loads_before.get(label, 0.0):
            stages.add(label, seconds - loads_before.get(label, 0.0))
    for label, seconds in context.stages.seconds.items():
        stages.add(label, seconds)
    program = memory.program.brief() if memory.program is not None else None
    return Sought(answer, confidence, reason, program, tuple(steps), planner.name, stages)
