"""What the matrix report remembers between runs, in the history store, and what the next run reads
back; the ``matrix.json`` files older tipcs left beside their pages are read too, until the store has rows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tipc.history.legacy import LOOK_BACK, OLD_PAGE_ROWS, PAGE_ROWS, PAGE_SCHEMA, read_page_rows
from tipc.history.matrix import cause_history, earlier_runs
from tipc.history.matrix import remember as remember_in_store
from tipc.history.store import HISTORY_FILE, MatrixRow
from tipc.report.overview import ConfigOutcome, build_page
from tipc.results.records import StageRecord, Status

MODE = "lite_train_lite_infer"


def night(day: int) -> str:
    return f"202611{day:02d}T013000Z-0000000{day % 10}"


def trained(configs: dict[str, Status]) -> list[ConfigOutcome]:
    return [
        ConfigOutcome(name, MODE, records=(StageRecord(id="c::train", kind="train", chain="c", status=status),))
        for name, status in configs.items()
    ]


def remember(root: Path, run_id: str, configs: dict[str, Status]) -> None:
    """A matrix page's rows into the store ``root`` holds, as ``write_overview`` records them."""
    remember_in_store(
        root / HISTORY_FILE, root, run_id, build_page(run_id, trained(configs), root, {}).rows, pytest.fail
    )


def old_page(root: Path, run_id: str, outcomes: list[ConfigOutcome], name: str = PAGE_ROWS) -> None:
    """The rows of a page an older tipc wrote, in the file it kept beside the page."""
    rows = [
        {
            "config": r.config,
            "mode": r.mode,
            "verdict": r.verdict,
            "failures": list(r.failures),
            "causes": list(r.causes),
        }
        for r in build_page(run_id, outcomes, root, {}).rows
    ]
    (root / run_id).mkdir(parents=True)
    (root / run_id / name).write_text(json.dumps({"schema": PAGE_SCHEMA, "run_id": run_id, "rows": rows}))


def test_a_page_from_before_the_store_reads_back(tmp_path):
    old_page(tmp_path, night(1), trained({"a.txt": Status.FAILED, "b.txt": Status.PASSED}))
    assert read_page_rows(tmp_path / night(1) / PAGE_ROWS) == (
        night(1),
        (
            MatrixRow("a.txt", MODE, "failed", ("c::train",), ()),
            MatrixRow("b.txt", MODE, "passed", (), ()),
        ),
    )


def test_a_page_written_before_the_rename_still_reads_by_its_old_name(tmp_path):
    old_page(tmp_path, night(1), trained({"a.txt": Status.FAILED}), OLD_PAGE_ROWS)
    old_page(tmp_path, night(2), trained({"b.txt": Status.PASSED}))
    found = earlier_runs(tmp_path, night(3), {("a.txt", MODE), ("b.txt", MODE)}, print, tmp_path / HISTORY_FILE)
    assert {k[0]: (e.run_id, e.verdict) for k, e in found.items()} == {
        "a.txt": (night(1), "failed"),
        "b.txt": (night(2), "passed"),
    }


def test_each_config_gets_its_latest_earlier_run(tmp_path):
    remember(tmp_path, night(1), {"a.txt": Status.FAILED, "b.txt": Status.FAILED})
    remember(tmp_path, night(2), {"a.txt": Status.PASSED})
    remember(tmp_path, night(4), {"a.txt": Status.FAILED, "b.txt": Status.PASSED})  # a later run: not history
    wanted = {("a.txt", MODE), ("b.txt", MODE), ("c.txt", MODE)}
    found = earlier_runs(tmp_path / "pages-gone", night(3), wanted, print, tmp_path / HISTORY_FILE)
    assert {k[0]: (e.run_id, e.verdict) for k, e in found.items()} == {
        "a.txt": (night(2), "passed"),
        "b.txt": (night(1), "failed"),  # not in night 2's matrix
    }


