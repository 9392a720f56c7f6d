"""``pytest tipc --config … --mode …`` end to end on the fake target (pytester)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

CHAIN = "norm_train-gpus_-1-fp32"
STAGES = (
    "train",
    "eval",
    "export",
    "infer[cpu-mkldnn_False-threads_1-fp32-bs1]",
    "infer[cpu-mkldnn_False-threads_1-fp32-bs2]",
)
CONFIG_ID = "fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
IDS = [f"{CONFIG_ID}::{CHAIN}::{s}" for s in STAGES]
AMP = "train_linux_cpu_normal_amp_infer_python_linux_cpu.txt"


def gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except FileNotFoundError:
        return True


def test_collect_only_lists_one_item_per_stage(tipc_run):
    result = tipc_run.run("--collect-only", "-q")
    assert result.ret == 0
    assert result.outlines[:5] == IDS
    assert not tipc_run.out().exists()


def test_node_ids_of_a_shipped_config_read_as_the_issue_spells_them(tipc_run):
    """A name under tipc's own test_configs/, from a directory that has no such config."""
    args = [
        tipc_run.tipc_dir,
        "-c",
        str(tipc_run.pytester.path / "tox.ini"),
        "--config",
        "PP-OCRv3_mobile_rec/train_infer_python.txt",
        "--mode",
        "lite_train_lite_infer",
        "--collect-only",
        "-q",
    ]
    result = tipc_run.pytester.runpytest(*args)
    assert result.ret == 0
    assert (
        "PP-OCRv3_mobile_rec/train_infer_python.txt::norm_train-gpus_0-fp32::infer[cpu-mkldnn_False-threads_6-fp32-bs1]"
        in result.outlines
    )


def test_several_configs_are_collected_in_the_order_given(tipc_run):
    result = tipc_run.run("--config", f"fake_rec/{AMP}", "--collect-only", "-q")
    assert result.ret == 0
    assert result.outlines[:5] == IDS
    amp = [line for line in result.outlines[5:] if "::" in line]
    assert len(amp) == 10 and all(line.startswith(f"fake_rec/{AMP}::") for line in amp)


def test_bare_tipc_argument_names_the_package_from_any_directory(tipc_run):
    """In a target checkout there is no ``tipc`` directory: the argument still means tipc."""
    args = ["tipc", *tipc_run.args("--collect-only", "-q")[1:]]
    assert not (tipc_run.pytester.path / "tipc").exists()
    result = tipc_run.pytester.runpytest(*args)
    assert result.ret == 0 and result.outlines[:5] == IDS


def test_inert_without_config(tipc_run):
    result = tipc_run.pytester.runpytest(tipc_run.tipc_dir, "-c", str(tipc_run.pytester.path / "tox.ini"))
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_dry_run_prints_commands_and_runs_nothing(tipc_run):
    result = tipc_run.run("--tipc-dry-run", "-rs")
    result.assert_outcomes(skipped=5)  # not "5 passed": nothing ran
    assert result.ret == 5 and result.ret != pytest.ExitCode.OK  # a CI reader cannot take it for green
    result.stdout.fnmatch_lines(["tipc: dry run: *nothing ran*exit status 5*", "SKIPPED ?5? *: dry run: not run"])
    result.stdout.fnmatch_lines([f"*{IDS[0]}", "    env -u CUDA_VISIBLE_DEVICES *tools/train.py -c *"])
    assert not tipc_run.out().exists()


def test_pass_writes_results_summary_and_report(tipc_run):
    result = tipc_run.run()
    result.assert_outcomes(passed=5)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["tipc: 5 passed in */test_tipc/output/fake_rec/lite_train_lite_infer/ (*", "tipc: report: */index.html"]
    )
    records = tipc_run.records()
    assert [r["id"] for r in records] == [f"{CHAIN}::{s}" for s in STAGES]
    assert {r["status"] for r in records} == {"passed"}
    assert records[0]["metrics"]["steps"] == 2 and records[3]["metrics"]["batch_size"] == 1
    info = json.loads((tipc_run.out() / "run.json").read_text())
    assert info["duration"] > 0 and info["overrides"]["--mode"] == "lite_train_lite_infer"


