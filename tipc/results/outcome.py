"""What a run or a night came to, and the one table from that outcome to the exit status.

Every place that ends a night decides its exit status here: ``tipc run`` and ``pytest tipc`` (the
run's stages, its reports' regressions), ``tipc merge`` (the joined parts' stages) and ``tipc report``
(the page's badge). A report's badge is its outcome, so the page and the exit status agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum

from tipc.results.records import Status, run_verdict

INFRA_EXIT = 75  # sysexits' EX_TEMPFAIL: the machine's failure, worth running again; not the model's 1
DRY_RUN_EXIT = 5  # every command printed, nothing ran: never 0, which a CI reader takes for a pass


class Outcome(str, Enum):
    PASSED = "passed"  # every stage that ran passed (or was skipped)
    EMPTY = "empty"  # no stage at all (a shard with nothing to run)
    FAILED = "failed"  # a stage failed, timed out or hung; the run stopped or could not be planned
    INFRA = "infra"  # no failure of the model, but the machine ended a stage (scheduler, OOM killer, a lost node)
    INCOMPLETE = "incomplete"  # no failure, but a selected stage did not run (or a shard or node did not report)
    REGRESSED = "regressed"  # the stages passed, and a figure regressed under --fail-on regression
    DRY_RUN = "dry_run"
    INTERRUPTED = "interrupted"  # Ctrl-C or SIGTERM: the results so far are kept

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self]


EXIT_STATUS: dict[Outcome, int] = {
    Outcome.PASSED: 0,
    Outcome.EMPTY: 0,
    Outcome.FAILED: 1,
    Outcome.INFRA: INFRA_EXIT,
    Outcome.INCOMPLETE: 1,
    Outcome.REGRESSED: 1,
    Outcome.DRY_RUN: DRY_RUN_EXIT,
    Outcome.INTERRUPTED: 130,
}


def outcome_of(
    statuses: Iterable[Status | str],
    *,
    regressions: int = 0,
    fail_on_regression: bool = False,
    stopped: bool = False,
    dry_run: bool = False,
    interrupted: bool = False,
) -> Outcome:
    """The outcome of a run or a night from its stages' statuses. ``stopped``: it ended before its
    stages ran out, or a config could not be planned; ``regressions``: figures its report found
    regressed, which fail it only with ``fail_on_regression`` and only where no stage failed. A run stopped
    by a signal is interrupted, unless the machine's hand in it is known (the scheduler cancelled it: infra)."""
    by_stages = Outcome(run_verdict(statuses))
    if interrupted:
        return Outcome.INFRA if by_stages is Outcome.INFRA else Outcome.INTERRUPTED
    if stopped:
        return Outcome.FAILED
    if by_stages in (Outcome.FAILED, Outcome.INFRA, Outcome.INCOMPLETE):
        return by_stages
    if fail_on_regression and regressions:
        return Outcome.REGRESSED
    if dry_run:
        return Outcome.DRY_RUN
    return by_stages
