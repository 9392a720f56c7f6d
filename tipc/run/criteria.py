"""What a run's verdict rests on: which criteria were checked, and what they could not see.

A green verdict means "every stage exited 0" unless goldens or trends judged more, and a model
that recognised nothing still exits 0. So the top of every report and the console summary say
which criteria were checked (exit codes only; goldens; the agreement of two runtimes; regressions
against earlier runs), and name every infer case whose predictions were all empty, or all the same
whatever the image (a model that learned one answer), beside the verdict, not only in the
predictions section further down.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path

from tipc.files import read
from tipc.metrics.logfile import log_lines
from tipc.metrics.predictions import LIMIT, MARKERS, Prediction, iter_predictions
from tipc.results.records import StageRecord, Status

# A golden check that compared this run with a golden file (no_golden and blocked compared nothing).
_JUDGED = (Status.PASSED, Status.FAILED, Status.DIFFERS)


@dataclass(frozen=True, slots=True)
class EmptyCase:
    """An infer case whose every prediction is empty, or (``same``) one and the same for every image."""

    chain: str
    case: str  # the stage's name: "infer[cpu-...-bs1]"
    total: int  # predictions read, every one empty (or the same)
    same: str = ""  # the one answer given for every image; "" when every prediction is empty

    def text(self) -> str:
        where = f"{self.chain} · {self.case}"
        if self.same:
            return (
                f"{where}: every prediction the same ({self.same!r}, {self.total} of {self.total}): "
                "the model gives one answer whatever the image"
            )
        meaning = "the model recognised or detected nothing"
        return f"{where}: every prediction empty ({self.total} of {self.total}): {meaning}"


@dataclass(frozen=True, slots=True)
class Criteria:
    ran: bool  # some stage of this run ran (its exit code was judged)
    goldens: int  # golden checks that compared the chain with a golden file
    regressions: int  # figures judged against their noise band over earlier runs
    empty: tuple[EmptyCase, ...] = ()
    agreements: int = 0  # agreement checks that compared two runtimes' predictions (paddle2onnx chains)

    def checked(self) -> tuple[str, ...]:
        counts = (("goldens", self.goldens), ("agreement", self.agreements), ("regressions", self.regressions))
        return ("exit codes",) * self.ran + tuple(word for word, count in counts if count)

    def text(self) -> str:
        """``checked: exit codes only``, ``checked: exit codes, goldens (2 chains), regressions (4 figures)``."""
        words = self.checked()
        if not words:
            return "checked: nothing (no stage ran)"
        if words == ("exit codes",):
            return "checked: exit codes only (no golden compared, no figure judged against earlier runs)"
        counts = {
            "goldens": f" ({self.goldens} chains)",
            "agreement": f" ({self.agreements} chains)",
            "regressions": f" ({self.regressions} figures)",
        }
        return "checked: " + ", ".join(w + counts.get(w, "") for w in words)


def _answer(prediction: Prediction) -> Prediction:
    """The prediction without its image: what two images' predictions share when the model said the same."""
    return replace(prediction, image="", score=None)


def _suspect(log: Path) -> tuple[int, str]:
    """How many predictions ``log`` holds when every one is empty, or (two or more) all the same, with
    that one answer; (0, "") otherwise. The read ends at the first that differs, up to ``LIMIT``, and a log with
    no prediction at all is searched for one without being split into lines."""
    if not read.contains_any(log, [m.encode() for m in MARKERS]):  # at C speed: most logs have none
        return 0, ""
    count, first, empty = 0, None, True
    for prediction in islice(iter_predictions(log_lines(log)), LIMIT):
        empty = empty and prediction.empty
        if first is None:
            first = prediction
        elif not empty and _answer(prediction) != _answer(first):
            return 0, ""  # the abandoned reader closes its file as it goes (CPython frees it here)
        count += 1
    if first is None or (not empty and count < 2):
        return 0, ""
    return count, "" if empty else (first.text if first.text is not None else "one prediction")


def empty_case(record: StageRecord) -> EmptyCase | None:
    """``record``'s infer case when it printed predictions, every one of them empty or all the same."""
    if record.kind != "infer" or not record.status.ran or not record.log:
        return None
    try:
        total, same = _suspect(Path(record.log))
    except OSError:
        return None
    return EmptyCase(record.chain, record.id.partition("::")[2] or record.kind, total, same) if total else None


def empty_cases(records: Iterable[StageRecord]) -> tuple[EmptyCase, ...]:
    """This run's infer stages that printed predictions, every one of them empty or all the same."""
    return tuple(case for r in records if (case := empty_case(r)) is not None)


class Gathered:
    """What ``criteria_of`` gathers, one record at a time: a report gathers it while it reads the
    records for another part of the page."""

    def __init__(self) -> None:
        self.ran, self.goldens, self.agreements = False, 0, 0
        self.empty: list[EmptyCase] = []

    def add(self, record: StageRecord) -> None:
        """``record``: one of this run's own (not carried over)."""
        self.ran = self.ran or record.status.ran
        self.goldens += record.kind == "golden" and record.status in _JUDGED
        self.agreements += record.kind == "agree" and record.status in _JUDGED
        if (case := empty_case(record)) is not None:
            self.empty.append(case)

    def criteria(self, judged_figures: int = 0) -> Criteria:
        return Criteria(self.ran, self.goldens, judged_figures, tuple(self.empty), self.agreements)


def criteria_of(records: Iterable[StageRecord], judged_figures: int = 0) -> Criteria:
    """``records``: this run's own (not carried over); ``judged_figures``: trend rows judged."""
    gathered = Gathered()
    for r in records:
        gathered.add(r)
    return gathered.criteria(judged_figures)
