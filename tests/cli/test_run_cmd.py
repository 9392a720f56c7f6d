"""``tipc run``: the session without pytest: status lines, exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.support.config_text import YML, ptq_config_text
from tests.support.fake_target import CPU_CONFIG
from tests.support.processes import alive, wait_for
from tipc.cli.main import main
from tipc.results.folder import ResultsDir
from tipc.results.records import RunInfo, StageRecord, Status


def tipc_run(repo, *extra: str) -> int:
    return main(
        [
            "run",
            "--config",
            str(repo / CPU_CONFIG),
            "--mode",
            "lite_train_lite_infer",
            "--python",
            sys.executable,
            "--report-dir",
            str(repo / "reports"),
            *extra,
        ]
    )


def harness_process(repo, env, **streams) -> subprocess.Popen:
    """``tipc run`` of the fake target's CPU config in a process of its own, to be signalled."""
    argv = [sys.executable, "-m", "tipc", "run", "--config", str(repo / CPU_CONFIG), "--mode", "lite_train_lite_infer",
            "--python", sys.executable, "--no-report"]  # fmt: skip
    return subprocess.Popen(argv, env=env, **streams)


def test_pass_exits_0_and_prints_status_lines(fake_repo, capsys):
    assert tipc_run(fake_repo) == 0
    out = capsys.readouterr().out.splitlines()
    assert len([row for row in out if row.startswith(" Run successfully with command - fake_rec - ")]) == 5
    assert out[-3].startswith("tipc: 5 passed in ")
    report = fake_repo / "reports" / "fake_rec" / "lite_train_lite_infer" / "latest" / "index.html"
    assert out[-2].startswith("tipc: report: ") and report.is_file()
    index = fake_repo / "reports" / "night" / "latest" / "index.html"
    assert out[-1].startswith("tipc: night index: ") and index.is_file()


def test_failure_exits_1_with_log_tail_even_when_the_report_breaks(fake_repo, capsys, monkeypatch):
    def broken_report(*args, **kwargs):
        raise RuntimeError("template bug")

    monkeypatch.setattr("tipc.session.report.write_report", broken_report)
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    assert tipc_run(fake_repo) == 1
    captured = capsys.readouterr()
    assert (
        "tipc: report not written (RuntimeError: template bug); the results are complete: `tipc report " in captured.err
    )
    assert "norm_train-gpus_-1-fp32::train: FAILED (exit code 1)" in captured.err
    assert "RuntimeError: fake failure (TIPC_FAKE)" in captured.err
    assert captured.err.count("blocked: train failed (see ") == 4
    records = (fake_repo / "test_tipc/output/fake_rec/lite_train_lite_infer/results.jsonl").read_text().splitlines()
    assert [json.loads(r)["status"] for r in records] == ["failed"] + ["blocked"] * 4


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--timeout", "all=-1"), "expected a positive number of seconds"),
        (("--repo", "/no/such/dir"), "--repo /no/such/dir: not a directory"),
    ],
    ids=["negative-timeout", "missing-repo"],
)
def test_bad_options_exit_2(fake_repo, capsys, extra, message):
    assert tipc_run(fake_repo, *extra) == 2
    assert message in capsys.readouterr().err


def test_dry_run_prints_commands_only(fake_repo, capsys):
    assert tipc_run(fake_repo, "--dry-run") == 5  # nothing ran: not a pass
    out = capsys.readouterr().out
    assert "tools/export_model.py" in out and "dry run: every command was printed; nothing ran (exit status 5)" in out
    assert not (fake_repo / "test_tipc").exists()


