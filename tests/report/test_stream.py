"""A report reads its records as a stream: however many records a results.jsonl holds, the report
holds the records of a chain or two at a time, never the run's (what keeps a 100 MB results.jsonl
within a bounded memory)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from tests.support.night import CASES, results_folder
from tipc.report import build, pages, write_report
from tipc.report.load import Records
from tipc.results.folder import read_records
from tipc.results.records import StageRecord


def live_records() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, StageRecord))


@pytest.mark.parametrize("stages", [300, 900])
def test_a_report_never_holds_the_runs_records(monkeypatch, tmp_path, stages):
    """Counted while the page's parts are built and while each page is written: at most the records
    of the chain being read (and its neighbour), whatever the run's size."""
    monkeypatch.setattr(pages, "ONE_PAGE_STAGES", 50)
    monkeypatch.setattr(pages, "MATRIX_ROWS", 10)
    results = tmp_path / "results"
    results_folder(results, stages, log_bytes=512)
    seen: list[int] = []

    def counted(wrapped):
        def count(*args, **kwargs):
            seen.append(live_records())
            return wrapped(*args, **kwargs)

        return count

    real_matrix, real_pieces = build.build_matrix, pages.write_atomic_lines

    def matrix(records, *args):  # counted halfway through the reading the matrix and the figures share
        def halfway():
            for n, r in enumerate(records):
                if n == stages // 2:
                    seen.append(live_records())
                yield r

        return real_matrix(halfway(), *args)

    monkeypatch.setattr(build, "build_matrix", matrix)
    monkeypatch.setattr(pages, "write_atomic_lines", counted(real_pieces))
    before = live_records()  # what other tests of this process left alive is not this report's
    write_report([results], tmp_path / "out", history=False)
    assert len(seen) > stages // (CASES + 1)  # every chain's page was counted
    assert max(seen) - before <= 2 * (CASES + 1), (before, seen)


def test_records_read_again_are_the_records_read_once(tmp_path):
    """Each iteration reads the file again and gives what ``read_records`` gives: a bad line is
    reported once (on the first reading), a stage's earlier record of a rerun in the same run is left
    out, and lines appended after the first reading are not read."""
    results = tmp_path / "results"
    results_folder(results, 60, log_bytes=64)
    path = results / "results.jsonl"
    lines = path.read_text().splitlines()
    rerun = json.loads(lines[3])
    rerun["run_id"] = json.loads(lines[4])["run_id"] = "R1"
    lines[4] = json.dumps(json.loads(lines[4]))
    rerun_line = json.dumps(rerun)
    lines[3] = rerun_line
    path.write_text("\n".join([*lines[:10], "not json", "", *lines[10:], rerun_line]) + "\n")
    warned: list[str] = []
    records = Records.read(path, warned.append)
    assert len(warned) == 1 and ":11:" in warned[0]
    expected = read_records(path, lambda _: None)
    with path.open("a") as more:
        more.write(lines[20] + "\n")
    assert list(records) == expected == list(records)
    assert len(records) == len(expected) == 60
    assert len(warned) == 1


def test_records_of_no_file_are_none(tmp_path: Path):
    assert list(Records.read(tmp_path / "results.jsonl")) == []