def test_results_python_log_is_byte_exact(tipc_run):
    from tipc.dialects.paddleocr.config import load_config
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions

    tipc_run.run().assert_outcomes(passed=5)
    config = load_config(str(tipc_run.pytester.path / "test_configs" / CONFIG_ID))
    plan = build_plan(config, PlanOptions(mode="lite_train_lite_infer", repo=str(tipc_run.repo), python=sys.executable))
    expected = b"".join(
        f" Run successfully with command - fake_rec - {s.legacy_command} - {s.legacy_log} \n".encode()
        for s in plan.stages()
    )
    assert (tipc_run.out() / "results_python.log").read_bytes() == expected
    assert b"./test_tipc/output/fake_rec/lite_train_lite_infer/norm_train_gpus_-1_autocast_fp32.log \n" in expected


def test_failed_train_is_one_failure_and_blocks_the_rest(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    result = tipc_run.run("-rs")
    result.assert_outcomes(failed=1, skipped=4)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            f"{CHAIN}::train: FAILED (exit code 1) after * s",
            "command: * tools/train.py -c *",
            "exit code: 1",
            "log: */norm_train_gpus_-1_autocast_fp32_nodes_1_train.log",
            "--- last 20 lines of the log ---",
            "*RuntimeError: fake failure (TIPC_FAKE)",
            "*SKIPPED*blocked: train failed (see */norm_train_gpus_-1_autocast_fp32_nodes_1_train.log)",
        ]
    )
    assert "Traceback (most recent call last):\n  File" not in result.stdout.str()  # no harness traceback
    assert [r["status"] for r in tipc_run.records()] == ["failed"] + ["blocked"] * 4


def test_a_broken_report_is_a_warning_and_the_exit_status_stays_the_stages(tipc_run, monkeypatch):
    # A report place that cannot be a directory breaks the report for real (pytester's in-process
    # runs re-import tipc's modules, so a monkeypatched writer would not be the one they call).
    (tipc_run.pytester.path / "taken").write_text("a file, not a directory")
    monkeypatch.setenv("TIPC_FAKE", "train:fail")
    result = tipc_run.run("--tipc-report-dir", "taken")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["tipc: report not written (*Error: *); the results are complete: *"])


def test_failed_export_blocks_infer_only(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "export:fail")
    result = tipc_run.run("-rs")
    result.assert_outcomes(passed=2, failed=1, skipped=2)
    result.stdout.fnmatch_lines(["SKIPPED [[]2[]] *blocked: export failed (see *_nodes_1_export.log)"])


def test_timeout_kills_the_tree_and_records_timeout(tipc_run, monkeypatch):
    pids = tipc_run.pytester.path / "pids"
    monkeypatch.setenv("TIPC_FAKE", "train:ignore-term,train:grandchild,train:hang")
    monkeypatch.setenv("TIPC_FAKE_PIDS", str(pids))
    monkeypatch.setattr("tipc.proc.child.GRACE", 0.3)  # the SIGKILL after SIGTERM, without 3 s of waiting
    t0 = time.monotonic()
    result = tipc_run.run("--tipc-timeout", "train=1.5")
    result.assert_outcomes(failed=1, skipped=4)
    assert time.monotonic() - t0 < 15
    record = tipc_run.records()[0]
    assert record["status"] == "timeout" and record["reason"].startswith("timed out after 1.5 s")
    spawned = [int(p) for p in pids.read_text().split()]
    assert len(spawned) == 2 and all(gone(p) for p in spawned)


@pytest.mark.parametrize("method", ["signal", "thread"])
def test_pytest_timeouts_timeout_ends_the_stages_tree_and_is_recorded_as_its(tipc_run, monkeypatch, method):
    """pytest-timeout's own ways (a signal raising in pytest, a thread ending pytest) would leave
    the stage's processes running and its record unwritten: tipc takes its timer for stages."""
    pytest.importorskip("pytest_timeout", reason="pytest-timeout is not installed")
    pids = tipc_run.pytester.path / "pids"
    monkeypatch.setenv("TIPC_FAKE", "train:ignore-term,train:grandchild,train:hang")
    monkeypatch.setenv("TIPC_FAKE_PIDS", str(pids))
    monkeypatch.setattr("tipc.proc.child.GRACE", 0.3)
    result = tipc_run.run("--timeout", "1.5", "--timeout-method", method)
    result.assert_outcomes(failed=1, skipped=4)
    record = tipc_run.records()[0]
    assert record["status"] == "timeout" and record["reason"].startswith("timed out after 1.5 s")
    assert f"the limit was pytest-timeout's timeout ({method} method)" in record["reason"]
    spawned = [int(p) for p in pids.read_text().split()]
    assert len(spawned) == 2 and all(gone(p) for p in spawned)


