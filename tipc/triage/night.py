"""A night bisects its own new failures, within a time budget (``--bisect-budget``).

After the run, each new failure whose target is a git repository is searched between the last night it
passed (that night's ``target_commit``, from the history) and tonight's commit, one after the other, each
within the time left (``tipc.triage.bisect``); what was found (a culprit, or why none) goes beside the
night's results (``tipc.triage.culprits``) for the report and the night's index. A failure without a good
night, or on a target that is no git checkout, is said as such, and costs nothing.
"""

from __future__ import annotations

import shlex
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tipc.errors import UsageError
from tipc.triage.bisect import Bisection, bisect
from tipc.triage.culprits import Culprit
from tipc.triage.states import Night, Outcome


@dataclass(frozen=True, slots=True)
class Wanted:
    """One new failure to search."""

    config: Path
    repo: Path  # the target's checkout
    mode: str
    stage: str
    good: str  # "" when no night passed it at a known commit
    bad: str  # tonight's commit, "" when the target is no git checkout
    run_args: tuple[str, ...] = ()  # each commit's `tipc run` options (the night's interpreter)


def good_commit(nights: Iterable[Night]) -> str:
    """The commit of the newest night the cell passed at a known commit ("" when none did)."""
    return next((n.commit for n in nights if n.outcome is Outcome.PASSED and n.commit), "")


def culprit_of(found: Bisection) -> Culprit:
    c = found.first_bad
    commands = tuple(shlex.join(command) for command in found.commands)
    if c is None:
        return Culprit(found.stage, found.good, found.bad, commands=commands, problem=found.problem)
    return Culprit(found.stage, found.good, found.bad, c.sha, c.subject, c.author, c.date, commands)


def _unsearched(wanted: Wanted) -> str:
    if not wanted.bad:
        return "the target is no git checkout: there are no commits to search"
    if not wanted.good:
        return "no earlier night passed it at a known commit: there is no good end to search from"
    if wanted.good == wanted.bad:
        return f"it passed on an earlier night at tonight's commit {wanted.bad[:12]}: flaky, not a change"
    return ""


def bisect_night(wanted: Sequence[Wanted], budget: float, say: Callable[[str], None]) -> list[Culprit]:
    """Search each of ``wanted`` in turn while ``budget`` seconds last; those left when it ran out say so."""
    deadline = time.monotonic() + budget
    found = []
    for w in wanted:
        problem = _unsearched(w)
        if not problem and time.monotonic() >= deadline:
            problem = f"not searched: the night's bisect budget ({budget:g} s) ran out before it"
        if problem:
            found.append(Culprit(w.stage, w.good, w.bad, problem=problem))
            continue
        with tempfile.TemporaryDirectory(prefix="tipc-night-bisect-") as work:
            try:
                result = bisect(w.config, w.mode, w.stage, w.good, w.bad, repo=w.repo, run_args=w.run_args,
                                work=Path(work), deadline=deadline)  # fmt: skip
            except UsageError as exc:
                found.append(Culprit(w.stage, w.good, w.bad, problem=str(exc)))
                continue
        culprit = culprit_of(result)
        say(f"tipc: bisected {w.stage} between {w.good[:12]} and {w.bad[:12]}: {culprit.line()}")
        found.append(culprit)
    return found
