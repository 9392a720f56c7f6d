"""Whose fault a config's trouble is, and how the fronts say it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.cluster.node import ClusterArgs
from tipc.errors import ClusterError
from tipc.session.problems import ConfigProblem, ProblemKind, cluster_problem, selection_line

TWO = ("192.168.0.1", "192.168.0.2")
EXC = ClusterError("the resolution failed")
PLACEHOLDERS = {"xx.xx.xx.xx", "yy.yy.yy.yy"}  # the suites' stand-ins for a cluster's nodes


def resolver(name: str) -> str:
    """Addresses as themselves, and the placeholders unresolvable (as on any machine), without DNS."""
    if name in PLACEHOLDERS:
        raise ClusterError(f"cannot resolve host {name!r}")
    return name


HOW = "start the same command on each of them with --ips 192.168.0.1,192.168.0.2 --host <that node's address>"


@pytest.mark.parametrize(
    ("cluster", "config_ips", "environ", "local", "expected"),
    [
        (ClusterArgs(), (), {}, ("10.1.1.1",), None),
        (ClusterArgs(ips=("10.0.0.1", "10.0.0.2")), TWO, {}, ("10.1.1.1",), None),
        (ClusterArgs(), TWO, {"PADDLE_TRAINERS": "10.0.0.1,10.0.0.2"}, ("10.1.1.1",), None),
        (ClusterArgs(), TWO, {}, ("10.1.1.1",), (ProblemKind.NOT_APPLICABLE, HOW)),
        (
            ClusterArgs(),
            ("127.0.0.2", "127.0.0.3"),
            {},
            ("127.0.0.0/8",),
            (ProblemKind.NOT_APPLICABLE, "--ips 127.0.0.2,127.0.0.3 --host <that node's address>"),
        ),
        (ClusterArgs(), ("10.0.0.1", "10.0.0.1"), {}, ("10.1.1.1",), (ProblemKind.ERROR, str(EXC))),
        (ClusterArgs(host="10.9.9.9"), TWO, {}, ("10.1.1.1",), (ProblemKind.ERROR, str(EXC))),
        (ClusterArgs(), TWO, {}, ("192.168.0.1",), None),
        (
            ClusterArgs(),
            ("xx.xx.xx.xx", "yy.yy.yy.yy"),
            {},
            ("10.1.1.1",),
            (ProblemKind.NOT_APPLICABLE, "'xx.xx.xx.xx' does not resolve here) and this run has no node list"),
        ),
        (
            ClusterArgs(host="10.9.9.9"),
            ("xx.xx.xx.xx", "yy.yy.yy.yy"),
            {},
            ("10.1.1.1",),
            (ProblemKind.ERROR, str(EXC)),
        ),
    ],
    ids=[
        "config-has-no-list",
        "ips-option-gives-the-list",
        "scheduler-gives-the-list",
        "config-list-without-this-machine",
        "config-list-this-machine-owns-twice",
        "config-list-that-does-not-hold-together",
        "host-option-at-odds-with-the-config",
        "identified-so-it-failed-later",
        "config-list-of-placeholder-hosts",
        "host-option-at-odds-with-placeholder-hosts",
    ],
)
def test_whose_fault(cluster, config_ips, environ, local, expected):
    found = cluster_problem(EXC, cluster, config_ips, environ, local, resolver)
    if expected is None or found is None:
        assert found == expected
    else:
        assert found[0] is expected[0] and expected[1] in found[1]


def problem(kind: ProblemKind, reason: str = "why") -> ConfigProblem:
    return ConfigProblem(Path("/c/a.txt"), "m/a.txt", "lite_train_lite_infer", kind, reason)


@pytest.mark.parametrize(
    ("kind", "line"),
    [
        (ProblemKind.ERROR, "tipc: m/a.txt: could not be planned: why"),
        (ProblemKind.NOT_APPLICABLE, "tipc: m/a.txt: not applicable: why"),
    ],
    ids=["error", "not-applicable"],
)
def test_problem_line(kind, line):
    assert problem(kind).line() == line


@pytest.mark.parametrize(
    ("planned", "kinds", "line", "empty"),
    [
        (3, (), "tipc: 3 configs: 3 planned", ()),
        (3, (), "tipc: 3 configs: 2 planned, 1 planned to no stage (a/x.txt)", ("a/x.txt",)),
        (
            5,
            (ProblemKind.ERROR,),
            "tipc: 6 configs: 0 planned, 5 planned to no stage (a, b, c and 2 more), 1 could not be planned",
            ("a", "b", "c", "d", "e"),
        ),
        (2, (ProblemKind.ERROR,), "tipc: 3 configs: 2 planned, 1 could not be planned", ()),
        (
            89,
            (ProblemKind.ERROR,) * 16 + (ProblemKind.NOT_APPLICABLE,),
            "tipc: 106 configs: 89 planned, 16 could not be planned, 1 not applicable here",
            (),
        ),
        (0, (ProblemKind.NOT_APPLICABLE,) * 2, "tipc: 2 configs: 0 planned, 2 not applicable here", ()),
        (0, (ProblemKind.ERROR,), "tipc: 1 config: 0 planned, 1 could not be planned", ()),
    ],
    ids=["all-planned", "no-stage-named", "no-stage-counted", "one-error", "a-zoo", "none-applicable", "one-config"],
)
def test_selection_line(planned, kinds, line, empty):
    assert selection_line(planned, [problem(k) for k in kinds], empty) == line
