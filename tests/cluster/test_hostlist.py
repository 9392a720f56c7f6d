import pytest

from tipc.cluster.hostlist import expand_hostlist
from tipc.errors import ClusterError


@pytest.mark.parametrize(
    "text, expected",
    [
        ("node01", ("node01",)),
        ("node[01-03,07]", ("node01", "node02", "node03", "node07")),
        ("a[1-2]-b[3-4]", ("a1-b3", "a1-b4", "a2-b3", "a2-b4")),
        ("x,node[8-10],y", ("x", "node8", "node9", "node10", "y")),
        ("gpu[098-100]", ("gpu098", "gpu099", "gpu100")),
        ("n[1-2],m[5,7]", ("n1", "n2", "m5", "m7")),
        (" 10.0.0.1,10.0.0.2 ", ("10.0.0.1", "10.0.0.2")),
        ("rack[1-2]n[0-1]", ("rack1n0", "rack1n1", "rack2n0", "rack2n1")),
        ("node[5]", ("node5",)),
        ("n[0-2]", ("n0", "n1", "n2")),
        ("n[009-011]", ("n009", "n010", "n011")),
        ("n[08-10,1]", ("n08", "n09", "n10", "n1")),
        ("a[1-2].ib", ("a1.ib", "a2.ib")),
        ("n[01-02]x[1,3]y", ("n01x1y", "n01x3y", "n02x1y", "n02x3y")),
        ("n[1-2, 5] , m", ("n1", "n2", "n5", "m")),
        ("10.0.0.[1-3]", ("10.0.0.1", "10.0.0.2", "10.0.0.3")),
        ("gpu-01,gpu-02", ("gpu-01", "gpu-02")),
    ],
    ids=[
        "plain",
        "padded-range-and-single",
        "cartesian",
        "comma-list-mixed",
        "padding-widens",
        "two-bracketed-items",
        "ip-list",
        "adjacent-groups",
        "one-in-brackets",
        "zero-low-bound",
        "three-digit-padding",
        "each-piece-its-own-width",
        "suffix-after-brackets",
        "two-groups-commas-inside",
        "spaces-around-commas",
        "bracketed-address",
        "dashes-no-brackets",
    ],
)
def test_expand(text, expected):
    assert expand_hostlist(text) == expected


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("node[1-3", "never closed"),
        ("node1-3]", "without '['"),
        ("node[3-1]", "descending range"),
        ("node[a-b]", "expected N or N-M"),
        ("node[]", "empty brackets"),
        ("a,,b", "empty host name"),
        ("", "empty host name"),
        ("n[[1]]", "nested"),
    ],
    ids=["unclosed", "unopened", "descending", "letters", "empty-brackets", "empty-item", "empty", "nested"],
)
def test_bad_lists_name_the_variable_and_the_problem(text, fragment):
    with pytest.raises(ClusterError, match="SLURM_JOB_NODELIST") as err:
        expand_hostlist(text)
    assert fragment in str(err.value)
