"""A full disk under the output folder: a clear stop, valid records, no temp files, no traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tipc.cli.main import main

CPU_CONFIG = "configs/fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


@pytest.fixture
def small_disk(fake_repo: Path):
    """A 256 KiB tmpfs where the results go (needs root and mount; skipped with that reason otherwise)."""
    where = fake_repo / "test_tipc"
    where.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a full disk is simulated with a small tmpfs: needs root and mount")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(where: Path, leave: int) -> None:
    """Fill the filesystem but for about ``leave`` bytes."""
    stat = os.statvfs(where)
    free = stat.f_bavail * stat.f_frsize
    (where / "filler").write_bytes(b"\0" * max(0, free - leave))


@pytest.mark.parametrize("leave", [0, 12 * 1024], ids=["full-before-the-run", "fills-during-the-run"])
def test_a_full_disk_stops_the_run_cleanly(fake_repo, small_disk, capsys, leave):
    fill(small_disk, leave)
    code = main(
        [
            "run",
            "--config",
            str(fake_repo / CPU_CONFIG),
            "--mode",
            "lite_train_lite_infer",
            "--python",
            sys.executable,
            "--report-dir",
            str(fake_repo / "reports"),
        ]
    )
    err = capsys.readouterr().err
    assert code in (1, 2)
    assert "No space left on device" in err and "Traceback" not in err
    out = small_disk / "output" / "fake_rec" / "lite_train_lite_infer"
    records = out / "results.jsonl"
    if records.exists():
        for line in records.read_text().splitlines():
            json.loads(line)  # every line that made it is a whole record
    assert not list(small_disk.rglob("*.tmp"))


def test_a_full_report_folder_is_a_warning_and_leaves_no_temp_file(fake_repo, small_disk, capsys):
    """The results are elsewhere and complete; only the report cannot be written."""
    fill(small_disk, 0)
    reports = small_disk / "reports"
    code = main(["run", "--config", str(fake_repo / CPU_CONFIG), "--mode", "lite_train_lite_infer",
                 "--python", sys.executable, "--output-root", "./elsewhere", "--report-dir", str(reports)])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0
    assert "tipc: report not written (" in err and "No space left on device" in err and "Traceback" not in err
    assert not list(small_disk.rglob("*.tmp")) and not list(small_disk.rglob(".*.tmp"))
    assert len((fake_repo / "elsewhere/fake_rec/lite_train_lite_infer/results.jsonl").read_text().splitlines()) == 5


def test_a_disk_that_fills_as_a_stage_exits_keeps_its_record_and_ends_the_run(
    fake_repo, small_disk, capsys, monkeypatch
):
    """The stage's own outputs take the last free byte: it keeps its record (from the results
    folder's reserve), the run stops with the error, and run.json is ended."""
    monkeypatch.setenv("TIPC_FAKE", "train:fill")
    code = main(["run", "--config", str(fake_repo / CPU_CONFIG), "--mode", "lite_train_lite_infer",
                 "--python", sys.executable, "--no-report"])  # fmt: skip
    err = capsys.readouterr().err
    assert code in (1, 2) and "No space left on device" in err and "Traceback" not in err
    out = small_disk / "output" / "fake_rec" / "lite_train_lite_infer"
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["norm_train-gpus_-1-fp32::train"]
    assert json.loads((out / "run.json").read_text())["ended"] is True
