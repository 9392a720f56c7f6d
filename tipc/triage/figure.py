"""``tipc bisect --figure NAME``: the first commit of the target repo at which a stage's figure regressed.

Judged as the night judges a figure (``tipc.history.rule``): the figure's values at ``--good``, measured as
many times as the rule needs earlier values before it judges (``least_before``), are the nights before; each
commit is measured as often as a shift must show (``NIGHTS_SHOWN``), and it is bad when those values are a
regression against them. tipc halves the range itself, in the same kind of clone
as a stage's bisection (``tipc.triage.bisect``), each commit's chain run by the bisection's step program; a
commit whose stage does not pass, or gives no value, cannot be judged and ends the search with that said.
Which figure a record holds is the caller's word (``value_of``): this package knows no report.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from tipc.errors import UsageError
from tipc.history.changes import least_before
from tipc.history.rule import NIGHTS_SHOWN, regressed
from tipc.metrics.noise import TrendPolicy
from tipc.results.records import StageRecord, Status
from tipc.triage import step
from tipc.triage.bisect import Bisection, describe, git, search_range

ValueOf = Callable[[StageRecord], "float | None"]


def _value(found: step.Step, value_of: ValueOf) -> float | None:
    if found.record is None or found.status != Status.PASSED.value:
        return None
    return value_of(StageRecord.from_dict(found.record))


def bisect_figure(
    config: Path,
    mode: str,
    stage: str,
    figure: str,
    good: str,
    bad: str,
    value_of: ValueOf,
    higher_is_better: bool,
    *,
    unit: str = "",
    repo: Path | None = None,
    run_args: Sequence[str] = (),
    work: Path | None = None,
    policy: TrendPolicy | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> Bisection:
    """Search the commits between ``good`` and ``bad`` for the first at which ``figure`` of ``stage`` regressed."""
    rule = policy or TrendPolicy()
    source, inside, good_sha, bad_sha = search_range(config, repo, good, bad)
    between = git(source, "rev-list", "--reverse", "--ancestry-path", f"{good_sha}..{bad_sha}").split()
    if not between:
        raise UsageError(f"--bad {bad} is not a descendant of --good {good}: nothing between them to search")
    folder = Path(tempfile.mkdtemp(prefix="tipc-bisect-")) if work is None else work
    folder.mkdir(parents=True, exist_ok=True)
    clone, steps_file = folder / "target", folder / "steps.jsonl"
    cloning = ("git", "clone", "--quiet", "--shared", "--no-checkout", str(source), str(clone))
    tried = step.command(inside, mode, stage, steps_file, run_args)
    commands: list[tuple[str, ...]] = [cloning]
    judged: list[step.Step] = []

    def measure(sha: str) -> float | None:
        git(clone, "checkout", "--quiet", "--detach", "--force", sha)
        commands.append(("git", "checkout", "--detach", sha, "&&", *tried))
        value = _value(step.run(inside, mode, stage, steps_file, clone, run_args), value_of)
        say(f"tipc bisect: {sha[:12]} {figure} {value}")
        return value

    def verdict(sha: str, earlier: Sequence[float]) -> bool | None:
        """Whether the figure regressed at ``sha``, measured there as many times as the rule needs nights of a
        shift; None: it could not be measured there."""
        values = [measure(sha) for _ in range(NIGHTS_SHOWN)]
        shown = [v for v in values if v is not None]
        bad_here = None
        if len(shown) == len(values):
            bad_here = regressed([*earlier, *shown[:-1]], shown[-1], higher_is_better, unit, rule)
        outcome = step.SKIP if bad_here is None else step.BAD if bad_here else step.GOOD
        judged.append(step.Step(sha, outcome, f"{figure} {', '.join(f'{v:g}' for v in shown) or 'none'}"))
        return bad_here

    def ended(problem: str, first: str = "") -> Bisection:
        culprit = describe(clone, first) if first else None
        return Bisection(stage, good_sha, bad_sha, culprit, tuple(judged), tuple(commands), problem)

    try:
        git(folder, *cloning[1:])
        earlier = [measure(good_sha) for _ in range(least_before(rule))]
        if any(v is None for v in earlier):
            return ended(f"--good {good_sha[:12]}: {stage} did not pass with a value of {figure}")
        band = [v for v in earlier if v is not None]
        judged.append(step.Step(good_sha, step.GOOD, f"{figure} {', '.join(f'{v:g}' for v in band)}"))
        at_bad = verdict(bad_sha, band)
        if not at_bad:
            why = "could not be measured" if at_bad is None else "did not regress"
            return ended(f"--bad {bad_sha[:12]}: {figure} of {stage} {why}")
        low, high = -1, len(between) - 1  # between[high] regressed; between[low] (or --good) did not
        while high - low > 1:
            middle = (low + high) // 2
            found = verdict(between[middle], band)
            if found is None:
                return ended(f"{between[middle][:12]}: {figure} could not be measured; the search stops there")
            low, high = (low, middle) if found else (middle, high)
        return ended("", between[high])
    finally:
        if work is None:
            shutil.rmtree(folder, ignore_errors=True)
