"""The watch over a multi-node stage's nodes (tipc.cluster.watch): two nodes on 127.0.0.2 and 127.0.0.3."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.support.processes import wait_for
from tipc.cluster.watch import NodeWatch

IPS = ("127.0.0.2", "127.0.0.3")


@pytest.fixture
def port() -> int:
    with socket.socket() as s:
        s.bind((IPS[0], 0))
        return s.getsockname()[1]


def test_two_nodes_that_answer_watch_in_silence_and_part_with_a_goodbye(port):
    with NodeWatch(IPS, 0, port, 3.0) as node0, NodeWatch(IPS, 1, port, 3.0) as node1:
        time.sleep(4)  # longer than the bound: the beats keep both answering
        assert (node0.silent(), node1.silent()) == ("", "")
    with NodeWatch(IPS, 0, port, 3.0) as node0:  # one stage's end is not a death: the next stage watches again
        with NodeWatch(IPS, 1, port, 3.0) as node1:
            time.sleep(1.5)
        time.sleep(4)  # node 1 said goodbye: its silence after is no loss
        assert (node0.silent(), node1.silent()) == ("", "")


def test_a_node_that_dies_is_named_at_once_by_node_0(port):
    watch = f"from tipc.cluster.watch import NodeWatch; NodeWatch({IPS!r}, 1, {port}, 30.0).__enter__(); input()"
    with NodeWatch(IPS, 0, port, 30.0) as node0:
        with subprocess.Popen([sys.executable, "-c", watch], stdin=subprocess.PIPE) as node1:
            time.sleep(3)  # it joined and beats
            assert node0.silent() == ""
            node1.send_signal(signal.SIGKILL)  # its tipc killed: the connection closes with no goodbye
            started = time.monotonic()
            assert wait_for(lambda: node0.silent() != "", 10)
            assert time.monotonic() - started < 3  # a closed connection is heard at once, not after the bound
    assert re.fullmatch(r"node 1 \(127\.0\.0\.3\) went silent at \d\d:\d\d:\d\d: its connection closed without a "
                        r"goodbye \(its tipc or its machine stopped\)", node0.silent())  # fmt: skip


def test_node_0_that_stops_answering_is_named_by_the_others_within_the_bound(port):
    server = socket.create_server((IPS[0], port))  # node 0's machine: it accepts, then never says a word
    try:
        started = time.monotonic()
        with NodeWatch(IPS, 1, port, 2.0) as node1:
            assert wait_for(lambda: node1.silent() != "", 10)
        took = time.monotonic() - started
    finally:
        server.close()
    assert 2.0 <= took < 5.0
    assert node1.silent().startswith("node 0 (127.0.0.2) went silent at ")
    assert node1.silent().endswith("for 2 s (--node-timeout)")


def test_a_node_that_never_joins_is_silent_after_the_bound(port):
    with NodeWatch(IPS, 0, port, 1.5) as node0:
        assert wait_for(lambda: node0.silent() != "", 6)
    assert node0.silent().endswith("it never joined the watch for 1.5 s (--node-timeout)")


def test_a_port_already_taken_leaves_the_stage_unwatched_not_failed(port):
    with socket.create_server((IPS[0], port)), NodeWatch(IPS, 0, port, 1.0) as node0:
        time.sleep(1.5)
        assert node0.silent() == ""
