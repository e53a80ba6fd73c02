"""Compile qlang's hot modules (`qlang.compiled.GROUP`) with mypyc into ``.cache/compiled/<digest>/``.

    .venv/bin/python scripts/compiled.py [--force]

Run by `make install`.  Nothing is written beside the sources: the build goes to a temporary
folder first and is renamed to the digest's folder once it is whole; a fresh process then
imports qlang from it and converts a program, and only then is the stamp written, so neither an
interrupted build nor one that compiles but does not import is ever loaded.  A build that fails
leaves qlang pure Python (exit 1 with mypyc's, the C compiler's or the trial's message; `make
install` goes on).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from qlang import compiled
from qlang.paths import PACKAGE


def build(target: Path) -> None:
    """Generate the group's C with mypyc and compile it (one job per core) into `target`."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]

    root = PACKAGE.parent
    os.chdir(root)  # mypyc names modules by their paths from the working directory
    work = target / "build"
    sources = [str(compiled.source(m).relative_to(root)) for m in compiled.GROUP]
    extensions = mypycify(sources, opt_level="3", group_name=compiled.GROUP_NAME, target_dir=str(work))
    distribution = Distribution({"ext_modules": extensions})
    command = distribution.get_command_obj("build_ext")
    command.build_lib = str(target)
    command.build_temp = str(work)
    command.parallel = os.cpu_count() or 1
    command.ensure_finalized()
    command.run()
    shutil.rmtree(work)


#: What a new build must do before it is stamped: import the whole package with the group
#: compiled and convert a program.
TRY = ("import importlib, qlang\n"
       "from qlang import compiled\n"
       "for module in compiled.GROUP: importlib.import_module(module)\n"
       "assert compiled.active(), 'the build did not load'\n"
       "assert qlang.convert('exist(select(scene(), man))', 'flat') == "
       "'scene(0).\\nselect(1, 0, man).\\nexist(2, 1).\\nend(2).'\n")


def trial(final: Path) -> None:
    """Run `TRY` in a fresh process on the unstamped build in `final`; raise if it fails."""
    env = {**os.environ, compiled.TRIAL: final.name, "PYTHONPATH": str(PACKAGE.parent)}
    env.pop(compiled.PURE, None)
    done = subprocess.run([sys.executable, "-c", TRY], env=env, capture_output=True, text=True,
                          check=False)
    if done.returncode:
        raise RuntimeError(f"the build does not import: {done.stderr.strip().splitlines()[-1]}")


#: How many builds to keep: an edit makes a new digest, and each build is about 2 MB; the newest
#: few serve worktrees or branches that share the cache.
KEEP = 4


def prune(parent: Path, keep: int = KEEP) -> None:
    """Remove all but the `keep` newest builds under `parent` (a staging folder is dotted)."""
    builds = sorted((p for p in parent.iterdir() if p.is_dir() and not p.name.startswith(".")),
                    key=lambda p: p.stat().st_mtime, reverse=True)
    for old in builds[keep:]:
        shutil.rmtree(old, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--force", action="store_true", help="build even if this digest's build exists")
    args = parser.parse_args()
    key = compiled.digest()
    final = compiled.folder(key)
    if (final / compiled.STAMP).is_file() and not args.force:
        print(f"compiled modules up to date ({final})")
        return 0
    final.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    staging = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=final.parent))
    staging.chmod(0o755)  # mkdtemp makes it private; the build is for whoever runs qlang
    try:
        build(staging)
        shutil.rmtree(final, ignore_errors=True)
        staging.rename(final)
        trial(final)
        stamp = {"digest": key, "modules": list(compiled.GROUP), "hashed": list(compiled.HASHED),
                 "python": sys.version.split()[0], "seconds": round(time.perf_counter() - start, 1)}
        (final / compiled.STAMP).write_text(json.dumps(stamp, indent=1) + "\n")
    except (Exception, SystemExit) as exc:  # mypyc reports type errors by SystemExit
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(final, ignore_errors=True)
        print(f"compiling qlang's modules failed ({exc}); qlang runs as pure Python", file=sys.stderr)
        return 1
    prune(final.parent)
    print(f"compiled {len(compiled.GROUP)} modules in {time.perf_counter() - start:.0f} s into {final}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