def test_failed_preflight_exits_1_before_any_stage(fake_repo, capsys, free_port_pair):
    code = tipc_run(
        fake_repo,
        "--ips",
        "127.0.0.2,127.0.0.3",
        "--node-rank",
        "0",
        "--start-port",
        str(free_port_pair),
        "--rendezvous-timeout",
        "1",
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "tipc preflight: FAIL peers: node 1 (127.0.0.3) never arrived within 1 s" in captured.out
    assert captured.err.startswith("tipc preflight failed; nothing was run:\n")
    node0 = fake_repo / "test_tipc/output/fake_rec/lite_train_lite_infer/node0"
    records = [json.loads(r) for r in (node0 / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["blocked"] * 5
    assert (node0 / "results_python.log").is_file()


@pytest.fixture
def free_port_pair() -> int:
    """A port on 127.0.0.2 whose neighbour below (the rendezvous) is most likely free too."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.2", 0))
        return s.getsockname()[1] + 1


def test_sigterm_stops_the_stage_keeps_the_results_and_exits_130(fake_repo):
    """A real ``tipc run`` process terminated while its first infer case runs."""

    results = fake_repo / "test_tipc/output/fake_rec/lite_train_lite_infer"
    env = {**os.environ, "TIPC_FAKE": "infer:sleep=60"}
    proc = harness_process(fake_repo, env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:

        def three_done():
            return (results / "results.jsonl").is_file() and len(
                (results / "results.jsonl").read_text().splitlines()
            ) == 3

        assert wait_for(three_done, 60), "train, eval and export never finished"
        time.sleep(0.3)  # the infer case starts within milliseconds, then sleeps for a minute
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, out.decode()
    records = [json.loads(r) for r in (results / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["passed"] * 3 + ["failed"]
    assert records[3]["reason"].startswith("interrupted")
    assert len((results / "results_python.log").read_text().splitlines()) == 3
    assert json.loads((results / "run.json").read_text())["duration"] > 0


def test_a_sigkilled_harness_leaves_no_stage_running_and_the_next_run_says_so(fake_repo, tmp_path, capsys):

    pids = tmp_path / "pids"
    env = {**os.environ, "TIPC_FAKE": "train:grandchild,train:ignore-term,train:hang", "TIPC_FAKE_PIDS": str(pids)}
    harness = harness_process(fake_repo, env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (pids.is_file() and len(pids.read_text().split()) == 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    stage_pids = [int(p) for p in pids.read_text().split()]
    harness.send_signal(signal.SIGKILL)  # no handler, no cleanup: only the watchdog is left to act
    harness.wait()

    deadline = time.monotonic() + 15
    while any(alive(p) for p in stage_pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(p) for p in stage_pids)  # the setsid'd grandchild that ignores SIGTERM too

    out_dir = fake_repo / "test_tipc/output/fake_rec/lite_train_lite_infer"
    killed_run = json.loads((out_dir / "run.json").read_text())["run_id"]
    assert tipc_run(fake_repo) == 0
    err = capsys.readouterr().err
    assert (
        f"tipc: an earlier run ({killed_run}) in {out_dir} was interrupted (its harness was killed) while "
        f"running norm_train-gpus_-1-fp32::train;" in err
    )
    (interrupted,) = [
        json.loads(line) for line in (out_dir / "runs" / killed_run / "results.jsonl").read_text().splitlines()
    ]
    assert (interrupted["id"], interrupted["status"]) == ("norm_train-gpus_-1-fp32::train", "failed")
    assert interrupted["reason"] == "interrupted: the harness was killed while this stage ran"


QUANTIZER_STUB = """#!{python}
import os, sys
print("ran", sys.argv[1:])
for arg in sys.argv[1:]:
    if arg.startswith("Global.save_inference_dir="):
        if os.environ.get("STUB_FAIL"):
            sys.exit(3)
        out = arg.partition("=")[2]
        os.makedirs(out, exist_ok=True)
        open(os.path.join(out, "inference.pdiparams"), "w").close()
"""


@pytest.mark.parametrize(
    ("fail", "code", "statuses"),
    [("", 0, ["passed", "passed", "passed"]), ("1", 1, ["failed", "blocked", "blocked"])],
    ids=["quantized", "quantizer-failed"],
)
def test_a_ptq_config_runs_with_the_bashs_lines_and_a_report(tmp_path, capsys, monkeypatch, fail, code, statuses):
    """The quantization is an export stage; the sweep on the quantized model needs it to pass."""
    stub = tmp_path / "stub"
    stub.write_text(QUANTIZER_STUB.format(python=sys.executable))
    stub.chmod(0o755)
    config = tmp_path / "train_ptq_infer_python.txt"
    config.write_text(ptq_config_text(infer_use_gpu="--use_gpu:False"))
    monkeypatch.setenv("STUB_FAIL", fail)
    argv = ["run", "--config", str(config), "--mode", "whole_infer", "--python", str(stub), "--device", "cpu"]
    assert main([*argv, "--repo", str(tmp_path), "--report-dir", str(tmp_path / "reports")]) == code
    folder = tmp_path / "test_tipc/output/rec_KL/whole_infer"
    records = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    assert [(r["kind"], r["status"]) for r in records] == list(zip(["export", "infer", "infer"], statuses, strict=True))
    verdict = "successfully" if not fail else "failed"
    log = "./test_tipc/output/rec_KL/whole_infer/whole_infer_export_0.log"
    assert (folder / "results_python.log").read_text().splitlines()[0] == (
        f" Run {verdict} with command - rec_KL - {stub} deploy/slim/quantization/quant_kl.py "
        f"-c {YML} -o Global.pretrained_model=./inference/rec_infer/ "
        f"Global.save_inference_dir=./inference/rec_infer/_klquant > {log} 2>&1  - {log} "
    )
    assert (tmp_path / "reports/rec_KL/whole_infer/latest.html").is_file()
    capsys.readouterr()


def test_the_summary_says_which_criteria_were_checked(fake_repo, capsys, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "infer:empty")
    assert tipc_run(fake_repo, "--no-report") == 0
    err = capsys.readouterr().err
    assert "tipc: checked: exit codes only (no golden compared, no figure judged against earlier runs)" in err
    assert "every prediction empty" in err and "the model recognised or detected nothing" in err


def test_an_interpreter_without_paddle_is_said_at_the_start_not_found_at_the_end(fake_repo, tmp_path, capsys):
    # the fake target needs only the standard library; `-S` leaves site-packages (and paddle) out
    python = tmp_path / "python-without-paddle"
    python.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    python.chmod(0o755)
    argv = ["run", "--config", str(fake_repo / CPU_CONFIG), "--mode", "lite_train_lite_infer"]
    assert main([*argv, "--python", str(python), "--no-report"]) == 0
    out = capsys.readouterr().out
    warning = f"tipc: warning: {python} has no paddle to import: every stage that imports paddle will fail"
    assert warning in out
    assert out.index(warning) < out.index("Run successfully")  # before the first stage's line
    assert main([*argv, "--python", sys.executable, "--no-report"]) == 0
    assert "has no paddle" not in capsys.readouterr().out


def test_a_refused_run_leaves_the_running_runs_folder_as_it_was(fake_repo, capsys):
    """The run that holds the folder goes on: its ``run.json`` must still say it is running (and whose
    it is), so that the next run finds it interrupted should its harness die."""
    out_dir = fake_repo / "test_tipc/output/fake_rec/lite_train_lite_infer"
    holder = ResultsDir(out_dir)
    holder.begin(RunInfo(model="fake_rec", mode="lite_train_lite_infer", config="a.txt", run_id="holder-run"))
    holder.append_record(StageRecord(id="c::train", kind="train", chain="c", status=Status.PASSED, run_id="holder-run"))
    before = {p.name: p.read_bytes() for p in out_dir.iterdir() if p.is_file()}
    try:
        assert tipc_run(fake_repo) == 2
        assert "is in use by run holder-run" in capsys.readouterr().err
        assert {p.name: p.read_bytes() for p in out_dir.iterdir() if p.is_file()} == before
        assert not (out_dir / "runs").exists()
    finally:
        holder.end(RunInfo(model="fake_rec", mode="lite_train_lite_infer", config="a.txt", run_id="holder-run"))
