"""PlanRun on the fake target: records, legacy lines, gating, train-log copy.

The loop's logic runs the fake target's scripts in this process (``ScriptExecutor``); what needs a
process (a time limit, a launcher, the stage's environment and its log's header) runs real ones."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from tests.support.script_executor import ScriptExecutor
from tipc.proc.executor import Executor, ProcessExecutor
from tipc.results.records import Status
from tipc.run.limits import resolve_limits
from tipc.run.plan_run import PlanRun, RunSettings

CHAIN = "norm_train-gpus_-1-fp32"
IDS = [
    f"{CHAIN}::{n}"
    for n in (
        "train",
        "eval",
        "export",
        "infer[cpu-mkldnn_False-threads_1-fp32-bs1]",
        "infer[cpu-mkldnn_False-threads_1-fp32-bs2]",
    )
]


def processes() -> ProcessExecutor:
    return ProcessExecutor(grace=0.2)


def run_all(plan, executor: Executor | None = None, **settings) -> tuple[PlanRun, list]:
    """Every stage in order, as the fronts run them (in this process unless ``executor`` says)."""
    session = PlanRun(plan, RunSettings(**settings), executor or ScriptExecutor())
    session.begin()
    stages = list(plan.stages())
    records = [session.run_stage(s) for s in stages]
    session.end()
    return session, records


def test_all_pass_and_everything_is_written(fake_plan):
    session, records = run_all(fake_plan)
    assert [(r.id, r.status) for r in records] == [(i, Status.PASSED) for i in IDS]
    out = session.results
    assert [r.id for r in out.records()] == IDS
    legacy = out.legacy_log.read_text().splitlines()
    assert len(legacy) == 5 and all(row.startswith(" Run successfully with command - fake_rec - ") for row in legacy)
    assert legacy[0].endswith("/norm_train_gpus_-1_autocast_fp32.log ")
    info = json.loads(out.run_info_file.read_text())
    assert info["model"] == "fake_rec" and info["duration"] > 0
    train = records[0]
    assert train.returncode == 0 and train.duration > 0 and Path(train.log).is_file()
    assert records[3].infer["batch_size"] == "1"


def test_train_log_copy_and_figures_are_this_runs_part_only(fake_plan):
    run_all(fake_plan)
    session, records = run_all(fake_plan)  # a rerun: ppocr's train.log keeps growing...
    save = session.cwd / fake_plan.chains[0].save_dir
    whole = (save / "train.log").read_text()
    copied = Path(f"{save}.log").read_text()
    assert whole.count("global_step: 1,") == 2
    # ...and S.log is this run's part of it, as are the figures
    assert copied.count("global_step: 1,") == 1 and whole.endswith(copied)
    assert records[0].metrics["steps"] == 2
    assert records[0].log_offsets == {str(save / "train.log"): len(whole.encode()) - len(copied.encode())}


def test_failed_train_blocks_its_dependents_once(fake_plan, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    session, records = run_all(fake_plan)
    assert [r.status for r in records] == [Status.FAILED] + [Status.BLOCKED] * 4
    assert records[0].reason == "exit code 1"
    assert all(r.reason == f"blocked: train failed (see {records[0].log})" for r in records[1:])
    legacy = session.results.legacy_log.read_text().splitlines()
    assert len(legacy) == 1 and legacy[0].startswith(" Run failed with command - fake_rec - ")
    assert [r.status for r in session.results.records()] == [r.status for r in records]


def test_failed_export_blocks_infer_not_eval_and_results_jsonl_tells_it_all(fake_plan, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "export:fail")
    session, records = run_all(fake_plan)
    assert [r.status for r in records] == [Status.PASSED, Status.PASSED, Status.FAILED, Status.BLOCKED, Status.BLOCKED]
    lines = [json.loads(line) for line in session.results.records_file.read_text().splitlines()]
    train, export, infer = lines[0], lines[2], lines[3]
    stage = fake_plan.stage(IDS[0])
    cwd = Path(fake_plan.cwd).resolve()
    assert {
        k: train[k]
        for k in ("id", "kind", "chain", "argv", "env", "cwd", "log", "returncode", "status", "reason", "node_rank")
    } == {
        "id": IDS[0],
        "kind": "train",
        "chain": CHAIN,
        "argv": list(stage.argv),
        "env": {"CUDA_VISIBLE_DEVICES": None},
        "cwd": os.path.relpath(cwd, session.results.path),  # the checkout holding the <mode> folder
        "log": os.path.relpath(cwd / stage.log, session.results.path),  # relative to the <mode> folder
        "returncode": 0,
        "status": "passed",
        "reason": "",
        "node_rank": 0,
    }
    assert train["start"] > 1e9 and 0 < train["duration"] < 60
    assert (export["status"], export["returncode"], export["reason"]) == ("failed", 1, "exit code 1")
    assert (infer["status"], infer["returncode"], infer["duration"]) == ("blocked", None, 0.0)
    assert infer["reason"] == f"blocked: export failed (see {session.results.path / export['log']})"
    assert export["log"].endswith("_nodes_1_export.log")


def test_one_infer_case_runs_against_existing_export(fake_plan):
    run_all(fake_plan)
    session = PlanRun(fake_plan, RunSettings(), ScriptExecutor())
    session.begin()
    record = session.run_stage(fake_plan.stage(IDS[4]))
    assert record.status is Status.PASSED
    assert [r.id for r in session.results.records()] == [IDS[4]]


def test_deselected_prerequisite_without_outputs_blocks_with_hint(fake_plan):
    session = PlanRun(fake_plan, RunSettings(), ScriptExecutor(), include_hint=lambda s: f"add -k {s.chain}")
    record = session.run_stage(fake_plan.stage(IDS[3]))
    assert record.status is Status.BLOCKED
    assert "blocked: export is not in this run and its outputs are missing" in record.reason
    assert record.reason.endswith(f"add -k {CHAIN}")


def test_timeout_is_recorded(fake_plan, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "train:hang")
    _, records = run_all(fake_plan, processes(), limits=resolve_limits("lite_train_lite_infer", ("train=0.5",)))
    assert records[0].status is Status.TIMEOUT
    assert records[0].reason.startswith("timed out after 0.5 s")
    assert records[2].reason.startswith("blocked: train timed out")


def test_dry_run_writes_nothing(fake_plan):
    session, records = run_all(fake_plan, dry_run=True)
    assert {(r.status, r.reason) for r in records} == {(Status.SKIPPED, "dry run: not run")}  # not passed
    assert not session.results.path.exists()


def test_dry_run_on_node_1_skips_rank0_stages(fake_plan):
    stages = tuple(replace(s, rank0_only=s.kind.value != "train") for s in fake_plan.chains[0].stages)
    plan = replace(fake_plan, chains=(replace(fake_plan.chains[0], stages=stages),))
    _, records = run_all(plan, dry_run=True, node_rank=1)
    assert [r.status for r in records] == [Status.SKIPPED] * 5
    assert records[0].reason == "dry run: not run"
    assert records[1].reason == "not applicable: trainer 0 owns the model"


def test_metrics_come_from_tipc_metrics_extract_file(fake_plan, monkeypatch):
    import tipc.suites.builtin  # tipc's own pytest_tipc_stage_figures

    seen = []

    def extract_file(kind, log, since, until):
        seen.append((kind, log.read_bytes()[since:until].decode()))
        return {"kind": kind}

    monkeypatch.setattr(tipc.suites.builtin, "extract_file", extract_file)
    _, records = run_all(fake_plan, processes())
    assert [r.metrics for r in records] == [{"kind": r.kind} for r in records]
    train_text = seen[0][1]
    assert "ips:" in train_text and not train_text.startswith("# tipc stage")  # rank 0's train.log
    assert seen[3][1].startswith("# tipc stage: ") and "Perf info" in seen[3][1]  # the infer stage's own log


FAKE_LAUNCH = """\
import os, sys, time
log_dir = next(a.split("=", 1)[1] for a in sys.argv if a.startswith("--log_dir="))
os.makedirs(log_dir, exist_ok=True)
for rank, text in ((0, "step 1\\n"), (1, "Traceback (most recent call last):\\nValueError: rank 1 broke\\n")):
    with open(os.path.join(log_dir, f"workerlog.{rank}"), "w") as f:
        f.write(text)
