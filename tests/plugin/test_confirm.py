"""``--confirm N`` on both fronts: a stage that failed runs again before the stages after it; one that then
passes is flaky (both attempts kept, said as flaky), one that fails every time is a failure confirmed."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.plugin.conftest import CPU, MODE

STAGES = 5


def cli(tipc_run, *extra: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "tipc", "run", "--config", f"fake_rec/{CPU}", "--mode", MODE]
    argv += ["--python", sys.executable, "--no-report", *extra]
    return subprocess.run(argv, cwd=tipc_run.pytester.path, capture_output=True, text=True, timeout=300)


def test_a_stage_that_passes_when_confirmed_is_flaky_on_the_pytest_front(tipc_run, monkeypatch, tmp_path):
    monkeypatch.setenv("TIPC_FAKE", f"export:fail-once={tmp_path / 'failed-once'}")
    result = tipc_run.run("--tipc-confirm", "2")
    export = tipc_run.records()[2]
    assert [a["status"] for a in export["attempts"]] == ["failed", "passed"]
    assert all(r["status"] == "passed" for r in tipc_run.records())  # the infer stages ran on its outputs
    result.stdout.fnmatch_lines([f"tipc: {STAGES} passed (1 flaky) in *"])
    legacy = (tipc_run.out() / "results_python.log").read_text()
    assert "Run failed" not in legacy and legacy.count("Run successfully") == STAGES


def test_a_stage_that_fails_every_time_is_a_failure_after_every_attempt_on_the_cli(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "export:fail")
    done = cli(tipc_run, "--confirm", "2")
    assert done.returncode == 1, done.stderr
    records = [json.loads(line) for line in (tipc_run.out() / "results.jsonl").read_text().splitlines()]
    export = next(r for r in records if r["id"].endswith("::export"))
    assert export["status"] == "failed" and [a["status"] for a in export["attempts"]] == ["failed"] * 3
    legacy = (tipc_run.out() / "results_python.log").read_text()
    assert legacy.count("Run failed") == 1  # one line for the stage, its last attempt's


def test_without_confirm_a_failed_stage_runs_once(tipc_run, monkeypatch, tmp_path):
    monkeypatch.setenv("TIPC_FAKE", f"export:fail-once={tmp_path / 'failed-once'}")
    done = cli(tipc_run)
    assert done.returncode == 1
    export = next(r for r in map(json.loads, (tipc_run.out() / "results.jsonl").read_text().splitlines())
                  if r["id"].endswith("::export"))  # fmt: skip
    assert export["status"] == "failed" and export["attempts"] == []


def test_a_confirm_count_that_is_not_one_is_refused_by_name(tipc_run):
    done = cli(tipc_run, "--confirm", "many")
    assert done.returncode == 2
    assert "--confirm 'many': expected how many times to run a failed stage again, 0 to 10" in done.stderr
