"""`qlangc serve` under load: a mix of requests from concurrent clients on loopback, latency per kind.

    .venv/bin/python bench/web.py [--clients 4] [--seconds 60] [--workers N] [--budget S]
                                  [--no-slow] [--server-arg ARG ...]

One server (the shared data's emma scene graphs; `--workers` and `--budget` passed on where
given, so that the bench also runs against a `serve` without them, as a baseline).  Client 0 asks
the slow question again and again, so one is always in flight: a page of text (999 characters)
that the small parser defers and the fine-tuned fallback writes a looping program for.  The other
clients take turns asking, each as soon as its last answer came, a real GQA question about its
emma scene graph (one the small parser answers), then a question about one of scikit-image's
example photos, and so on.  Each request is timed from sending to its whole answer; after
`--seconds`, the clients finish what they sent and the server stops.  Printed: per kind, the
number of requests, their statuses, and the median, 95th percentile and longest latency; then
the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from itertools import cycle

import requests

from qlang.paths import SHARED_DATA

SCENES = SHARED_DATA / "gqa" / "scenes"
EMMA = SCENES / "emma_sceneGraphs.json"
SLOW = (("Is the small red cup that is on the wooden table to the left of the man who wears the "
         "blue shirt and holds the umbrella ") * 9)[:999]
#: Questions about the example photos whose answers a person sees in them.
PHOTOS = [("chelsea", "Is there a cat?"), ("coffee", "Is there a cup?"),
          ("motorcycle", "Is there a motorcycle?"), ("astronaut", "Is there a cat?")]
SLOW_FIELDS = {"source": "scene", "scene": "emma_sceneGraphs.json/2353884", "question": SLOW}


def scene_questions() -> list[dict[str, str]]:
    """The emma questions the small parser translates (the rest go to the fine-tuned model)."""
    questions = json.loads((SCENES / "emma_questions.json").read_text())
    return [{"source": "scene", "scene": f"emma_sceneGraphs.json/{q['imageId']}", "question": q["question"]}
            for qid, q in sorted(questions.items()) if qid in ("123159", "041477")]


def start(args: argparse.Namespace) -> tuple[subprocess.Popen[bytes], str]:
    given = [*(["--workers", str(args.workers)] if args.workers else []),
             *(["--budget", str(args.budget)] if args.budget else [])]
    command = [sys.executable, "-c", "from qlang.commands.main import main; main()", "serve", "--port", "0",
               "--scenes", str(EMMA), *given, *args.server_arg]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert server.stdout is not None
    line = server.stdout.readline().decode()
    if not line.startswith("serving "):
        server.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return server, line.split()[1].rstrip("/")


def ask(url: str, fields: dict[str, str]) -> tuple[int, float, str | None]:
    """The status, the seconds to the whole answer, and the error said, if any."""
    started = time.perf_counter()
    reply = requests.post(url + "/api/ask", files={k: (None, v) for k, v in {**fields, "top_k": "1"}.items()},
                          timeout=600)
    return reply.status_code, time.perf_counter() - started, reply.json().get("error")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, help="(default: serve's)")
    parser.add_argument("--budget", type=float, help="(default: serve's)")
    parser.add_argument("--no-slow", action="store_true", help="no client asks the slow question")
    parser.add_argument("--server-arg", action="append", default=[], help="more `serve` options")
    args = parser.parse_args()

    server, url = start(args)
    photos = [{"source": "example", "example": name, "question": question} for name, question in PHOTOS]
    scenes = scene_questions()
    turns = cycle([turn for n, photo in enumerate(photos)  # a scene question, then a photo question
                   for turn in (("scene", scenes[n % len(scenes)]), ("photo", photo))])
    timed: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, Counter[int]] = defaultdict(Counter)
    errors: dict[str, str] = {}
    lock = threading.Lock()
    stop = time.monotonic() + args.seconds

    def client(slow: bool) -> None:
        while time.monotonic() < stop:
            with lock:
                kind, fields = ("slow", SLOW_FIELDS) if slow else next(turns)
            status, seconds, said = ask(url, fields)
            with lock:
                timed[kind].append(seconds)
                statuses[kind][status] += 1
                if said is not None:
                    errors.setdefault(kind, said)

    slows = [n == 0 and not args.no_slow for n in range(args.clients)]
    clients = [threading.Thread(target=client, args=(s,)) for s in slows]
    try:
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
    finally:
        server.terminate()
        server.wait(timeout=60)

    slow = "no slow question" if args.no_slow else "one slow question in flight"
    print(f"{args.clients} clients for {args.seconds:g} s, workers {args.workers or 'as serve says'}, budget "
          f"{args.budget or 'as serve says'}, {slow}\n")
    print("| kind | requests | statuses | p50 | p95 | max |")
    print("|---|---:|---|---:|---:|---:|")
    for kind in ("scene", "photo", "slow"):
        seconds = sorted(timed.get(kind, []))
        if not seconds:
            continue
        p95 = seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))]
        said = ", ".join(f"{status} × {n}" for status, n in sorted(statuses[kind].items()))
        print(f"| {kind} | {len(seconds)} | {said} | {statistics.median(seconds):.2f} s | {p95:.2f} s | "
              f"{seconds[-1]:.2f} s |")
    for kind, said in errors.items():
        print(f"\n{kind}, the first error: {said[:200]}")
    load = os.getloadavg()
    print(f"\n{os.cpu_count()} cores, Python {platform.python_version()}, load average "
          f"{load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at the end")


if __name__ == "__main__":
    main()
