"""A large run's report is pages: the first stays small whatever the run's size, every link on it
leads to a page that is there, and ``latest`` points at the report instead of copying it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.night import FAILED_EVERY, results_folder
from tipc.report import pages, write_report
from tipc.report.model import Cell, MatrixRow

HREF = re.compile(r'href="([^"#]*)(?:#([^"]*))?"')


@pytest.fixture
def small_pages(monkeypatch):
    """Pages at a size a test renders in seconds: more than 50 stages is many, 10 chains to a page."""
    monkeypatch.setattr(pages, "ONE_PAGE_STAGES", 50)
    monkeypatch.setattr(pages, "MATRIX_ROWS", 10)


def report_of(tmp_path: Path, stages: int) -> Path:
    results = tmp_path / f"r{stages}"
    results_folder(results, stages, log_bytes=2048)
    return write_report([results], tmp_path / f"out{stages}", history=False)


def links(page: Path) -> list[tuple[str, str]]:
    return [(target, anchor) for target, anchor in HREF.findall(page.read_text()) if "://" not in target]


def test_first_page_does_not_grow_with_the_run(small_pages, tmp_path):
    small = report_of(tmp_path, 300)
    large = report_of(tmp_path, 900)
    assert large.stat().st_size <= small.stat().st_size * 1.05
    text = large.read_text()
    assert 'id="stages"' not in text  # the stage details are on the chains' pages
    assert text.count('<th class="row" scope="row">') == pages.MATRIX_ROWS
    # the matrix's other chains are a link away, and every one of them is on a page
    shown = sum(p.read_text().count('scope="row"') for p in large.parent.glob("matrix-*.html"))
    assert shown == 900 // 25


def test_failing_chains_come_first_on_the_first_page(small_pages, tmp_path):
    index = report_of(tmp_path, 300)
    rows = re.findall(r'<th class="row" scope="row"><a href="[^"]*">([^<]*)</a>', index.read_text())
    failing = {f"norm_train-gpus_{n // 25}-fp32" for n in range(300) if n % FAILED_EVERY == FAILED_EVERY - 1}
    assert set(rows[: len(failing)]) == failing


def test_every_link_of_a_paged_report_leads_somewhere(small_pages, tmp_path):
    index = report_of(tmp_path, 200)
    folder = index.parent
    seen = set()
    chain = next((folder / "chains").iterdir())
    for page in [index, *folder.glob("matrix-*.html"), folder / "figures.html", chain]:
        for target, anchor in links(page):
            path = (page.parent / target).resolve() if target else page
            assert path.is_file(), f"{page.name} links to {target}, which is not there"
            if anchor:
                assert f'id="{anchor}"' in path.read_text(), f"{page.name} links to {target}#{anchor}"
            seen.add(path.parent.name)
    assert "chains" in seen  # the stages are on their chains' pages
    assert any(name.isdigit() for name in seen)  # and the logs (the results' logs/<chain>/) link from there
    assert 'class="stage' in chain.read_text() and "../index.html" in chain.read_text()


def test_latest_points_at_a_paged_report(small_pages, tmp_path):
    index = report_of(tmp_path, 200)
    latest = index.parent.parent / "latest"
    assert latest.is_symlink() and latest.resolve() == index.parent.resolve()
    assert len((index.parent.parent / "latest.html").read_bytes()) < 1024


def test_a_small_run_stays_one_page(tmp_path):
    index = report_of(tmp_path, 50)
    assert 'id="stages"' in index.read_text()
    assert not (index.parent / "chains").exists() and not (index.parent / "matrix-1.html").exists()


def row(label: str, *statuses: str, carried: str = "") -> MatrixRow:
    return MatrixRow(label, "", label, tuple(Cell(s, s, "", "", "", carried) for s in statuses))


@pytest.mark.parametrize(
    ("rows", "first"),
    [
        ([row("a", "passed"), row("b", "failed"), row("c", "timeout")], ["b", "c", "a"]),
        ([row("a", "passed", "blocked"), row("b", "passed")], ["a", "b"]),
        ([row("a", "passed"), row("b", "failed", carried="from earlier run x")], ["a", "b"]),
        ([row("a", "passed"), row("b", "none", "hung")], ["b", "a"]),
    ],
)
def test_first_rows_put_this_runs_failures_first(rows, first):
    assert [r.label for r in pages.first_rows(rows)] == first
