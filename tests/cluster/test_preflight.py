import subprocess
import sys
import time

import pytest

from tipc.cluster.node import NodeContext
from tipc.doctor.checks import State
from tipc.doctor.preflight import PREFLIGHT, run_preflight
from tipc.version import VERSION

NODE = """
import sys
from tipc.cluster.node import ClusterArgs, resolve_node
from tipc.doctor.preflight import run_preflight
host, port, paddle, timeout = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
ctx = resolve_node(ClusterArgs(ips=("127.0.0.2", "127.0.0.3"), host=host, start_port=port,
                               rendezvous_timeout=timeout, device="cpu"), {})
report = run_preflight(ctx, config_sha256="abc", paddle_version=paddle, mode="lite_train_lite_infer")
sys.exit(0 if report.ok else 1)
"""


def start_node(host, port, paddle="3.3.1", timeout=10.0):
    return subprocess.Popen(
        [sys.executable, "-c", NODE, host, str(port), paddle, str(timeout)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc):
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    return proc.returncode, out + err


def test_two_nodes_pass(free_port):
    start = free_port(2) + 1
    n1 = start_node("127.0.0.3", start)  # the peer first: it retries until node 0 listens
    n0 = start_node("127.0.0.2", start)
    (rc0, out0), (rc1, out1) = finish(n0), finish(n1)
    met = f"PASS peers: all 2 nodes met at 127.0.0.2:{start - 1} with tipc {VERSION}, paddle 3.3.1"
    assert (rc0, rc1) == (0, 0), out0 + out1
    assert met in out0 and met in out1
    assert f"PASS ports: {start}-{start} and rendezvous {start - 1} free on 127.0.0.2 (--start-port)" in out0
    assert "PASS node list: 127.0.0.3 is node 1 of 127.0.0.2,127.0.0.3 (list from --ips, identity from --host)" in out1


def test_version_mismatch_stops_both(free_port):
    start = free_port(2) + 1
    n0, n1 = start_node("127.0.0.2", start), start_node("127.0.0.3", start, paddle="3.2.0")
    (rc0, out0), (rc1, out1) = finish(n0), finish(n1)
    problem = (
        "FAIL peers: node 1 (127.0.0.3) has paddle_version '3.2.0', node 0 (127.0.0.2) "
        "has '3.3.1'\n     fix: run the same tipc checkout, config and paddle on every node"
    )
    assert (rc0, rc1) == (1, 1)
    assert problem in out0 and problem in out1


def test_missing_peer_named_within_timeout(free_port):
    start = free_port(2) + 1
    began = time.monotonic()
    rc, out = finish(start_node("127.0.0.2", start, timeout=1.0))
    assert rc == 1
    assert time.monotonic() - began < 30
    assert "FAIL peers: node 1 (127.0.0.3) never arrived within 1 s" in out
    assert "raise --rendezvous-timeout" in out


def test_taken_port_fails_both_nodes_fast(free_port, listener):
    start = free_port(2) + 1
    listener("127.0.0.3", start)
    n0, n1 = start_node("127.0.0.2", start, timeout=20), start_node("127.0.0.3", start, timeout=20)
    began = time.monotonic()
    (rc0, out0), (rc1, out1) = finish(n0), finish(n1)
    assert time.monotonic() - began < 15  # the peer still joins, so nobody waits for the timeout
    assert (rc0, rc1) == (1, 1)
    assert f"FAIL ports: port 127.0.0.3:{start} is taken by pid" in out1
    assert f"FAIL peers: node 1 (127.0.0.3): port 127.0.0.3:{start} is taken by pid" in out0


def ctx(**changes):
    base = dict(ips=(), host=None, node_rank=None, start_port=None, device="cpu", device_reason="--device cpu")
    base.update(changes)
    return NodeContext(**base)


@pytest.mark.parametrize(
    "context, which, outcomes",
    [
        (ctx(), None, [("device", State.PASS)]),
        (ctx(device="gpu", device_reason="--device gpu"), None, [("device", State.WARN)]),
        (ctx(device="gpu", device_reason="--device gpu"), "/bin/nvidia-smi", [("device", State.PASS)]),
    ],
    ids=["cpu", "gpu-without-cuda-warns", "gpu-with-cuda"],
)
def test_single_node_checks(context, which, outcomes):
    lines = []
    report = run_preflight(
        context, config_sha256="", paddle_version="", emit=lines.append, environ={}, which=lambda n: which
    )
    assert [(c.name, c.state) for c in report.checks] == outcomes
    assert report.ok
    assert lines == [c.line(PREFLIGHT) for c in report.checks]


def test_single_node_taken_start_port_fails(free_port, listener):
    start = free_port(2)
    listener("", start + 1)
    report = run_preflight(
        ctx(start_port=start, port_count=2, port_source="FLAGS_START_PORT"),
        config_sha256="",
        paddle_version="",
        emit=lambda _: None,
        environ={},
    )
    assert not report.ok
    assert report.failures()[0].detail.startswith(f"port *:{start + 1} is taken by pid")
    assert "--start-port / FLAGS_START_PORT" in report.summary()
