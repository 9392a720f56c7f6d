"""The night's index: one page for a whole night, every model and mode, what needs a person first.

Counts of the night's cells by state (``tipc.triage.states``), then the new failures with their causes and
culprits (a night's own bisection, ``tipc.triage.culprits``), the figures that regressed with the night
their regression began, the flaky cells, the machine's failures (infra), those still failing (since when)
and those fixed; then every model and mode with a link into its report. Each list shows at most
``SHOWN`` cells on the first page, the whole list on a page of its own, and the models ``MODELS_SHOWN`` to a
page, those with a failure first: the first page stays small however large the night. Pure: folders in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tipc.history.store import StageKey
from tipc.report.naming import stage_key
from tipc.report.states import rank, state_text, why
from tipc.results.records import StageRecord, run_verdict
from tipc.triage.culprits import Culprit
from tipc.triage.states import ATTENTION, State

SHOWN = 50  # cells of each list on the first page
MODELS_SHOWN = 100  # models and modes to a page
# The lists, in the order a release engineer reads them (regressions come second: ``NightPage.regressions``).
LISTED = (State.NEW_FAILURE, State.FLAKY, State.INFRA, State.STILL_FAILING, State.FIXED)
TITLES = {
    State.NEW_FAILURE: "New failures",
    State.FLAKY: "Flaky",
    State.INFRA: "The machine's failures (infra)",
    State.STILL_FAILING: "Still failing",
    State.FIXED: "Fixed",
}


@dataclass(frozen=True, slots=True)
class FigureRegression:
    stage: str
    figure: str
    value: str  # with its unit, and the band it left
    since: str  # the run id of the night the regression began
    link: str  # the stage's details in its report (as ``FolderNight.links``)


@dataclass(frozen=True, slots=True)
class FolderNight:
    """One model and mode of the night: its own records, where its report is, what regressed, who broke what."""

    model: str
    mode: str
    records: tuple[StageRecord, ...]
    report: str = ""  # its report page, relative to the index's folder; "" when it has none
    links: Mapping[StageKey, str] = field(default_factory=dict)  # stage → its details, relative to the report
    regressions: tuple[FigureRegression, ...] = ()
    culprits: Mapping[str, Culprit] = field(default_factory=dict)  # stage id → what the night's bisect found


@dataclass(frozen=True, slots=True)
class NightLine:
    model: str
    mode: str
    stage: str
    state: str
    text: str
    why: str
    href: str
    culprit: Culprit | None = None


@dataclass(frozen=True, slots=True)
class NightRegression:
    model: str
    mode: str
    regression: FigureRegression
    href: str


@dataclass(frozen=True, slots=True)
class NightSection:
    state: str
    title: str
    lines: tuple[NightLine, ...]
    total: int
    page: str  # the page of the whole list ("" when the first page shows it all)


@dataclass(frozen=True, slots=True)
class ModelRow:
    model: str
    mode: str
    verdict: str
    counts: tuple[tuple[str, int], ...]  # states present, in ATTENTION order
    href: str


@dataclass(frozen=True, slots=True)
class NightPage:
    title: str
    night: str
    generated: str
    counts: tuple[tuple[str, int], ...]  # states present over the night, in ATTENTION order
    sections: tuple[NightSection, ...]  # LISTED order, non-empty ones
    regressions: tuple[NightRegression, ...]
    regressions_total: int
    models: tuple[ModelRow, ...]
    models_total: int
    model_pages: int
    part: str = "index"  # "index", "models" (page ``current``) or "state" (one list whole)
    current: int = 0
    up: str = ""  # from this page to the index's folder


def section_page(state: str) -> str:
    return f"{state}.html"


def models_page(k: int) -> str:
    return f"models-{k}.html"


def at(report: str, link: str) -> str:
    """``link`` (``#anchor``, or ``chains/<chain>.html#anchor`` in a report of many pages) from the index."""
    if not report or not link:
        return report
    return f"{report}{link}" if link.startswith("#") else f"{report.rpartition('/')[0]}/{link}"


def _line(folder: FolderNight, record: StageRecord) -> NightLine:
    culprit = folder.culprits.get(record.id) if record.state == State.NEW_FAILURE.value else None
    href = at(folder.report, folder.links.get(stage_key(record), ""))
    return NightLine(folder.model, folder.mode, record.id, record.state, state_text(record), why(record), href,
                     culprit)  # fmt: skip


def _counts(records: Sequence[StageRecord]) -> tuple[tuple[str, int], ...]:
    present = [r.state for r in records if r.state]
    return tuple((s.value, present.count(s.value)) for s in ATTENTION if s.value in present)


def _row(folder: FolderNight) -> ModelRow:
    verdict = run_verdict(r.status for r in folder.records)
    return ModelRow(folder.model, folder.mode, verdict, _counts(folder.records), folder.report)


def model_rows(folders: Sequence[FolderNight]) -> list[ModelRow]:
    """Every model and mode, those that did not pass first."""
    return sorted((_row(f) for f in folders), key=lambda row: row.verdict in ("passed", "empty"))


def lines_of(folders: Sequence[FolderNight], state: State) -> list[NightLine]:
    return [_line(f, r) for f in folders for r in sorted(f.records, key=rank) if r.state == state.value]


def build_night(night: str, folders: Sequence[FolderNight], generated: str = "") -> NightPage:
    """The first page of the night's index (``part`` "index")."""
    sections = []
    for state in LISTED:
        found = lines_of(folders, state)
        if found:
            page = section_page(state.value) if len(found) > SHOWN else ""
            sections.append(NightSection(state.value, TITLES[state], tuple(found[:SHOWN]), len(found), page))
    regressions = [NightRegression(f.model, f.mode, g, at(f.report, g.link)) for f in folders for g in f.regressions]
    rows = model_rows(folders)
    modes = sorted({f.mode for f in folders})
    return NightPage(
        title=f"tipc night · {night} · {len(folders)} model(s) × mode(s)" + (f" · {', '.join(modes)}" if modes else ""),
        night=night,
        generated=generated,
        counts=_counts([r for f in folders for r in f.records]),
        sections=tuple(sections),
        regressions=tuple(regressions[:SHOWN]),
        regressions_total=len(regressions),
        models=tuple(rows[:MODELS_SHOWN]),
        models_total=len(rows),
        model_pages=max(1, -(-len(rows) // MODELS_SHOWN)),
    )
