"""One step of ``tipc bisect``: run the chain at the commit checked out here and say whether the stage failed.

Run by ``git bisect run`` in the bisection's clone (and by ``tipc bisect`` itself at both ends), it answers in
git's words: exit 0 when the stage passed (good), 1 when it failed, timed out or hung (bad), 125 when it did not
run (a prerequisite failed, the config does not plan at this commit): git then skips the commit rather than
blame it. Each commit's chain writes under ``.tipc-bisect/<sha>`` with a history store of its own, so no
verdict of one commit is read at another and the user's history never sees a bisection.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tipc.files import read
from tipc.proc.child import Limits, ask, run_child
from tipc.results.records import Status

GOOD, BAD, SKIP = "good", "bad", "skip"
EXIT = {GOOD: 0, BAD: 1, SKIP: 125}  # git bisect run's meaning of exit codes
WORK = Path(".tipc-bisect")  # inside the clone: untracked, so checkouts of other commits leave it alone


@dataclass(frozen=True, slots=True)
class Step:
    commit: str
    outcome: str  # GOOD, BAD or SKIP
    status: str  # the stage's status at that commit, or why it has none
    record: dict[str, Any] | None = None  # the stage's record at that commit (its figures), None: it has none


def command(config: Path, mode: str, stage: str, steps: Path, run_args: Sequence[str]) -> list[str]:
    """The step program's argv, for ``git bisect run`` and for the ends tried first."""
    head = [sys.executable, "-m", "tipc.triage.step", "--config", str(config), "--mode", mode, "--stage", stage]
    return [*head, "--steps", str(steps), "--", *run_args]


def left(deadline: float | None) -> float:
    """Seconds until ``deadline`` (``time.monotonic``'s) as a child's time limit: 0 is none; a second at least."""
    return 0.0 if deadline is None else max(1.0, deadline - time.monotonic())


def run(config: Path, mode: str, stage: str, steps: Path, clone: Path, run_args: Sequence[str],
        limit: float = 0.0) -> Step:  # fmt: skip
    """Run one step in ``clone`` as git would, and return what it recorded (within ``limit`` seconds, 0: none;
    a step stopped there recorded nothing: it did not run)."""
    argv = command(config, mode, stage, steps, run_args)
    before = len(recorded(steps))
    run_child(argv, cwd=str(clone), env=os.environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
              limits=Limits(limit, None))  # fmt: skip
    done = recorded(steps)
    return done[-1] if len(done) > before else Step("", SKIP, "stopped: the time for bisecting ran out")


def recorded(steps: Path) -> tuple[Step, ...]:
    """The steps recorded so far, through the read door (the folder is the user's ``--work-dir``)."""
    if not steps.is_file():
        return ()
    return tuple(Step(**read.json_of(line)) for line in read.lines(steps) if line.strip())


def judge(status: str | None) -> str:
    if status == Status.PASSED.value:
        return GOOD
    if status is not None and Status(status).is_failure:
        return BAD
    return SKIP


def run_chain(
    config: str, mode: str, stage: str, out: Path, run_args: Sequence[str], where: str, history: Path
) -> tuple[str, str, dict[str, Any] | None]:
    """Run the chain up to ``stage`` with ``tipc run`` into ``out`` (its console beside it, ``<out>.log``), its
    history in a store of its own (``history``): the outcome in git's words, the stage's status or why it has
    none (``where``: "this commit", "paddlepaddle 3.2.0"), and its record (a figure's bisect reads it)."""
    from tipc.results.folder import read_records

    out.mkdir(parents=True, exist_ok=True)
    tipc_run = [sys.executable, "-m", "tipc", "run", "--config", config, "--mode", mode]
    # No report, and no bisection of its own: a night's budget (TIPC_BISECT_BUDGET, a file) is not a step's.
    tipc_run += ["--no-report", "--bisect-budget", "0", "-q", "--output-root", str(out), *run_args]
    with (out.parent / f"{out.name}.log").open("wb") as log:
        env = {**os.environ, "TIPC_HISTORY": str(history)}
        run_child(tipc_run, cwd=None, env=env, stdout=log, stderr=log, limits=Limits(0, None))
    records = [r for found in sorted(out.rglob("results.jsonl")) for r in read_records(found, warn=lambda _: None)]
    found = next((r for r in records if r.id == stage), None)
    status = None if found is None else found.status.value
    reason = status or (f"not in the plan at {where}" if records else "no results: the config did not run")
    return judge(status), reason, None if found is None else json.loads(found.to_json())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tipc.triage.step")
    parser.add_argument("--config", required=True)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--stage", required=True)
    parser.add_argument("--steps", required=True, type=Path)
    parser.add_argument("run_args", nargs="*")
    args = parser.parse_args(argv)
    sha = ask(["git", "rev-parse", "HEAD"], timeout=60).stdout.strip()
    if not sha:
        print("tipc bisect: not in a git checkout", file=sys.stderr)
        return 128  # git bisect run stops: nothing here can be judged
    history = Path.cwd() / WORK / "history.sqlite"
    outcome, reason, record = run_chain(
        args.config, args.mode, args.stage, WORK / sha[:12], args.run_args, "this commit", history
    )
    with args.steps.open("a", encoding="utf-8") as steps:
        steps.write(json.dumps(asdict(Step(sha, outcome, reason, record))) + "\n")
    return EXIT[outcome]


if __name__ == "__main__":
    sys.exit(main())
