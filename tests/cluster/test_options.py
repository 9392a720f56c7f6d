import argparse
import subprocess
import sys

import pytest

from tipc.cluster.node import ClusterArgs
from tipc.cluster.options import add_options, cluster_args
from tipc.errors import ClusterError


def parse(argv, port_count=1):
    parser = argparse.ArgumentParser()
    add_options(parser.add_argument)
    ns = parser.parse_args(argv)
    return cluster_args(lambda dest: getattr(ns, dest), port_count)


@pytest.mark.parametrize(
    "argv, expected",
    [
        ([], ClusterArgs()),
        (
            [
                "--ips",
                "127.0.0.2,127.0.0.3",
                "--host",
                "127.0.0.2",
                "--start-port",
                "17000",
                "--device",
                "cpu",
                "--rendezvous-timeout",
                "5",
                "--no-preflight",
            ],
            ClusterArgs(
                ips=("127.0.0.2", "127.0.0.3"),
                host="127.0.0.2",
                start_port=17000,
                device="cpu",
                rendezvous_timeout=5.0,
                preflight=False,
            ),
        ),
        (
            ["--node-rank", "1", "--rendezvous-port", "16999", "--preflight"],
            ClusterArgs(node_rank=1, rendezvous_port=16999, preflight=True),
        ),
        (["--node-timeout", "7.5"], ClusterArgs(node_timeout=7.5)),
    ],
    ids=["defaults", "full", "rank-and-rendezvous-port", "node-timeout"],
)
def test_argparse_round_trip(argv, expected):
    assert parse(argv) == expected


def test_the_node_timeout_comes_from_the_environment_too(tmp_path):
    from tipc.session.settings import resolve_layers

    parser = argparse.ArgumentParser()
    add_options(parser.add_argument)
    parser.add_argument("--repo", dest="tipc_repo", default=None)
    ns = parser.parse_args([])
    get, _ = resolve_layers(lambda dest: getattr(ns, dest), tmp_path, environ={"TIPC_NODE_TIMEOUT": "12.5"})
    assert cluster_args(get).node_timeout == 12.5
    get, _ = resolve_layers(lambda dest: getattr(ns, dest), tmp_path, environ={"TIPC_NODE_TIMEOUT": "soon"})
    with pytest.raises(ClusterError, match="--node-timeout 'soon': expected a number of seconds"):
        cluster_args(get)


def test_port_count_passes_through():
    assert parse([], port_count=4).port_count == 4


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--ips", "127.0.0.2,"], "--ips='127.0.0.2,'"),
        (["--rendezvous-timeout", "0"], "--rendezvous-timeout 0"),
        (["--node-rank", "-1"], "--node-rank -1"),
        (["--node-timeout", "0"], "--node-timeout 0: expected a positive number of seconds"),
    ],
    ids=["empty-ip", "zero-timeout", "negative-rank", "zero-node-timeout"],
)
def test_bad_values(argv, fragment):
    with pytest.raises(ClusterError) as err:
        parse(argv)
    assert fragment in str(err.value)


def test_pytest_accepts_the_same_options(tmp_path):
    (tmp_path / "conftest.py").write_text(
        "from tipc.cluster.options import add_options, cluster_args\n"
        "def pytest_addoption(parser):\n"
        "    add_options(parser.getgroup('tipc-cluster').addoption)\n"
        "def pytest_configure(config):\n"
        "    print('ARGS', cluster_args(config.getoption))\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:tipc",
            "-p",
            "no:cacheprovider",
            "-s",
            "--co",
            "--ips",
            "127.0.0.2,127.0.0.3",
            "--node-rank",
            "1",
            "--no-preflight",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        "ARGS ClusterArgs(ips=('127.0.0.2', '127.0.0.3'), host=None, node_rank=1, "
        "start_port=None, device='auto', rendezvous_port=None, rendezvous_timeout=60.0, node_timeout=60.0, "
        "preflight=False, port_count=1)"
    ) in done.stdout, done.stdout + done.stderr