if os.environ.get("FAKE_LAUNCH") == "hang":
    time.sleep(60)
print("Container rank 1 status failed cmd [...] code 1")
sys.exit(1)
"""


def launch_plan(fake_plan, tmp_path, ips=("127.0.0.2", "127.0.0.3")):
    """The fake plan whose train is a stand-in ``python -m paddle.distributed.launch`` on two nodes."""
    package = tmp_path / "fakepaddle" / "paddle" / "distributed"
    package.mkdir(parents=True)
    for init in (package.parent / "__init__.py", package / "__init__.py"):
        init.write_text("")
    (package / "launch.py").write_text(FAKE_LAUNCH)
    chain = fake_plan.chains[0]
    train = chain.stages[0]
    argv = (train.argv[0], "-m", "paddle.distributed.launch", f"--log_dir={chain.save_dir}_launch_log", *train.argv[1:])
    train = replace(
        train,
        argv=argv,
        env={**train.env, "PYTHONPATH": str(tmp_path / "fakepaddle")},
        launch_log=f"{chain.save_dir}_launch_log",
    )
    chain = replace(chain, stages=(train, *chain.stages[1:]), topology=replace(chain.topology, ips=ips))
    return replace(fake_plan, chains=(chain,))


def test_failed_launch_names_the_failing_rank_and_shows_its_log(fake_plan, tmp_path):
    from tipc.run.summary import failure_text

    _session, records = run_all(launch_plan(fake_plan, tmp_path), processes())
    train = records[0]
    assert train.status is Status.FAILED
    worker = Path(train.cwd) / f"{fake_plan.chains[0].save_dir}_launch_log" / "workerlog.1"
    assert train.reason == f"exit code 1; failed rank(s) 1 (see {worker.resolve()})"
    text = failure_text(train)
    assert f"--- last 20 lines of rank 1's log: {worker.resolve()} ---" in text
    assert text.endswith("ValueError: rank 1 broke")


def test_timed_out_launch_names_the_peers_it_waited_for(fake_plan, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_LAUNCH", "hang")
    _, records = run_all(
        launch_plan(fake_plan, tmp_path, ips=("127.0.0.2", "127.0.0.3", "127.0.0.4")),
        processes(),
        node_rank=1,
        limits=resolve_limits("lite_train_lite_infer", ("train=1",)),
    )
    assert records[0].status is Status.TIMEOUT
    assert "waited for its peers node 0 (127.0.0.2), node 2 (127.0.0.4)" in records[0].reason


def test_block_all_records_every_stage_and_keeps_the_legacy_log(fake_plan):
    session = PlanRun(fake_plan, RunSettings(), ScriptExecutor())
    session.begin()
    session.block_all("blocked: tipc preflight failed")
    session.end()
    records = session.results.records()
    assert [(r.id, r.status, r.reason) for r in records] == [
        (i, Status.BLOCKED, "blocked: tipc preflight failed") for i in IDS
    ]
    assert session.results.legacy_log.read_text() == ""
    info = session.results.read_run_info()
    assert info.paddle_version and info.python_version  # asked from the stage interpreter


def test_autolog_shim_goes_first_on_the_stages_pythonpath(fake_plan, monkeypatch):
    from tipc.compat import shim_path

    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    probe = "import auto_log, os; print('AUTOLOG', auto_log.__file__, os.environ['PYTHONPATH'])"
    train = replace(fake_plan.chains[0].stages[0], argv=(sys.executable, "-c", probe), copy_train_log=None, outputs=())
    plan = replace(fake_plan, chains=(replace(fake_plan.chains[0], stages=(train,)),))
    _session, (record,) = run_all(plan, processes(), pythonpath=(shim_path(),))
    assert record.status is Status.PASSED
    line = next(row for row in Path(record.log).read_text().splitlines() if row.startswith("AUTOLOG"))
    _, module, pythonpath = line.split(" ")
    assert module.startswith(shim_path()) and pythonpath == f"{shim_path()}:/elsewhere"
