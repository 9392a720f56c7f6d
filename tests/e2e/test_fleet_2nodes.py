"""A real 2-node fleet job of the reference target on one machine.

Node 0 is ``127.0.0.2`` and node 1 ``127.0.0.3``, each a separate ``pytest tipc``
process with the same command but ``--tipc-host``. They train tinyrec for real through
``paddle.distributed.launch`` (CPU, lite data), so these are slow; the target is
the prepared copy of ``examples/tinyrec`` from conftest.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tipc
from tests.support.ports import launch_port

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parents[2]
TIPC_DIR = Path(tipc.__file__).resolve().parent
CONFIG = "tinyrec/train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt"
MODE = "lite_train_lite_infer"
IPS = ("127.0.0.2", "127.0.0.3")
NODE_TIMEOUT = 420  # seconds a node may take before the test gives up on it
RENDEZVOUS_TIMEOUT = 20  # both nodes start together; 20 s covers the later one's start-up on a busy machine
ALONE_TIMEOUT = 5  # node 1 never comes: the whole wait is idle, so it is short


@pytest.fixture
def start_port() -> int:
    return launch_port(IPS)


def node_argv(target: Path, out: Path, host: str, start_port: int, rendezvous_timeout: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        str(TIPC_DIR),
        "-c",
        str(out / "pytest.ini"),
        "-p",
        "no:cacheprovider",
        "--config",
        CONFIG,
        "--mode",
        MODE,
        "--tipc-device",
        "cpu",
        "--tipc-host",
        host,
        "--tipc-repo",
        str(target),
        "--tipc-python",
        sys.executable,
        "--tipc-output-root",
        str(out / "results"),
        "--tipc-start-port",
        str(start_port),
        "--tipc-rendezvous-timeout",
        str(rendezvous_timeout),
    ]


def start_nodes(
    target: Path, out: Path, hosts: tuple[str, ...], start_port: int, rendezvous_timeout: int = RENDEZVOUS_TIMEOUT
) -> list[subprocess.Popen]:
    (out / "pytest.ini").write_text("[pytest]\n")  # rootdir here: reports/ and caches stay in tmp
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PADDLE_", "FLAGS_", "PYTEST_"))}
    procs = []
    for host in hosts:
        log = open(out / f"{host}.console.log", "wb")
        procs.append(
            subprocess.Popen(
                node_argv(target, out, host, start_port, rendezvous_timeout),
                cwd=out,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        log.close()
    return procs


def wait_all(procs: list[subprocess.Popen]) -> list[int]:
    try:
        return [p.wait(timeout=NODE_TIMEOUT) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)
                p.wait()


def console(out: Path, host: str) -> str:
    return (out / f"{host}.console.log").read_text(errors="replace")


def records(node_dir: Path) -> dict[str, dict]:
    lines = (node_dir / "results.jsonl").read_text().splitlines()
    return {r["id"].split("::", 1)[1]: r for r in map(json.loads, lines)}


def leftovers(marker: str) -> list[str]:
    """Processes still alive whose command line mentions ``marker`` (this test's output dir)."""
    found = []
    for pid_dir in Path("/proc").iterdir():
        if not pid_dir.name.isdigit() or int(pid_dir.name) == os.getpid():
            continue
        try:
            cmdline = (pid_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            found.append(f"{pid_dir.name}: {cmdline[:200]}")
    return found


def mode_dir(out: Path) -> Path:
    return out / "results" / "tinyrec" / MODE


def test_two_nodes_train_then_node0_exports_and_infers_and_merge_joins_them(tinyrec, tmp_path, start_port):
    t0 = time.monotonic()
    codes = wait_all(start_nodes(tinyrec, tmp_path, IPS, start_port))
    wall = time.monotonic() - t0
    assert codes == [0, 0], console(tmp_path, IPS[0])[-4000:] + console(tmp_path, IPS[1])[-4000:]
    for host in IPS:
        assert "PASS peers: all 2 nodes met at 127.0.0.2" in console(tmp_path, host)
    # node 0 reports its own node without waiting for node 1; node 1 writes no report
    assert "tipc: report: " in console(tmp_path, IPS[0]) and "tipc: report: " not in console(tmp_path, IPS[1])

    node0, node1 = (records(mode_dir(tmp_path) / f"node{k}") for k in (0, 1))
    assert {name: r["status"] for name, r in node0.items()} == {
        "train": "passed",
        "eval": "passed",
        "export": "passed",
        "infer[cpu-mkldnn_False-threads_2-fp32-bs1]": "passed",
        "infer[cpu-mkldnn_False-threads_2-fp32-bs6]": "passed",
    }
    assert node1["train"]["status"] == "passed"
    for name in ("eval", "export", "infer[cpu-mkldnn_False-threads_2-fp32-bs1]"):
        assert (node1[name]["status"], node1[name]["reason"]) == ("skipped", "not applicable: trainer 0 owns the model")
    assert node0["train"]["metrics"]["steps"] > 0

    # every rank's worker log sits in its node's stage directory
    for k in (0, 1):
        launch = next((mode_dir(tmp_path) / f"node{k}").glob("*_launch_log"))
        assert (launch / "workerlog.0").is_file()
        info = json.loads((mode_dir(tmp_path) / f"node{k}" / "run.json").read_text())
        assert (info["node_rank"], info["host"], info["nodes"]) == (k, IPS[k], list(IPS))
        assert info["paddle_version"] and info["python_version"] == ".".join(map(str, sys.version_info[:3]))

    merged = subprocess.run(
        [sys.executable, "-m", "tipc", "merge", str(mode_dir(tmp_path))], capture_output=True, text=True, timeout=60
    )
    assert merged.returncode == 0, merged.stderr
    rows = [json.loads(line) for line in (mode_dir(tmp_path) / "results.jsonl").read_text().splitlines()]
    assert {(r["node_rank"], r["host"]) for r in rows} == {(0, IPS[0]), (1, IPS[1])}
    legacy = (mode_dir(tmp_path) / "results_python.log").read_text()
    assert "# node 0 (127.0.0.2)" in legacy and "# node 1 (127.0.0.3)" in legacy
    report = subprocess.run(
        [sys.executable, "-m", "tipc", "report", str(mode_dir(tmp_path)), "--out", str(tmp_path / "merged-report")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert report.returncode == 0, report.stderr
    assert "127.0.0.3" in next((tmp_path / "merged-report").rglob("index.html")).read_text()
    assert not leftovers(str(tmp_path))
    print(f"2-node fleet job: {wall:.1f} s wall")


def test_node1_never_started_node0_fails_within_the_rendezvous_timeout_naming_it(tinyrec, tmp_path, start_port):
    t0 = time.monotonic()
    codes = wait_all(start_nodes(tinyrec, tmp_path, IPS[:1], start_port, ALONE_TIMEOUT))
    wall = time.monotonic() - t0
    text = console(tmp_path, IPS[0])
    assert codes == [1], text[-4000:]
    assert f"node 1 (127.0.0.3) never arrived within {ALONE_TIMEOUT} s" in text
    assert "fix: start the same command on every node" in text
    assert ALONE_TIMEOUT < wall < ALONE_TIMEOUT + 40  # the timeout, plus interpreter start-up on a busy machine
    node0 = records(mode_dir(tmp_path) / "node0")
    assert {r["status"] for r in node0.values()} == {"blocked"}
    assert "never arrived" in node0["train"]["reason"]
    assert (mode_dir(tmp_path) / "node0" / "results_python.log").is_file()
    assert not list((mode_dir(tmp_path) / "node0").glob("*_launch_log")), "training must not have started"
    assert not leftovers(str(tmp_path))
    print(f"node 0 alone: failed after {wall:.1f} s wall")
