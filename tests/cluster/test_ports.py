import os
from pathlib import Path

import pytest

from tipc.cluster.ports import check_ports, find_free_range, port_owner, resolve_start_port
from tipc.errors import ClusterError


def test_free_ports_have_no_problems(free_port):
    start = free_port(3)
    assert check_ports("127.0.0.2", start, 3) == []


def test_taken_port_is_named_with_its_process(free_port, listener):
    start = free_port(3)
    listener("127.0.0.2", start + 1)
    problems = check_ports("127.0.0.2", start, 3)
    comm = Path("/proc/self/comm").read_text().strip()
    assert problems == [f"port 127.0.0.2:{start + 1} is taken by pid {os.getpid()} ({comm})"]


def test_port_owner_unknown_when_nobody_listens(free_port):
    assert port_owner(free_port()) is None


def test_foreign_address_is_reported():
    assert check_ports("192.0.2.77", 17000, 1) == [
        "192.0.2.77 is not an address of this machine (binding 192.0.2.77:17000 failed)"
    ]


def test_find_free_range_skips_a_taken_port(free_port, listener):
    start = free_port(4)
    listener("127.0.0.2", start + 1)
    assert find_free_range("127.0.0.2", 2, base=start, limit=start + 4) == start + 2


def test_find_free_range_gives_up_with_the_fix(free_port, listener):
    start = free_port(2)
    listener("127.0.0.2", start)
    with pytest.raises(ClusterError, match="--start-port or set FLAGS_START_PORT"):
        find_free_range("127.0.0.2", 2, base=start, limit=start + 2)


def fake_find(host, count):
    return 17500


@pytest.mark.parametrize(
    "cli, env, expected",
    [
        (18000, {"FLAGS_START_PORT": "17000"}, (18000, "--start-port")),
        (None, {"FLAGS_START_PORT": " 17000 "}, (17000, "FLAGS_START_PORT")),
        (None, {}, (17500, "first free range from 17000 on 127.0.0.2")),
        (None, {"FLAGS_START_PORT": ""}, (17500, "first free range from 17000 on 127.0.0.2")),
    ],
    ids=["cli", "env", "found", "empty-env"],
)
def test_start_port_precedence(cli, env, expected):
    assert resolve_start_port(cli, env, "127.0.0.2", 2, fake_find) == expected


@pytest.mark.parametrize(
    "cli, env, fragment",
    [
        (None, {"FLAGS_START_PORT": "abc"}, "FLAGS_START_PORT='abc' is not a port number"),
        (80, {}, "--start-port=80: expected a port in 1024..65533"),
        (None, {"FLAGS_START_PORT": "65535"}, "FLAGS_START_PORT=65535"),
    ],
    ids=["not-a-number", "privileged", "no-room"],
)
def test_bad_start_port(cli, env, fragment):
    with pytest.raises(ClusterError) as err:
        resolve_start_port(cli, env, "127.0.0.2", 2, fake_find)
    assert fragment in str(err.value)
