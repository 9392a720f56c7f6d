"""What a run's verdict rests on: which criteria were checked, and what they could not see.

A green verdict means "every stage exited 0" unless goldens or trends judged more, and a model
that recognised nothing still exits 0. So the top of every report and the console summary say
which criteria were checked (exit codes only; goldens; regressions against earlier runs), and name
every infer case whose predictions were all empty beside the verdict, not only in the
predictions section further down.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

from tipc.files import read
from tipc.metrics.logfile import log_lines
from tipc.metrics.predictions import LIMIT, MARKERS, iter_predictions
from tipc.results.records import StageRecord, Status

# A golden check that compared this run with a golden file (no_golden and blocked compared nothing).
_JUDGED = (Status.PASSED, Status.FAILED, Status.DIFFERS)


@dataclass(frozen=True, slots=True)
class EmptyCase:
    chain: str
    case: str  # the stage's name: "infer[cpu-...-bs1]"
    total: int  # predictions read, every one empty

    def text(self) -> str:
        return f"{self.chain} · {self.case}: every prediction empty ({self.total} of {self.total})"


@dataclass(frozen=True, slots=True)
class Criteria:
    ran: bool  # some stage of this run ran (its exit code was judged)
    goldens: int  # golden checks that compared the chain with a golden file
    regressions: int  # figures judged against their noise band over earlier runs
    empty: tuple[EmptyCase, ...] = ()

    def checked(self) -> tuple[str, ...]:
        words = ["exit codes"] if self.ran else []
        if self.goldens:
            words.append("goldens")
        if self.regressions:
            words.append("regressions")
        return tuple(words)

    def text(self) -> str:
        """``checked: exit codes only``, ``checked: exit codes, goldens (2 chains), regressions (4 figures)``."""
        words = self.checked()
        if not words:
            return "checked: nothing (no stage ran)"
        if words == ("exit codes",):
            return "checked: exit codes only (no golden compared, no figure judged against earlier runs)"
        counts = {"goldens": f" ({self.goldens} chains)", "regressions": f" ({self.regressions} figures)"}
        return "checked: " + ", ".join(w + counts.get(w, "") for w in words)


def _all_empty(log: Path) -> int:
    """How many predictions ``log`` holds when every one is empty (up to ``LIMIT``), else 0. The
    read ends at the first non-empty one: a case that predicted something costs one line, not its log,
    and a log with no prediction at all is searched for one without being split into lines."""
    if not read.contains_any(log, [m.encode() for m in MARKERS]):  # at C speed: most logs have none
        return 0
    count = 0
    for prediction in islice(iter_predictions(log_lines(log)), LIMIT):
        if not prediction.empty:
            return 0  # the abandoned reader closes its file as it goes (CPython frees it here)
        count += 1
    return count


def empty_cases(records: Iterable[StageRecord]) -> tuple[EmptyCase, ...]:
    """This run's infer stages that printed predictions, every one of them empty."""
    out = []
    for r in records:
        if r.kind != "infer" or not r.status.ran or not r.log:
            continue
        try:
            total = _all_empty(Path(r.log))
        except OSError:
            continue
        if total:
            out.append(EmptyCase(r.chain, r.id.partition("::")[2] or r.kind, total))
    return tuple(out)


def criteria_of(records: Sequence[StageRecord], judged_figures: int = 0) -> Criteria:
    """``records``: this run's own (not carried over); ``judged_figures``: trend rows judged."""
    goldens = sum(1 for r in records if r.kind == "golden" and r.status in _JUDGED)
    return Criteria(any(r.status.ran for r in records), goldens, judged_figures, empty_cases(records))
