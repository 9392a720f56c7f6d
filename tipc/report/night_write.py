"""``write_night``: a night's results folders → ``<out_root>/night/<night>/index.html`` (+ ``latest``).

The night is every ``<model>/<mode>`` results folder given (or found one and two folders down an output
root): each folder's own records (their states), its report's page under ``out_root`` when it was written,
the figures that regressed against the history (read, never written here) and the culprits of the night's
bisection. Beside the first page: one page per list too long for it (``<state>.html``) and the models,
``MODELS_SHOWN`` to a page (``models-<k>.html``). Plain HTML files with their style inside: the index reads
from ``file://``, offline, with no server and no script.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from tipc.files.write import under, write_atomic
from tipc.history.rule import regressed_since
from tipc.history.store import History, HistoryError
from tipc.metrics.noise import TrendPolicy
from tipc.report.build import all_records, format_time, head_info
from tipc.report.figures import FIGURES
from tipc.report.load import NodeRun, is_carried, load_runs, run_ids
from tipc.report.logtail import file_link
from tipc.report.night import (
    MODELS_SHOWN,
    FigureRegression,
    FolderNight,
    NightPage,
    NightSection,
    build_night,
    lines_of,
    model_rows,
    models_page,
    section_page,
)
from tipc.report.pages import is_paged, page_links
from tipc.report.render import environment
from tipc.report.svg import fmt_figure, fmt_range
from tipc.report.trends import Regression
from tipc.report.write import (
    DEFAULT_TRENDS,
    INDEX,
    night_trends,
    report_mode_dir,
    run_report_dir,
    store_of,
    summary_and_anchors,
    update_latest,
)
from tipc.results.folder import Warn, has_results
from tipc.triage.culprits import read_culprits
from tipc.triage.states import State

NIGHT = "night"  # <report root>/night/<night>/: the night's index
_BY_LABEL = {f.label: f for f in FIGURES}


def night_folders(roots: Sequence[Path]) -> Iterator[Path]:
    """Each results folder given, or under an output root given: ``<root>/<model>/<mode>``."""
    for root in roots:
        if has_results(root):
            yield root
            continue
        for model in sorted(p for p in root.iterdir() if p.is_dir()):
            yield from sorted(mode for mode in model.iterdir() if mode.is_dir() and has_results(mode))


def _links(runs: Sequence[NodeRun]) -> dict[tuple[str, int], str]:
    _, anchors = summary_and_anchors(runs)
    pages = page_links(anchors) if is_paged(len(all_records(runs))) else {}
    return {key: f"{pages.get(anchor, '')}#{anchor}" for key, anchor in anchors.stages.items()}


def _since(found: Regression, history: History, model: str, mode: str, run: str, policy: TrendPolicy) -> str:
    stage, _, node = found.stage.partition(" (node ")
    figure = _BY_LABEL[found.figure]
    key = (stage, int(node.rstrip(")") or 0), figure.key)
    nights = [(e.run, e.figures.get(key)) for e in history.series(model, mode) if e.config == found.config]
    return regressed_since([n for n in nights if n[0] <= run], figure.higher_is_better, figure.unit, policy) or run


def _regressions(
    runs: Sequence[NodeRun], out_root: Path, policy: TrendPolicy, warn: Warn, store: Path | None
) -> tuple[FigureRegression, ...]:
    head = head_info(runs)
    mode_dir = report_mode_dir(out_root, head.model, head.mode)
    trends = night_trends(runs, mode_dir, policy, warn, store)
    if trends is None or not trends.regressions:
        return ()
    history = History(store_of(runs, mode_dir, store), warn)
    links = _links(runs)
    found = []
    for g in trends.regressions:
        value = f"{fmt_figure(g.value, g.unit)}, band {fmt_range(g.band.low, g.band.high, g.unit)}"
        try:
            since = _since(g, history, head.model, head.mode, head.run_id, policy)
        except (HistoryError, OSError):
            since = head.run_id
        link = next((href for href in links.values() if href.endswith(f"#{g.anchor}")), "") if g.anchor else ""
        found.append(FigureRegression(g.stage, g.figure, value, since, link))
    return tuple(found)


def folder_night(
    path: Path, out_root: Path, page_dir: Path, policy: TrendPolicy | None, warn: Warn, store: Path | None = None
) -> FolderNight:
    runs = load_runs([path], warn)
    head = head_info(runs)
    ids = run_ids(runs)
    own = tuple(r for r in all_records(runs) if not is_carried(r, ids))
    report = run_report_dir(out_root, head.model, head.mode, head.run_id) / INDEX if head.run_id else None
    return FolderNight(
        head.model,
        head.mode,
        own,
        file_link(report, page_dir) if report is not None and report.is_file() else "",
        _links(runs),
        _regressions(runs, out_root, policy, warn, store) if policy is not None else (),
        read_culprits(path),
    )


def tonight(folders: Sequence[Path], night: str, warn: Warn) -> tuple[str, list[Path]]:
    """The night's name and its folders. Unnamed, a night is the run group of its newest folder (by run id),
    else that folder's run id; the folders of another run group (an output root keeps every model's latest
    results, some from earlier nights) are not tonight's."""
    infos = {f: load_runs([f], warn)[0].info for f in folders}
    newest = max(infos.values(), key=lambda i: i.run_id, default=None)
    name = night or (newest.run_group or newest.run_id if newest is not None else "")
    if any(i.run_group == name for i in infos.values()):
        return name, [f for f, i in infos.items() if i.run_group == name]
    return name or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()), list(folders)


def render_night(page: NightPage) -> str:
    return environment().get_template("night.html").render(p=page)


def write_night(
    roots: Sequence[Path],
    out_root: Path,
    night: str = "",
    *,
    trends: TrendPolicy | None = DEFAULT_TRENDS,
    warn: Warn | None = None,
    store: Path | None = None,
) -> Path:
    """Write the night's index of the results folders in ``roots``; return its first page (``store``: the
    history setting)."""
    say = warn or (lambda line: None)
    name, folders = tonight(list(night_folders([Path(r) for r in roots])), night, say)
    page_dir = under(out_root, NIGHT, name)
    page_dir.mkdir(parents=True, exist_ok=True)
    nights = [folder_night(f, Path(out_root), page_dir, trends, say, store) for f in folders]
    first = build_night(name, nights, format_time(time.time()))
    write_atomic(page_dir / INDEX, render_night(first))
    for section in first.sections:
        if section.page:
            every = tuple(lines_of(nights, State(section.state)))
            whole = NightSection(section.state, section.title, every, len(every), section.page)
            write_atomic(
                page_dir / section_page(section.state), render_night(replace(first, part="state", sections=(whole,)))
            )
    rows = model_rows(nights)
    for k in range(1, first.model_pages + 1):
        part = tuple(rows[(k - 1) * MODELS_SHOWN : k * MODELS_SHOWN])
        write_atomic(page_dir / models_page(k), render_night(replace(first, part="models", current=k, models=part)))
    update_latest(page_dir.parent, name, first.title)
    return page_dir / INDEX
