"""A report reads its records as a stream: however many records a results.jsonl holds, the report
holds the records of a chain or two at a time, never the run's (what keeps a 100 MB results.jsonl
within a bounded memory)."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from tests.support.night import CASES, results_folder
from tipc.files.write import scratch_file
from tipc.report import build, pages, write_report
from tipc.report.load import Records
from tipc.report.model import Cell, MatrixRow, PerfRow
from tipc.report.spill import Scratch, Spill, flat
from tipc.results.folder import read_records
from tipc.results.records import StageRecord


def live(*kinds: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, kinds))


ROWS = (Cell, MatrixRow, PerfRow)  # what the pages show of each record: the matrix's and the figures'


def peaks(monkeypatch, folder: Path, stages: int) -> tuple[int, int]:
    """The most records, and the most matrix cells, matrix rows and figures rows, alive beyond those
    alive before, while the page's parts are built and while each page is written."""
    results = folder / "results"
    results_folder(results, stages, log_bytes=512)
    seen: list[tuple[int, int]] = []

    def count() -> None:
        seen.append((live(StageRecord), live(*ROWS)))

    def counted(wrapped):
        def counting(*args, **kwargs):
            count()
            return wrapped(*args, **kwargs)

        return counting

    real_matrix, real_pieces = build.build_matrix, pages.write_atomic_lines

    def matrix(records, *args):  # counted halfway through the reading the matrix and the figures share
        def halfway():
            for n, r in enumerate(records):
                if n == stages // 2:
                    count()
                yield r

        return real_matrix(halfway(), *args)

    monkeypatch.setattr(build, "build_matrix", matrix)
    monkeypatch.setattr(pages, "write_atomic_lines", counted(real_pieces))
    before = (live(StageRecord), live(*ROWS))  # what other tests of this process left alive is not this report's
    write_report([results], folder / "out", history=False)
    assert len(seen) > stages // (CASES + 1)  # every chain's page was counted
    return max(n - before[0] for n, _ in seen), max(n - before[1] for _, n in seen)


def test_a_report_never_holds_the_runs_records_nor_a_row_of_each(monkeypatch, tmp_path):
    """At most the records of the chain being read (and its neighbour), whatever the run's size; and as
    many matrix cells and rows and figures rows at three times the run's size: those of a matrix page,
    of the chains being read and of the chains plotted, never one a record."""
    monkeypatch.setattr(pages, "ONE_PAGE_STAGES", 50)
    monkeypatch.setattr(pages, "MATRIX_ROWS", 10)
    monkeypatch.setattr(Spill, "CHUNK", 10)
    records, rows = peaks(monkeypatch, tmp_path / "small", 300)
    more_records, more_rows = peaks(monkeypatch, tmp_path / "large", 900)
    assert max(records, more_records) <= 2 * (CASES + 1), (records, more_records)
    assert more_rows <= rows + 2 * (CASES + 1), (rows, more_rows)
    assert more_rows < 900  # not one a record


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


@pytest.mark.parametrize("count", [0, 1, 9, 10, 25])
def test_rows_put_in_a_scratch_file_read_back_as_they_were(tmp_path, monkeypatch, count):
    """In chunks of 10, the last one short: each row, a slice, a row counted from the end, and the rows
    in order, as a list in memory gives them."""
    monkeypatch.setattr(Spill, "CHUNK", 10)
    rows = [Cell(str(n), "passed", f"{n}.0 s", f"stage {n}", f"stage-{n}") for n in range(count)]
    with scratch_file(tmp_path) as file:
        kept = Spill[Cell](Scratch(file, tmp_path), *flat(Cell))
        for row in rows:
            kept.append(row)
        shown = kept.held()
        assert len(shown) == count
        assert list(shown) == rows
        assert shown[3:13] == tuple(rows[3:13])
        assert [shown[n] for n in range(-count, count)] == rows + rows
        with pytest.raises(IndexError):
            shown[count]
    in_memory = Spill[Cell]()
    for row in rows:
        in_memory.append(row)
    assert in_memory.held() == tuple(rows)
