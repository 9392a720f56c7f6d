import pytest

from tipc.cluster.identity import Identity, owned, parse_fib_trie, this_node
from tipc.cluster.topology import ClusterSpec
from tipc.errors import ClusterError

TWO = ClusterSpec(("127.0.0.2", "127.0.0.3"), "--ips", ("127.0.0.2", "127.0.0.3"))
SLURM = ClusterSpec(("10.1.0.1", "10.1.0.2"), "SLURM_JOB_NODELIST", ("node01", "node02"))
PADDLE = ClusterSpec(("10.2.0.1", "10.2.0.2"), "PADDLE_TRAINERS", ("10.2.0.1", "10.2.0.2"))
CONFIG = ClusterSpec(("192.168.0.1", "192.168.0.2"), "config gpu_list", ("192.168.0.1", "192.168.0.2"))
NAMES = {"node02": "10.1.0.2", "me": "127.0.0.3"}


def resolve(name):
    if name not in NAMES:
        raise ClusterError(f"cannot resolve host {name!r}")
    return NAMES[name]


@pytest.mark.parametrize(
    "spec, host, rank, env, local, expected",
    [
        (TWO, "127.0.0.3", None, {}, (), Identity("127.0.0.3", 1, "--host")),
        (TWO, None, 0, {}, (), Identity("127.0.0.2", 0, "--node-rank")),
        (TWO, "127.0.0.3", 1, {}, (), Identity("127.0.0.3", 1, "--host")),
        (TWO, "me", None, {}, (), Identity("127.0.0.3", 1, "--host")),
        (TWO, "127.0.0.2", None, {"POD_IP": "127.0.0.3"}, (), Identity("127.0.0.2", 0, "--host")),
        (SLURM, None, None, {"SLURM_NODEID": "1"}, ("10.1.0.1/32",), Identity("10.1.0.2", 1, "SLURM_NODEID")),
        (PADDLE, None, None, {"PADDLE_TRAINER_ID": "0"}, (), Identity("10.2.0.1", 0, "PADDLE_TRAINER_ID")),
        (PADDLE, None, None, {"POD_IP": "10.2.0.2"}, (), Identity("10.2.0.2", 1, "POD_IP")),
        (TWO, None, None, {"POD_IP": "127.0.0.2", "SLURM_NODEID": "1"}, (), Identity("127.0.0.2", 0, "POD_IP")),
        (TWO, None, None, {}, ("192.0.2.2/32", "127.0.0.3"), Identity("127.0.0.3", 1, "local interfaces")),
        (SLURM, None, None, {}, ("10.1.0.0/24",), None),
        (TWO, None, None, {"SLURM_NODEID": "0"}, ("127.0.0.2/32",), Identity("127.0.0.2", 0, "local interfaces")),
        (PADDLE, None, 1, {"PADDLE_TRAINER_ID": "0", "POD_IP": "10.2.0.1"}, (), Identity("10.2.0.2", 1, "--node-rank")),
        (
            CONFIG,
            None,
            None,
            {"PADDLE_TRAINER_ID": "1"},
            ("192.168.0.1/32",),
            Identity("192.168.0.1", 0, "local interfaces"),
        ),
        (SLURM, None, None, {"SLURM_NODEID": "0"}, ("10.1.0.2/32",), Identity("10.1.0.1", 0, "SLURM_NODEID")),
        (CONFIG, None, None, {"POD_IP": "192.168.0.2"}, ("192.168.0.1/32",), Identity("192.168.0.2", 1, "POD_IP")),
    ],
    ids=[
        "cli-host",
        "cli-rank",
        "cli-both-agree",
        "cli-hostname",
        "cli-beats-env",
        "slurm-rank",
        "paddle-rank",
        "pod-ip",
        "pod-ip-with-foreign-rank-var",
        "one-local-address",
        "two-local-addresses",
        "slurm-rank-ignored-for-cli-list",
        "cli-rank-beats-env",
        "paddle-rank-ignored-for-config-list",
        "env-beats-interfaces",
        "pod-ip-checked-against-config-list",
    ],
)
def test_identity(spec, host, rank, env, local, expected):
    if expected is None:
        with pytest.raises(ClusterError, match=r"--host .* or --node-rank"):
            this_node(spec, host=host, node_rank=rank, environ=env, local=local, resolver=resolve)
    else:
        assert this_node(spec, host=host, node_rank=rank, environ=env, local=local, resolver=resolve) == expected


@pytest.mark.parametrize(
    "spec, host, rank, env, local, fragments",
    [
        (TWO, None, None, {}, ("127.0.0.0/8",), ("owns 127.0.0.2 and 127.0.0.3", "--host", "--node-rank")),
        (TWO, None, None, {}, ("192.0.2.2/32",), ("none of this machine's addresses (192.0.2.2/32)", "--ips")),
        (TWO, "127.0.0.4", None, {}, (), ("--host=127.0.0.4 is not in the node list 127.0.0.2,127.0.0.3",)),
        (TWO, None, 2, {}, (), ("--node-rank=2 is outside", "expected 0..1")),
        (TWO, "127.0.0.2", 1, {}, (), ("is node 0", "--node-rank=1")),
        (SLURM, None, None, {"SLURM_NODEID": "x"}, (), ("SLURM_NODEID='x'",)),
        (
            PADDLE,
            None,
            None,
            {"POD_IP": "10.2.0.1", "PADDLE_TRAINER_ID": "1"},
            (),
            ("POD_IP=10.2.0.1 is node 0", "PADDLE_TRAINER_ID=1"),
        ),
        (TWO, "ghost", None, {}, (), ("--host", "ghost")),
    ],
    ids=[
        "one-machine-two-nodes",
        "not-in-list",
        "host-not-listed",
        "rank-out-of-range",
        "host-and-rank-disagree",
        "bad-env-rank",
        "env-disagrees",
        "unresolvable-host",
    ],
)
def test_identity_errors_say_what_and_how_to_fix(spec, host, rank, env, local, fragments):
    with pytest.raises(ClusterError) as err:
        this_node(spec, host=host, node_rank=rank, environ=env, local=local, resolver=resolve)
    for fragment in fragments:
        assert fragment in str(err.value)


FIB = """Main:
  +-- 0.0.0.0/0 3 0 5
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
     +-- 10.0.0.0/24 2 0 2
           |-- 10.0.0.0
              /24 link UNICAST
           |-- 10.0.0.7
              /32 host LOCAL
"""


def test_fib_trie_gives_local_routes_only():
    assert parse_fib_trie(FIB) == {"127.0.0.0/8", "127.0.0.1/32", "10.0.0.7/32"}


@pytest.mark.parametrize(
    "ip, local, expected",
    [
        ("127.0.0.3", ("127.0.0.0/8",), True),
        ("10.0.0.8", ("10.0.0.7/32",), False),
        ("10.0.0.7", ("10.0.0.7",), True),
    ],
    ids=["in-network", "neighbour", "bare-address"],
)
def test_owned(ip, local, expected):
    assert owned(ip, local) is expected