def test_hang_detection(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "export:hang")
    result = tipc_run.run("--tipc-hang-timeout", "0.5")
    result.assert_outcomes(passed=2, failed=1, skipped=2)
    result.stdout.fnmatch_lines([f"{CHAIN}::export: HUNG (hung: no new output for 0.5 s: process group killed)*"])
    assert [r["status"] for r in tipc_run.records()][2:] == ["hung", "blocked", "blocked"]


def test_k_runs_one_infer_case_against_existing_artifacts(tipc_run):
    tipc_run.run().assert_outcomes(passed=5)
    first = {r["run_id"] for r in tipc_run.records()}
    result = tipc_run.run("-k", "bs2")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tipc: 1 passed in *"])  # this run's stages only
    records = tipc_run.records()
    (this_run,) = [r for r in records if r["run_id"] not in first]
    assert this_run["id"] == f"{CHAIN}::{STAGES[4]}"
    # the stages not selected keep their record of the earlier run, marked by that run's id
    assert sorted(r["id"] for r in records if r["run_id"] in first) == sorted(f"{CHAIN}::{s}" for s in STAGES[:4])


def test_k_without_artifacts_says_how_to_include_the_chain(tipc_run):
    result = tipc_run.run("-k", "bs2", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [f'*blocked: export is not in this run and its outputs are missing (*); include its chain: -k "{CHAIN}"']
    )


def test_a_stage_blocked_with_no_failure_upstream_fails_the_run(tipc_run):
    """A selected stage that did not run for anything but a failure: the run did not do what was asked."""
    result = tipc_run.run("-k", "bs2")
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


SHUFFLER = (  # what pytest-randomly, pytest-order or one's own plugin may do to the items
    "import pytest\n@pytest.hookimpl(trylast=True)\ndef pytest_collection_modifyitems(items):\n    items.reverse()\n"
)


@pytest.mark.parametrize("where", ["plugin", "wrapper"])
def test_another_plugins_order_leaves_every_chain_in_plan_order(tipc_run, where):
    source = SHUFFLER
    if where == "wrapper":
        source = source.replace("trylast=True", "wrapper=True, tryfirst=True").replace(
            "    items.reverse()", "    yield\n    items.reverse()"
        )
    tipc_run.pytester.makepyfile(shuffler=source)
    tipc_run.pytester.syspathinsert()
    result = tipc_run.run("-p", "shuffler", "--config", f"fake_rec/{AMP}", "-v")
    result.assert_outcomes(passed=15)
    assert result.ret == 0
    ran = [line.split(" ")[0] for line in result.outlines if " PASSED" in line]
    amp, cpu = ran[:10], ran[10:]  # the chains in the order the plugin chose: the last config first
    assert cpu == IDS
    assert all(i.startswith(f"fake_rec/{AMP}::") for i in amp)
    for chain in {i.split("::")[1] for i in amp}:
        stages = [i.rpartition("::")[2] for i in amp if i.split("::")[1] == chain]
        assert stages[:3] == ["train", "eval", "export"]
    result.stdout.fnmatch_lines(
        ["*tipc: another plugin reordered the items (one of: *shuffler*); each chain's stages run in the plan's order"]
    )


def test_markers_select_stage_kinds(tipc_run):
    result = tipc_run.run("-m", "export or eval", "--collect-only", "-q")
    assert result.outlines[:2] == [IDS[1], IDS[2]]


def test_lf_reruns_the_failed_export_against_the_trained_model(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "export:fail")
    tipc_run.run().assert_outcomes(passed=2, failed=1, skipped=2)
    monkeypatch.delenv("TIPC_FAKE")
    result = tipc_run.run("--lf")
    # the failed export and the two infer cases it blocked: a blocked stage never ran, so --lf runs it
    result.assert_outcomes(passed=3)
    run_id = json.loads((tipc_run.out() / "run.json").read_text())["run_id"]
    assert [r["id"] for r in tipc_run.records() if r["run_id"] == run_id] == [
        f"{CHAIN}::export",
        *(f"{CHAIN}::{s}" for s in STAGES[3:]),
    ]
    assert {r["id"]: r["status"] for r in tipc_run.records()} == {f"{CHAIN}::{s}": "passed" for s in STAGES}


