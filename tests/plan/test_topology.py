import pytest

from tipc.config.model import Field
from tipc.errors import ConfigError
from tipc.plan.model import Topology
from tipc.plan.topology import on_cpu, parse_topology, with_ips

FIELD = Field("gpu_list", "", 4)


@pytest.mark.parametrize(
    "entry, expected",
    [
        ("-1", Topology("cpu", "-1")),
        ("0", Topology("gpu", "0", ("0",))),
        ("10", Topology("gpu", "10", ("10",))),
        ("0,1", Topology("multi_gpu", "0,1", ("0", "1"), (), 2)),
        ("0,1,2,3,4,5,6,7,8", Topology("multi_gpu", "0,1,2,3,4,5,6,7,8", tuple("012345678"), (), 9)),
        (
            "192.168.0.1,192.168.0.2;0,1",
            Topology("multi_node", "192.168.0.1,192.168.0.2;0,1", ("0", "1"), ("192.168.0.1", "192.168.0.2"), 2),
        ),
        ("1.1.1.1,2.2.2.2;0,1", Topology("multi_node", "1.1.1.1,2.2.2.2;0,1", ("0", "1"), ("1.1.1.1", "2.2.2.2"), 2)),
        ("a,b,c;0", Topology("multi_node", "a,b,c;0", ("0",), ("a", "b", "c"), 1)),
        ("10.0.0.1;0,1", Topology("multi_gpu", "10.0.0.1;0,1", ("0", "1"), (), 2)),
    ],
    ids=[
        "cpu",
        "one-gpu",
        "two-digit-id",
        "multi-gpu",
        "nine-gpus",
        "fleet",
        "ips-15-chars",
        "one-gpu-per-node",
        "one-ip-is-one-node",
    ],
)
def test_entries_are_read_by_structure(entry, expected):
    assert parse_topology(entry, FIELD, "c.txt") == expected


@pytest.mark.parametrize("entry", ["", "x", "0,", "-1,0", "a,;0", "a,b;"], ids=str)
def test_bad_entries_name_the_line(entry):
    with pytest.raises(ConfigError, match=r"^c\.txt:4: gpu_list: entry"):
        parse_topology(entry, FIELD, "c.txt")


@pytest.mark.parametrize(
    "entry, nodes, launches, label",
    [
        ("-1", 1, False, "-1"),
        ("0", 1, False, "0"),
        ("0,1", 1, True, "0,1"),
        ("a,b;0", 2, True, "0"),
    ],
    ids=["cpu", "gpu", "multi-gpu", "multi-node-one-gpu"],
)
def test_properties(entry, nodes, launches, label):
    topology = parse_topology(entry, FIELD, "c.txt")
    assert (topology.nodes, topology.launches, topology.gpu_label) == (nodes, launches, label)


@pytest.mark.parametrize(
    "entry, expected",
    [
        ("-1", Topology("cpu", "-1")),
        ("0", Topology("cpu", "0")),
        ("0,1", Topology("multi_gpu", "0,1", (), (), 2)),
        ("a,b;0,1,2", Topology("multi_node", "a,b;0,1,2", (), ("a", "b"), 3)),
    ],
    ids=["cpu", "gpu", "multi-gpu", "multi-node"],
)
def test_on_cpu_keeps_the_process_layout(entry, expected):
    assert on_cpu(parse_topology(entry, FIELD, "c.txt")) == expected


@pytest.mark.parametrize(
    "entry, ips, expected",
    [
        ("a,b;0,1", ("x", "y", "z"), Topology("multi_node", "a,b;0,1", ("0", "1"), ("x", "y", "z"), 2)),
        ("0,1", ("x", "y"), Topology("multi_gpu", "0,1", ("0", "1"), (), 2)),
    ],
    ids=["multi-node-replaced", "single-node-untouched"],
)
def test_with_ips(entry, ips, expected):
    assert with_ips(parse_topology(entry, FIELD, "c.txt"), ips) == expected
