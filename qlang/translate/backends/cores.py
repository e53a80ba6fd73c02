"""How many threads a model may run now: the cores this process may use that are free.

llama.cpp's threads wait for each other after every operation; with as many threads as cores
and one core taken by another program, every step waits for the scheduler (eight questions
through the fine-tuned model took 4.3 times as long beside one busy loop on two cores).  So
a backend asks before each batch: the cores of its affinity, less the other tasks running on
them at this moment (the runnable count of ``/proc/loadavg``, less this thread, in proportion
to the share of the machine's cores the affinity holds), at least one.  One thread never waits
for another.
"""

from __future__ import annotations

import os
from pathlib import Path

LOADAVG = Path("/proc/loadavg")


def free_cores(loadavg: Path = LOADAVG) -> int:
    """The cores free for this process now (its whole affinity where the load is unknown)."""
    mine = len(os.sched_getaffinity(0))
    try:
        running = int(loadavg.read_text().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        return mine
    others = max(0, running - 1) * mine / (os.cpu_count() or mine)
    return max(1, min(mine, round(mine - others)))
