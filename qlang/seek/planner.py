"""Planners (AVIS's P): which of the tools the graph allows now to run next.

The default is deterministic: the first the graph lists (its order is the preference).  The
LLM planner asks a small language model (the bundled SmolLM2-135M-Instruct, on llama.cpp), told
the question, what was found and what each allowed tool does, and decodes its answer under a
grammar whose only sentences are the allowed tools' names: the transition graph, at this state,
is the decoding grammar, so the model cannot choose a tool the graph does not allow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from qlang.seek.memory import Memory
from qlang.seek.tools import Tool
from qlang.translate.backends import Backend, Request, backend_error


class Planner(Protocol):
    name: str

    def choose(self, state: str, tools: Sequence[Tool], memory: Memory, found: Sequence[str]) -> Tool:
        """One of `tools` (never empty); `found`: what the steps so far found, in brief."""
        ...


class Priority:
    """The graph's first allowed tool."""

    name = "priority"

    def choose(self, state: str, tools: Sequence[Tool], memory: Memory, found: Sequence[str]) -> Tool:
        return tools[0]


def grammar(names: Sequence[str]) -> str:
    """The Lark grammar (llguidance's) whose sentences are exactly the names.

    >>> grammar(["look", "widen"])
    'start: "look" | "widen"\\n'
    """
    return "start: " + " | ".join(f'"{name}"' for name in names) + "\n"


_SYSTEM = ("You plan how to answer a question about a photo with tools. Reply with the name of the "
           "one tool to use next.")

#: Decisions as qlang's own stages make them (AVIS's in-context examples came from a user study):
#: (what was found last, the tools allowed, the choice)
EXAMPLES = (
    ("translate: exist(select(scene(), cat))", ("look", "widen", "next_program"), "look"),
    ("look: 2 objects at >= 0.4: cup 0.95, table 0.76", ("solve", "widen", "look_closer"), "solve"),
    ("solve: no answer: no vehicle is seen at >= 0.4", ("widen", "knowledge", "look_closer"), "widen"),
    ("solve: no: not seeing is no evidence of absence yet", ("look_closer", "widen"), "look_closer"),
    ("solve: yes: it rests on what was seen below 0.4", ("explain", "widen", "next_program"), "explain"),
)


def prompt(tools: Sequence[Tool], memory: Memory, found: Sequence[str]) -> str:
    lines = ["Examples:"]
    lines += [f"- found {last}; tools {', '.join(allowed)} -> {choice}" for last, allowed, choice in EXAMPLES]
    lines.append(f"Question: {memory.question or '(a program was given)'}")
    if memory.program is not None:
        lines.append(f"Program: {memory.program.brief()}")
    lines += ["Found so far:", *(f"- {line}" for line in found[-6:] or ["nothing yet"]), "Tools:"]
    lines += [f"- {tool.name}: {tool.doc}" for tool in tools]
    lines.append("Which tool next?")
    return "\n".join(lines)


class LlmPlanner:
    """A language model chooses, constrained to the allowed tools' names."""

    name = "llm"

    def __init__(self, load: Callable[[], Backend]) -> None:
        self._load = load
        self._backend: Backend | None = None

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            self._backend = self._load()
        return self._backend

    def choose(self, state: str, tools: Sequence[Tool], memory: Memory, found: Sequence[str]) -> Tool:
        if len(tools) == 1:  # no choice to make
            return tools[0]
        text = prompt(tools, memory, found)
        request = Request(messages=(("system", _SYSTEM), ("user", text)), completion=f"{text}\nTool:",
                          lark=grammar([tool.name for tool in tools]), max_tokens=8)
        chosen = self.backend.generate(request).text.strip()
        for tool in tools:
            if tool.name == chosen:
                return tool
        raise backend_error(f"the planner's model answered {chosen!r}, which is no tool allowed here")


def load_planner(name: str) -> Planner:
    """`priority` or `llm` (the bundled SmolLM2, loaded on first use)."""
    if name == "llm":
        from qlang.translate.backends import load_backend

        return LlmPlanner(lambda: load_backend("llama-cpp", None))
    return Priority()


PLANNERS = ("priority", "llm")