@pytest.mark.parametrize(
    "content",
    [
        b"{",
        b"\xff\xfe",
        json.dumps({"schema": 9, "rows": []}).encode(),
        json.dumps({"schema": 1, "rows": [1]}).encode(),
    ],
    ids=["not-json", "not-utf8", "newer-schema", "bad-row"],
)
def test_a_bad_summary_is_skipped_with_a_warning_naming_it(tmp_path, content):
    old_page(tmp_path, night(1), trained({"a.txt": Status.PASSED}))
    (tmp_path / night(2)).mkdir()
    (tmp_path / night(2) / PAGE_ROWS).write_bytes(content)
    warnings: list[str] = []
    found = earlier_runs(tmp_path, night(3), {("a.txt", MODE)}, warnings.append, tmp_path / HISTORY_FILE)
    assert found[("a.txt", MODE)].run_id == night(1)
    (warning,) = warnings
    assert warning.startswith(f"tipc: skipped matrix history entry {tmp_path / night(2) / PAGE_ROWS}: ")


def test_history_is_read_only_so_far_back(tmp_path):
    remember(tmp_path, night(1), {"old.txt": Status.PASSED})
    for day in range(2, LOOK_BACK + 2):
        remember(tmp_path, night(day), {"a.txt": Status.PASSED})
    assert earlier_runs(tmp_path, "99999999", {("old.txt", MODE)}, print, tmp_path / HISTORY_FILE) == {}


def test_no_history_yet(tmp_path):
    missing = tmp_path / "missing"
    assert earlier_runs(missing, night(1), {("a.txt", MODE)}, print, missing / HISTORY_FILE) == {}


def failed(causes: dict[str, str]) -> list[ConfigOutcome]:
    return [
        ConfigOutcome(
            name,
            MODE,
            records=(StageRecord(id="c::train", kind="train", chain="c", status=Status.FAILED, cause=cause),),
        )
        for name, cause in causes.items()
    ]


def remember_causes(root: Path, run_id: str, causes: dict[str, str]) -> None:
    remember_in_store(root / HISTORY_FILE, root, run_id, build_page(run_id, failed(causes), root, {}).rows, pytest.fail)


def test_the_causes_of_earlier_runs_read_back_oldest_first(tmp_path):
    remember_causes(tmp_path, night(1), {"a.txt": "KeyError: 'x'"})
    remember_causes(tmp_path, night(2), {"a.txt": "KeyError: 'x'", "b.txt": "CUDA error: N"})
    remember_causes(tmp_path, night(4), {"a.txt": "later"})  # after the current run: not history
    assert cause_history(tmp_path, night(3), print, tmp_path / HISTORY_FILE) == [
        (night(1), frozenset({"KeyError: 'x'"})),
        (night(2), frozenset({"KeyError: 'x'", "CUDA error: N"})),
    ]


def test_a_summary_from_before_causes_were_kept_reads_as_none(tmp_path):
    (tmp_path / night(1)).mkdir()
    row = {"config": "a.txt", "mode": MODE, "verdict": "failed", "failures": ["c::train"]}
    (tmp_path / night(1) / PAGE_ROWS).write_text(json.dumps({"schema": 1, "run_id": night(1), "rows": [row]}))
    assert cause_history(tmp_path, night(2), print, tmp_path / HISTORY_FILE) == [(night(1), frozenset())]
    assert read_page_rows(tmp_path / night(1) / PAGE_ROWS)[1][0].causes == ()


def test_the_store_keeps_the_matrix_history_when_the_pages_are_gone(tmp_path):
    pages, store = tmp_path / "matrix", tmp_path / HISTORY_FILE
    old_page(pages, night(1), failed({"a.txt": "KeyError: 'x'"}))  # a page from before the store
    rows = build_page(night(2), failed({"a.txt": "CUDA error: N"}), pages, {}).rows
    remember_in_store(store, pages, night(2), rows, print)  # imports night 1
    shutil.rmtree(pages)
    assert earlier_runs(pages, night(3), {("a.txt", MODE)}, print, store)[("a.txt", MODE)].run_id == night(2)
    assert cause_history(pages, night(3), print, store) == [
        (night(1), frozenset({"KeyError: 'x'"})),
        (night(2), frozenset({"CUDA error: N"})),
    ]
