"""The report's "states" section: each cell of this run by its state across nights, what needs a person first.

A record carries its cell's state (``tipc.triage.states``, stamped when the stage ended); the section counts
them and lists the cells that are news (a new failure first, then flaky, infra, still failing, fixed), each
linked to its stage's details, at most ``SHOWN`` of them: the counts stay whole, the list stays small.
A new failure the night bisected names its culprit and the commands that found it. Records from before
states have none, and a run of only such records has no section. Pure: records in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tipc.history.store import StageKey
from tipc.report.naming import stage_key
from tipc.results.records import StageRecord
from tipc.triage.culprits import Culprit
from tipc.triage.states import ATTENTION, CellState, State

SHOWN = 100  # cells listed; the rest are counted
QUIET = (State.PASSING, State.NOT_RUN)  # counted, never listed


@dataclass(frozen=True, slots=True)
class StateLine:
    state: str  # a State value
    text: str  # "new failure", "still failing: 3 nights, since <run>"
    stage: str
    anchor: str  # the stage's details
    why: str  # its cause, else its reason ("" when it passed)
    culprit: Culprit | None = None  # a new failure's, when the night bisected it


@dataclass(frozen=True, slots=True)
class StatesView:
    counts: tuple[tuple[str, int], ...]  # State values present, in ATTENTION order
    lines: tuple[StateLine, ...]  # the cells to look at, in ATTENTION order
    more: int  # cells to look at beyond ``lines``


def known(record: StageRecord) -> State | None:
    """A record's state; None for a record from before states, or with a state this tipc does not know."""
    try:
        return State(record.state) if record.state else None
    except ValueError:
        return None


def state_text(record: StageRecord) -> str:
    """What the report says of a record's state ("" when it has none it knows)."""
    state = known(record)
    return "" if state is None else CellState(state, record.state_since, record.state_nights).text()


def why(record: StageRecord) -> str:
    if record.cause:
        return f"{record.cause_kind}: {record.cause}"
    return "" if record.state in (State.PASSING.value, State.FIXED.value) else record.reason or record.flaky_note


def rank(record: StageRecord) -> int:
    """Where a record's state comes in ATTENTION (records without one last)."""
    state = known(record)
    return len(ATTENTION) if state is None else ATTENTION.index(state)


def build_states(
    records: Iterable[StageRecord], anchors: Mapping[StageKey, str], culprits: Mapping[str, Culprit] | None = None
) -> StatesView | None:
    """``records``: this run's own (carried-over records are an earlier night's state); ``culprits``: what the
    night's bisection found, by stage id."""
    present: Counter[str] = Counter()
    listed = []  # the records a person reads about: the quiet ones (passing) are only counted
    for r in records:
        state = known(r)
        if state is not None:
            present[r.state] += 1
            if state not in QUIET:
                listed.append(r)
    if not present:
        return None
    listed.sort(key=rank)
    found = culprits or {}
    lines = tuple(
        StateLine(r.state, state_text(r), r.id, anchors.get(stage_key(r), ""), why(r), found.get(r.id))
        for r in listed[:SHOWN]
    )
    counts = tuple((s.value, present[s.value]) for s in ATTENTION if present[s.value])
    return StatesView(counts, lines, max(0, len(listed) - SHOWN))
