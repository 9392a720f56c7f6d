import json
import socket
import threading
import time

import pytest

from tipc.cluster.rendezvous import Hello, RendezvousAnswer, compare, rendezvous

IPS = ("127.0.0.2", "127.0.0.3")


def hello(rank, **changes):
    base = dict(
        rank=rank,
        host=IPS[rank],
        tipc_version="0.1.0",
        config_sha256="abc",
        paddle_version="3.3.1",
        mode="lite_train_lite_infer",
        ips=IPS,
        start_port=17001,
    )
    base.update(changes)
    return Hello(**base)


@pytest.mark.parametrize(
    "peers, extra, problems",
    [
        ({1: hello(1)}, (), ()),
        ({}, (), ("node 1 (127.0.0.3) never arrived within 30 s",)),
        (
            {1: hello(1, paddle_version="3.2.0")},
            (),
            ("node 1 (127.0.0.3) has paddle_version '3.2.0', node 0 (127.0.0.2) has '3.3.1'",),
        ),
        (
            {1: hello(1, config_sha256="def", tipc_version="0.2.0")},
            (),
            (
                "node 1 (127.0.0.3) has tipc_version '0.2.0', node 0 (127.0.0.2) has '0.1.0'",
                "node 1 (127.0.0.3) has config_sha256 'def', node 0 (127.0.0.2) has 'abc'",
            ),
        ),
        (
            {1: hello(1, ips=("127.0.0.2", "127.0.0.4"))},
            (),
            ("node 1 (127.0.0.3) has ips '127.0.0.2,127.0.0.4', node 0 (127.0.0.2) has '127.0.0.2,127.0.0.3'",),
        ),
        (
            {1: hello(1, host="127.0.0.9")},
            (),
            ("node 1 (127.0.0.9) says it is 127.0.0.9, but node 1 of the list is 127.0.0.3",),
        ),
        (
            {1: hello(1, local_problems=("port 127.0.0.3:17001 is taken",))},
            (),
            ("node 1 (127.0.0.3): port 127.0.0.3:17001 is taken",),
        ),
        (
            {1: hello(1)},
            ("two nodes claim rank 1: 127.0.0.3 and 127.0.0.4",),
            ("two nodes claim rank 1: 127.0.0.3 and 127.0.0.4",),
        ),
    ],
    ids=[
        "same",
        "missing",
        "paddle-differs",
        "two-fields-differ",
        "node-lists-differ",
        "wrong-host",
        "peer-local-failure",
        "extra-problem",
    ],
)
def test_compare(peers, extra, problems):
    verdict = compare(hello(0), peers, IPS, 30, extra)
    assert verdict == RendezvousAnswer(not problems, problems, (0, *sorted(peers)))


def test_from_wire_rejects_garbage():
    with pytest.raises(ValueError):
        Hello.from_wire({"rank": "one", "host": "x", "tipc_version": "", "config_sha256": "", "paddle_version": ""})
    with pytest.raises(ValueError):
        Hello.from_wire({"rank": 1})
    with pytest.raises(ValueError):
        Hello.from_wire([1])


def background(call):
    """Run ``call`` in a thread; the returned function joins it (bounded) and gives its result."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=call()))
    thread.start()

    def outcome():
        thread.join(20)
        assert not thread.is_alive()
        return result["value"]

    return outcome


def run_pair(port, hello0, hello1, timeout=5.0, node0_after=0.0):
    """Node 1 and node 0 side by side (node 0 after a delay); both verdicts."""
    peer = background(lambda: rendezvous(hello1, IPS, port, timeout))
    time.sleep(node0_after)
    return rendezvous(hello0, IPS, port, timeout), peer()


def test_pass_with_peer_starting_first(free_port):
    # node 1 starts before node 0 listens: it retries until node 0 is up
    v0, v1 = run_pair(free_port(), hello(0), hello(1), node0_after=0.5)
    assert v0 == v1 == RendezvousAnswer(True, (), (0, 1))


def test_mismatch_reaches_both_nodes(free_port):
    v0, v1 = run_pair(free_port(), hello(0), hello(1, paddle_version="2.6.0"))
    expected = ("node 1 (127.0.0.3) has paddle_version '2.6.0', node 0 (127.0.0.2) has '3.3.1'",)
    assert v0 == v1 == RendezvousAnswer(False, expected, (0, 1))


def test_missing_peer_is_named_within_the_timeout(free_port):
    started = time.monotonic()
    verdict = rendezvous(hello(0), IPS, free_port(), 0.5)
    assert time.monotonic() - started < 2
    assert verdict == RendezvousAnswer(False, ("node 1 (127.0.0.3) never arrived within 0.5 s",), (0,))


def test_missing_node0_is_named_within_the_timeout(free_port):
    started = time.monotonic()
    port = free_port()
    verdict = rendezvous(hello(1), IPS, port, 0.6)
    assert time.monotonic() - started < 2
    assert verdict == RendezvousAnswer(False, (f"node 0 (127.0.0.2:{port}) did not answer within 0.6 s",))


def test_port_taken_on_node0_raises(free_port, listener):
    port = free_port()
    listener("127.0.0.2", port)
    with pytest.raises(OSError):
        rendezvous(hello(0), IPS, port, 0.5)


def test_garbage_connection_does_not_block_node0(free_port):
    port = free_port()
    server = background(lambda: rendezvous(hello(0), IPS, port, 3))
    time.sleep(0.3)
    with socket.create_connection(("127.0.0.2", port), timeout=6) as junk:
        junk.sendall(b"not json\n")
        reply = json.loads(junk.makefile().readline())
    verdict = server()
    assert reply["ok"] is False
    assert verdict.problems[0].startswith("a connection from 127.0.0.")
    assert verdict.problems[1] == "node 1 (127.0.0.3) never arrived within 3 s"