@pytest.mark.parametrize("flag", ["--tipc-live", "-s"])
def test_live_streams_stage_output_and_status_lines(tipc_run, flag):
    result = tipc_run.run(flag)
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(
        [
            "*ppocr INFO: epoch: [[]1/1[]], global_step: 1,*",
            " Run successfully with command - fake_rec - * tools/train.py *",
            "*Predicts of ./inference/rec_inference/word_0.png*",
        ]
    )


def test_junitxml_carries_stage_properties(tipc_run):
    xml = tipc_run.pytester.path / "junit.xml"
    tipc_run.run(f"--junitxml={xml}").assert_outcomes(passed=5)
    case = ET.parse(xml).getroot().find(".//testcase")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["stage"] == f"{CHAIN}::train" and props["status"] == "passed"
    assert "tools/train.py" in props["argv"]
    assert props["log"].endswith("_nodes_1_train.log") and float(props["duration"]) > 0


def test_xdist_loadscope_keeps_each_chain_on_one_worker(tipc_run):
    pytest.importorskip("xdist")
    result = tipc_run.run("-n", "2", "--dist", "loadscope", "-v", config=AMP)
    result.assert_outcomes(passed=10)
    workers: dict[str, set[str]] = {}
    for line in result.outlines:
        match = re.match(r"\[(gw\d)\] .*PASSED .*::(\S+-(?:fp32|amp))::", line)
        if match:
            workers.setdefault(match[2], set()).add(match[1])
    assert len(workers) == 2 and all(len(w) == 1 for w in workers.values()), workers
    assert len(tipc_run.records("fake_rec_amp")) == 10


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-n", "2"), "*--dist load could split a train*use -n N --dist loadscope*"),
        (
            ("--tipc-timeout", "training=3"),
            "*--tipc-timeout*expected KIND=SECONDS with KIND one of train, eval, export, infer*",
        ),
        (("--tipc-hang-timeout", "soon"), "*expected a number of seconds, got 'soon'*"),
    ],
    ids=["xdist-load", "timeout-kind", "hang-timeout-value"],
)
def test_bad_options_are_usage_errors(tipc_run, args, message):
    if args[0] == "-n":
        pytest.importorskip("xdist")
    result = tipc_run.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--mode", "fast"),
            "*fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt: unknown mode 'fast': expected one of lite_train_lite_infer*",
        ),
        (("--config", "fake_rec/nope.txt"), "*--config fake_rec/nope.txt: config not found: tried *"),
    ],
    ids=["unknown-mode", "missing-config"],
)
def test_bad_config_or_mode_are_usage_errors(tipc_run, args, message):
    base = [tipc_run.tipc_dir, "-c", str(tipc_run.pytester.path / "tox.ini"), "--tipc-python", sys.executable]
    defaults = {"--config": f"{CONFIG_ID}", "--mode": "lite_train_lite_infer"}
    defaults.update(dict(zip(args[::2], args[1::2], strict=False)))
    result = tipc_run.pytester.runpytest(*base, *[x for kv in defaults.items() for x in kv])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_interrupt_stops_the_stage_and_keeps_results(tipc_run, signum):
    """SIGINT (Ctrl-C) or SIGTERM to a real ``pytest tipc`` process while an infer stage runs."""
    pids = tipc_run.pytester.path / "pids"
    env = {**os.environ, "TIPC_FAKE": "infer:grandchild,infer:sleep=60", "TIPC_FAKE_PIDS": str(pids)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", *tipc_run.args()],
        cwd=tipc_run.pytester.path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pids.exists(), "the infer stage never started"
        proc.send_signal(signum)
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out.decode()
    statuses = [(r["id"].rpartition("::")[2], r["status"]) for r in tipc_run.records()]
    assert statuses == [("train", "passed"), ("eval", "passed"), ("export", "passed"), (STAGES[3], "failed")]
    assert tipc_run.records()[3]["reason"].startswith("interrupted")
    assert json.loads((tipc_run.out() / "run.json").read_text())["duration"] > 0
    legacy = (tipc_run.out() / "results_python.log").read_text().splitlines()
    assert len(legacy) == 3  # the interrupted stage gets no legacy line
    assert all(gone(int(p)) for p in pids.read_text().split())
    assert b"KeyboardInterrupt" in out


def lone_node0_args(rendezvous_timeout: str = "1") -> tuple[str, ...]:
    """Node 0 of a 2-node job whose node 1 never comes."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.2", 0))
        port = s.getsockname()[1] + 1
    return (
        "--tipc-ips",
        "127.0.0.2,127.0.0.3",
        "--tipc-host",
        "127.0.0.2",
        "--tipc-start-port",
        str(port),
        "--tipc-rendezvous-timeout",
        rendezvous_timeout,
    )


def test_failed_preflight_ends_the_run_before_any_stage(tipc_run):
    result = tipc_run.run(*lone_node0_args())
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "tipc preflight: PASS node list: 127.0.0.2 is node 0 of 127.0.0.2,127.0.0.3*",
            "tipc preflight: FAIL peers: node 1 (127.0.0.3) never arrived within 1 s",
            "     fix: start the same command on every node*",
        ]
    )
    result.stdout.fnmatch_lines(  # pytest's line for an exit once its items were collected
        [
            "*tipc preflight failed; nothing was run:",
            "tipc preflight: FAIL peers: node 1 (127.0.0.3) never arrived within 1 s",
        ]
    )
    node0 = tipc_run.out() / "node0"
    records = [json.loads(line) for line in (node0 / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["blocked"] * 5
    assert "never arrived" in records[0]["reason"]
    assert (node0 / "results_python.log").read_text() == ""
    assert not list(node0.glob("*_train.log")), "no stage ran"
    notes = json.loads((node0 / "run.json").read_text())["notes"]
    assert any(n.startswith("tipc preflight: FAIL peers") for n in notes)


def test_multi_node_refuses_xdist(tipc_run):
    pytest.importorskip("xdist")
    result = tipc_run.run("-n", "2", "--dist", "loadscope", *lone_node0_args())
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*a multi-node run cannot use pytest-xdist*drop -n*"])


def test_the_summary_says_which_criteria_were_checked_and_names_a_case_that_predicted_nothing(tipc_run, monkeypatch):
    monkeypatch.setenv("TIPC_FAKE", "infer:empty")
    result = tipc_run.run()
    result.assert_outcomes(passed=5)  # every stage exited 0: the summary says that is all it means
    result.stdout.fnmatch_lines(
        [
            "tipc: report: */index.html",
            "tipc: checked: exit codes only (no golden compared, no figure judged against earlier runs)",
            f"tipc: {CHAIN} · infer?cpu-*: every prediction empty (3 of 3): the model recognised or detected nothing",
        ]
    )


def _lines_of(path: Path, word: str) -> list[str]:
    return [line for line in path.read_text().splitlines() if word in line]


def test_reruns_of_a_failing_export_are_one_stage_with_its_attempts(tipc_run, monkeypatch):
    pytest.importorskip("pytest_rerunfailures", reason="pytest-rerunfailures is not installed")
    monkeypatch.setenv("TIPC_FAKE", "export:fail")
    result = tipc_run.run("--reruns", "2")
    assert result.parseoutcomes() == {"passed": 2, "failed": 1, "skipped": 2, "rerun": 2}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["tipc: 2 passed, 1 failed, 2 blocked in *"])
    records = tipc_run.records()
    assert [r["id"] for r in records] == [f"{CHAIN}::{s}" for s in STAGES]
    export = records[2]
    assert export["status"] == "failed" and [a["status"] for a in export["attempts"]] == ["failed"] * 3
    assert all(r["attempts"] == [] for r in records if r is not export)
    legacy = tipc_run.out() / "results_python.log"
    assert len(_lines_of(legacy, "export_model.py")) == 1 and len(_lines_of(legacy, "Run failed")) == 1


def test_a_stage_that_passes_when_run_again_passed_and_is_flaky(tipc_run, monkeypatch, tmp_path):
    pytest.importorskip("pytest_rerunfailures", reason="pytest-rerunfailures is not installed")
    monkeypatch.setenv("TIPC_FAKE", f"export:fail-once={tmp_path / 'failed-once'}")
    result = tipc_run.run("--reruns", "1")
    assert result.parseoutcomes() == {"passed": 5, "rerun": 1}
    assert result.ret == 0
    export = tipc_run.records()[2]
    assert export["status"] == "passed" and [a["status"] for a in export["attempts"]] == ["failed", "passed"]
    legacy = (tipc_run.out() / "results_python.log").read_text()
    assert "Run failed" not in legacy and legacy.count("Run successfully") == 5
    result.stdout.fnmatch_lines(["tipc: 5 passed (1 flaky) in *"])
    html = next((tipc_run.pytester.path / "reports").rglob("index.html")).read_text()
    assert "flaky: passed on attempt 2, after 1 that did not" in html
