"""Every verdict belongs to this run: shared folders, pytest's cache, stable places (pytester)."""

from __future__ import annotations

import json
import sys

import pytest

CPU = "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
AMP = "train_linux_cpu_normal_amp_infer_python_linux_cpu.txt"
MODE = "lite_train_lite_infer"

CHAIN = "norm_train-gpus_-1-fp32"
EXPORT_AND_AFTER = 3  # export and the two infer cases it feeds


def run_id(tipc_run) -> str:
    return json.loads((tipc_run.out() / "run.json").read_text())["run_id"]


def test_two_configs_sharing_a_model_name_keep_every_record_counted_once(tipc_run):
    """As PaddleOCR's normal and amp configs of one model do: one output folder for both."""
    configs = tipc_run.pytester.path / "test_configs" / "fake_rec"
    (configs / AMP).write_text((configs / AMP).read_text().replace("model_name:fake_rec_amp", "model_name:fake_rec"))
    result = tipc_run.run("--config", f"fake_rec/{AMP}")
    result.assert_outcomes(passed=15)
    result.stdout.fnmatch_lines(["tipc: 15 passed in */fake_rec/lite_train_lite_infer/ (*"])
    records = tipc_run.records()
    assert len(records) == 15 and {r["run_id"] for r in records} == {run_id(tipc_run)}
    assert {r["config"].rsplit("/", 1)[1] for r in records} == {CPU, AMP}
    info = json.loads((tipc_run.out() / "run.json").read_text())
    assert info["ended"] and [c.rsplit("/", 1)[1] for c in info["configs"]] == [CPU, AMP]


def test_each_run_keeps_its_records_and_the_next_moves_them_aside(tipc_run):
    tipc_run.run().assert_outcomes(passed=5)
    first = run_id(tipc_run)
    tipc_run.run().assert_outcomes(passed=5)
    assert run_id(tipc_run) != first
    archived = tipc_run.out() / "runs" / first / "results.jsonl"
    assert len(archived.read_text().splitlines()) == 5 and len(tipc_run.records()) == 5


def test_dry_run_leaves_pytests_last_failed_as_it_was(tipc_run, monkeypatch):
    tipc_run.pytester.makeini("[pytest]\n")  # the cache provider is on for these runs
    monkeypatch.setenv("TIPC_FAKE", "export:fail")
    tipc_run.run().assert_outcomes(passed=2, failed=1, skipped=2)
    monkeypatch.delenv("TIPC_FAKE")
    tipc_run.run("--tipc-dry-run").assert_outcomes(skipped=5)  # printed commands judge nothing
    result = tipc_run.run("--lf")
    result.assert_outcomes(passed=EXPORT_AND_AFTER)
    assert next(r["id"].rpartition("::")[2] for r in tipc_run.records() if r["run_id"] == run_id(tipc_run)) == "export"


def test_report_lands_in_the_current_directory_whatever_pytests_rootdir(tipc_run):
    """No ini file: pytest's rootdir is the common ancestor of the arguments (here the
    interpreter's and tipc's paths), not the directory the user ran from."""
    (tipc_run.pytester.path / "tox.ini").unlink()
    result = tipc_run.pytester.runpytest(
        tipc_run.tipc_dir, "--config", f"fake_rec/{CPU}", "--mode", MODE, "--tipc-python", sys.executable
    )
    result.assert_outcomes(passed=5)
    reports = tipc_run.pytester.path / "reports" / "fake_rec" / MODE
    result.stdout.fnmatch_lines([f"tipc: report: {reports}/*/index.html"])
    assert (reports / "latest" / "index.html").is_file()


def test_a_python_that_cannot_run_stops_the_run_with_the_fix(tipc_run):
    shim = tipc_run.pytester.path / "python3.7"
    shim.write_text("#!/bin/sh\nexit 127\n")
    shim.chmod(0o755)
    result = tipc_run.pytester.runpytest(*tipc_run.args()[:-2], "--tipc-python", str(shim))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: --tipc-python {shim}: is on PATH ({shim}) but cannot run: exit 127: *; "
            f"give an interpreter that runs, e.g. --tipc-python {sys.executable}"
        ]
    )
    assert not tipc_run.out().exists()
