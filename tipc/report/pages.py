"""A large run's report as pages: the page a reader opens first stays small whatever the run's size.

A run of at most ``ONE_PAGE_STAGES`` stages is one page, as it always was. A larger one is::

    index.html            summary, comparison, regressions, and the matrix's chains with a failure first
    matrix-<k>.html       every chain, ``MATRIX_ROWS`` to a page
    figures.html          performance, training benchmark, predictions and trends
    chains/<chain>.html   one chain's stage details: commands, log ends, figures

Every page is a plain HTML file linked from the others, so the report reads from ``file://``
with no server and no script; a chain's log ends are read when its page is written, one chain
at a time, so the memory a report takes does not grow with its logs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from tipc.files.write import write_atomic_lines, writing
from tipc.report.build import Anchors
from tipc.report.model import MatrixRow, Pages, ReportModel, StageGroup
from tipc.results.records import Status

ONE_PAGE_STAGES = 500
MATRIX_ROWS = 100
CHAINS = "chains"
FIGURES = "figures.html"
_FAILING = frozenset(s.value for s in Status if s.is_failure)


def is_paged(stages: int) -> bool:
    return stages > ONE_PAGE_STAGES


def matrix_page(k: int) -> str:
    return f"matrix-{k}.html"


def chain_page(anchor: str) -> str:
    return f"{CHAINS}/{anchor}.html"


def page_links(anchors: Anchors) -> dict[str, str]:
    """Each stage's and chain's anchor → the page of its chain."""
    links = {row: chain_page(row) for row in anchors.rows.values()}
    links.update((stage, links[row]) for stage, row in anchors.chain_of.items())  # one text per chain
    return links


def fails(row: MatrixRow) -> bool:
    """A row with a failure of this run (a carried-over one is an earlier run's news)."""
    return any(c.status in _FAILING and not c.carried for c in row.cells)


def first_rows(rows: Iterable[MatrixRow]) -> tuple[MatrixRow, ...]:
    """The rows the first page shows: those with a failure first, each kind in run order; read one
    at a time, no more than the page's rows of each kind held."""
    failing: list[MatrixRow] = []
    passing: list[MatrixRow] = []
    for row in rows:
        kind = failing if fails(row) else passing
        if len(kind) < MATRIX_ROWS:
            kind.append(row)
        if len(failing) == MATRIX_ROWS:
            break
    return tuple((failing + passing)[:MATRIX_ROWS])


def write_pages(
    index: Path,
    model: ReportModel,
    links: dict[str, str],
    groups: Iterable[StageGroup],
    render: Callable[[ReportModel], Iterable[str]],
) -> None:
    """The report of ``model`` as pages beside ``index``; ``groups`` is read one chain at a time."""
    folder = index.parent
    rows = model.matrix.rows
    count = max(1, -(-len(rows) // MATRIX_ROWS))
    pages = Pages(links=links, matrix_pages=count, total_rows=len(rows))

    first = replace(model.matrix, rows=first_rows(rows))
    write_atomic_lines(index, render(replace(model, part="index", pages=pages, matrix=first)))
    for k in range(1, count + 1):
        part = replace(model.matrix, rows=rows[(k - 1) * MATRIX_ROWS : k * MATRIX_ROWS])
        shown = replace(model, part="matrix", pages=replace(pages, current=k), matrix=part)
        write_atomic_lines(folder / matrix_page(k), render(shown))
    write_atomic_lines(folder / FIGURES, render(replace(model, part="figures", pages=pages)))
    chains = folder / CHAINS
    with writing(chains):
        chains.mkdir(exist_ok=True)
    written = set()
    inside = replace(pages, up="../")
    for group in groups:
        name = f"{group.anchor}.html"
        write_atomic_lines(chains / name, render(replace(model, part="chain", pages=inside, groups=(group,))))
        written.add(name)
    for stale in set(os.listdir(chains)) - written:  # a page of an earlier rendering of this run
        if stale.endswith(".html"):
            (chains / stale).unlink()
