"""The transition graph (AVIS's Fig. 2, here written from how qlang's stages feed each other):
a state is the last tool whose output was kept (`start` before any), and the graph lists the
tools allowed next, in the order the deterministic planner prefers them.

Which of them can run is read from the working memory as well (AVIS's φ(state, G, M)): a tool
needs something to work on that it has not worked on (`Tool.key`), must not have failed in this
state already (backtracking), and must fit in what is left of the budget.  `NO_GRAPH` is AVIS's
ablation: every tool allowed in every state, the cheapest first.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from qlang.seek.memory import Memory
from qlang.seek.tools import TOOLS, Context, Tool

START = "start"

#: state -> the tools allowed next, preferred first
GRAPH: dict[str, tuple[str, ...]] = {
    START: ("translate", "finetuned"),
    "translate": ("look", "widen", "next_program", "finetuned"),
    "finetuned": ("look", "widen", "next_program"),
    "next_program": ("look", "widen"),
    "look": ("solve", "widen", "knowledge", "look_closer", "refine"),
    "look_closer": ("solve", "widen", "knowledge", "refine"),
    "refine": ("solve", "knowledge"),
    "widen": ("look", "solve"),
    "knowledge": ("solve",),
    "solve": ("look_closer", "explain", "widen", "knowledge", "refine", "next_program", "finetuned"),
    "explain": ("look_closer", "widen", "knowledge", "refine", "next_program", "finetuned"),
}

#: AVIS's ablation: no graph, every tool allowed in every state, the cheapest first
NO_GRAPH: dict[str, tuple[str, ...]] = {state: tuple(TOOLS) for state in (START, *TOOLS)}

GRAPHS: dict[str, Mapping[str, tuple[str, ...]]] = {"avis": GRAPH, "none": NO_GRAPH}


def feasible(graph: Mapping[str, Iterable[str]], state: str, memory: Memory, context: Context,
             excluded: set[str], left_ms: float) -> list[Tool]:
    """The tools the planner may choose in `state`, in the graph's order."""
    tools = []
    for name in graph[state]:
        tool = TOOLS[name]
        if name in excluded or tool.cost(memory, context) > left_ms:
            continue
        key = tool.key(memory, context)
        if key is not None and (name, key) not in memory.ran:
            tools.append(tool)
    return tools
