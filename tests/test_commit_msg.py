"""The repository's commit-msg hook keeps subjects short and apart from their bodies, so that
`git log --oneline` and blame stay readable; `make demo`/`make test` point git at it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
HOOK = ROOT / ".githooks" / "commit-msg"


def _run(tmp_path: Path, message: str) -> subprocess.CompletedProcess[str]:
    file = tmp_path / "COMMIT_EDITMSG"
    file.write_text(message, encoding="utf-8")
    return subprocess.run([sys.executable, str(HOOK), str(file)], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("message", [
    "Split records.py into lines, output and batch\n\nThe module did five jobs.\n",
    "x" * 72 + "\n",
    "Merge branch 'h/docs'\n",
    "# a comment git strips\n\nFix the hook's message\n\n# Please enter the commit message\n",
    "fixup! " + "y" * 72 + "\n",
    "é" * 72 + "\n",  # characters, not bytes: é is one
])
def test_a_short_subject_passes(tmp_path, message) -> None:
    done = _run(tmp_path, message)
    assert done.returncode == 0, done.stderr


def test_a_long_subject_is_refused_with_its_length(tmp_path) -> None:
    subject = "bench/README and README: the knowledge operations timed again after the base changed"
    done = _run(tmp_path, subject + "\n\nWhy.\n")
    assert done.returncode == 1
    assert f"the subject has {len(subject)} characters; at most 72" in done.stderr
    assert subject in done.stderr and "blank line" in done.stderr


def test_a_subject_that_runs_into_its_body_is_refused(tmp_path) -> None:
    done = _run(tmp_path, "Fix the checker's message for\nunknown words\n")
    assert done.returncode == 1
    assert "leave a blank line between subject and body" in done.stderr


def test_the_hook_is_executable_for_git() -> None:
    assert HOOK.stat().st_mode & 0o111


def test_git_runs_the_hook_and_refuses_the_commit(tmp_path) -> None:
    git = ["git", "-C", str(tmp_path), "-c", f"core.hooksPath={HOOK.parent}", "-c", "user.name=q",
           "-c", "user.email=q@example.org", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True, timeout=60)
    refused = subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "z" * 73],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "at most 72" in refused.stderr
    taken = subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "Start", "-m", "Why."],
                           capture_output=True, text=True, timeout=60)
    assert taken.returncode == 0, taken.stderr
