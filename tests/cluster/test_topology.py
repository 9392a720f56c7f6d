import pytest

from tipc.cluster.topology import ClusterSpec, ips_from_gpu_list, node_list
from tipc.errors import ClusterError

HOSTS = {
    "node01": "10.1.0.1",
    "node02": "10.1.0.2",
    "node03": "10.1.0.3",
    "localhost": "127.0.0.1",
    "debian-self": "127.0.1.1",
}


def resolver(name):
    if name not in HOSTS:
        raise ClusterError(f"cannot resolve host {name!r}: unknown")
    return HOSTS[name]


@pytest.mark.parametrize(
    "cli, env, config, expected",
    [
        ((), {}, (), ClusterSpec((), "none")),
        (
            ("127.0.0.2", "127.0.0.3"),
            {"SLURM_JOB_NODELIST": "node[01-02]"},
            ("1.1.1.1", "2.2.2.2"),
            ClusterSpec(("127.0.0.2", "127.0.0.3"), "--ips", ("127.0.0.2", "127.0.0.3")),
        ),
        (
            (),
            {"SLURM_JOB_NODELIST": "node[01-03]", "PADDLE_TRAINERS": "9.9.9.1,9.9.9.2"},
            (),
            ClusterSpec(("10.1.0.1", "10.1.0.2", "10.1.0.3"), "SLURM_JOB_NODELIST", ("node01", "node02", "node03")),
        ),
        (
            (),
            {"SLURM_NODELIST": "node[02-03]"},
            (),
            ClusterSpec(("10.1.0.2", "10.1.0.3"), "SLURM_JOB_NODELIST", ("node02", "node03")),
        ),
        (
            (),
            {"PADDLE_TRAINERS": "10.2.0.1, 10.2.0.2"},
            ("1.1.1.1", "2.2.2.2"),
            ClusterSpec(("10.2.0.1", "10.2.0.2"), "PADDLE_TRAINERS", ("10.2.0.1", "10.2.0.2")),
        ),
        (
            (),
            {"SLURM_JOB_NODELIST": "node01"},
            ("192.168.0.1", "192.168.0.2"),
            ClusterSpec(("192.168.0.1", "192.168.0.2"), "config gpu_list", ("192.168.0.1", "192.168.0.2")),
        ),
        (
            (),
            {},
            ("192.168.0.1", "192.168.0.2"),
            ClusterSpec(("192.168.0.1", "192.168.0.2"), "config gpu_list", ("192.168.0.1", "192.168.0.2")),
        ),
        (
            (),
            {"SLURM_JOB_NODELIST": "node[01-02]", "SLURM_NODELIST": "node[02-03]"},
            (),
            ClusterSpec(("10.1.0.1", "10.1.0.2"), "SLURM_JOB_NODELIST", ("node01", "node02")),
        ),
        (
            (),
            {"SLURM_JOB_NODELIST": "node01", "PADDLE_TRAINERS": "10.2.0.1,10.2.0.2"},
            (),
            ClusterSpec(("10.2.0.1", "10.2.0.2"), "PADDLE_TRAINERS", ("10.2.0.1", "10.2.0.2")),
        ),
        (
            (),
            {"PADDLE_TRAINERS": "10.2.0.1", "POD_IP": "10.2.0.1"},
            ("192.168.0.1", "192.168.0.2"),
            ClusterSpec(("192.168.0.1", "192.168.0.2"), "config gpu_list", ("192.168.0.1", "192.168.0.2")),
        ),
        (
            ("127.0.0.2", "127.0.0.3"),
            {"PADDLE_TRAINERS": "10.2.0.1,10.2.0.2"},
            (),
            ClusterSpec(("127.0.0.2", "127.0.0.3"), "--ips", ("127.0.0.2", "127.0.0.3")),
        ),
        (
            (),
            {"SLURM_JOB_NODELIST": ""},
            ("192.168.0.1", "192.168.0.2"),
            ClusterSpec(("192.168.0.1", "192.168.0.2"), "config gpu_list", ("192.168.0.1", "192.168.0.2")),
        ),
    ],
    ids=[
        "nothing",
        "cli-beats-all",
        "slurm-beats-paddle",
        "old-slurm-name",
        "paddle-beats-config",
        "one-node-allocation-falls-through",
        "config",
        "job-nodelist-beats-old-name",
        "one-node-slurm-then-paddle",
        "one-trainer-falls-through",
        "cli-beats-paddle",
        "empty-slurm-var-ignored",
    ],
)
def test_precedence(cli, env, config, expected):
    assert node_list(cli, env, config, resolver) == expected


