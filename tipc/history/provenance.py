"""What a run tested: the target repo's commit, and whether its tracked files differed from it.

Asked of ``git`` through tipc's one process runner, bounded in time; a target that is not a git
checkout (or a machine without git) records none, and the run goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tipc.proc.child import ask

GIT_TIMEOUT = 20.0  # seconds: `git status` of a large checkout on a slow filesystem


@dataclass(frozen=True, slots=True)
class TargetCommit:
    sha: str = ""  # the full sha of HEAD; "" when the target is no git checkout
    dirty: bool = False  # tracked files differ from HEAD (untracked ones do not count: outputs, data)


def target_commit(repo: Path) -> TargetCommit:
    head = ask(["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "HEAD"], GIT_TIMEOUT)
    sha = head.stdout.strip()
    if head.returncode != 0 or len(sha) < 40:
        return TargetCommit()
    status = ask(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"], GIT_TIMEOUT)
    return TargetCommit(sha, status.returncode == 0 and bool(status.stdout.strip()))
