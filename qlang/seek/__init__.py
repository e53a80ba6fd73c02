"""`ask --seek`: a planner over qlang's tools, after AVIS (Hu et al., 2023; ../shared/seeds).

Plain `ask` is a fixed pipeline: one translation, one look at fixed thresholds, one solve.
Seeking chooses the next tool among those a transition graph allows (`graph`), judges each
output by symbolic rules (`reasoner`: uninformative, informative or final), backtracks from
what was uninformative, keeps what was found in a working memory (`memory`), and stops within
bounds, with an answer and its confidence, or "cannot tell" and why (`search`).  The tools are
qlang's own stages behind one interface (`tools`); the planner is a priority order or a small
language model decoding under the graph as its grammar (`planner`).
"""

from qlang.seek.planner import PLANNERS, load_planner
from qlang.seek.search import CANNOT_TELL, Bounds, Sought, seek
from qlang.seek.tools import TOOLS, Context
from qlang.seek.transitions import GRAPH, GRAPHS, NO_GRAPH

__all__ = ["CANNOT_TELL", "GRAPH", "GRAPHS", "NO_GRAPH", "PLANNERS", "TOOLS", "Bounds", "Context",
           "Sought", "load_planner", "seek"]