@pytest.mark.parametrize(
    "cli, env, fragment",
    [
        (("127.0.0.2", "127.0.0.2"), {}, "names 127.0.0.2 twice"),
        (("127.0.0.1", "127.0.0.2"), {}, "contains 127.0.0.1"),
        ((), {"SLURM_JOB_NODELIST": "localhost,node01"}, "'localhost' resolves to the loopback address 127.0.0.1"),
        ((), {"SLURM_JOB_NODELIST": "node[01-02],ghost"}, "cannot resolve host 'ghost'"),
        ((), {"PADDLE_TRAINERS": "10.0.0.1,"}, "PADDLE_TRAINERS="),
        (
            (),
            {"SLURM_JOB_NODELIST": "debian-self,node02"},
            "host 'debian-self' resolves to the loopback address 127.0.1.1 on this machine",
        ),
        ((), {"SLURM_JOB_NODELIST": "node[01-02"}, "'[' is never closed"),
    ],
    ids=[
        "duplicate",
        "launch-rewrites-127.0.0.1",
        "localhost-in-slurm",
        "unresolvable",
        "bad-trainers",
        "hostname-resolving-to-loopback",
        "bad-slurm-list",
    ],
)
def test_bad_lists(cli, env, fragment):
    with pytest.raises(ClusterError) as err:
        node_list(cli, env, (), resolver)
    assert fragment in str(err.value)


def test_unresolvable_names_the_source():
    with pytest.raises(ClusterError, match=r"ghost.*SLURM_JOB_NODELIST"):
        node_list((), {"SLURM_JOB_NODELIST": "ghost,node01"}, (), resolver)


@pytest.mark.parametrize(
    "entries, expected",
    [
        (("0", "0,1"), ()),
        (("192.168.0.1,192.168.0.2;0,1",), ("192.168.0.1", "192.168.0.2")),
        (("-1", "1.1.1.1,2.2.2.2;0"), ("1.1.1.1", "2.2.2.2")),
    ],
    ids=["single-node-entries", "fleet", "fifteen-chars-still-two-nodes"],
)
def test_ips_from_gpu_list_reads_structure(entries, expected):
    assert ips_from_gpu_list(entries) == expected


def test_describe_names_source_and_hostnames():
    spec = node_list((), {"SLURM_JOB_NODELIST": "node[01-02]"}, (), resolver)
    assert spec.describe() == "2 node(s) 10.1.0.1,10.1.0.2 (node01,node02) from SLURM_JOB_NODELIST"
    assert spec.multi_node


def test_loopback_addresses_given_as_addresses_stay_allowed():
    """Two nodes on one machine (127.0.0.2/127.0.0.3) are addresses, not names."""
    assert node_list((), {"PADDLE_TRAINERS": "127.0.0.2,127.0.0.3"}, (), resolver).ips == ("127.0.0.2", "127.0.0.3")


@pytest.mark.parametrize(
    ("ips", "message"),
    [
        ("1.2.3", "--ips='1.2.3': '1.2.3' is not an IPv4 address (expected four numbers 0-255, e.g. 10.0.0.1)"),
        ("10.0.0.1,10.0.0.300", "'10.0.0.300' is not an IPv4 address"),
        (
            "::1",
            "--ips='::1': '::1' is an IPv6 address: paddle.distributed.launch --ips takes IPv4 addresses or host names",
        ),
        ("", "--ips='': expected a comma list of node addresses"),
        ("a..b", "'a..b' is not a host name (letters, digits and '-' between dots)"),
        ("-node", "'-node' is not a host name"),
    ],
    ids=["three-numbers", "number-too-big", "ipv6", "empty", "empty-label", "leading-dash"],
)
def test_ips_are_checked_by_their_spelling_first(ips, message):
    from tipc.cluster.options import cluster_args

    values = {"tipc_ips": ips, "tipc_rendezvous_timeout": 30.0, "tipc_node_rank": None}
    with pytest.raises(ClusterError) as err:
        cluster_args(values.get)
    assert message in str(err.value)


@pytest.mark.parametrize("ips", ["10.0.0.1,10.0.0.2", "node-1.example.com,node-2", "127.0.0.2,127.0.0.3"])
def test_good_node_lists_pass_the_spelling_check(ips):
    from tipc.cluster.topology import split_list

    assert split_list(ips, "--ips") == tuple(ips.split(","))
