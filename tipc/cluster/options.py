"""The cluster options, declared once for both fronts.

``add_options(parser.add_argument)`` (argparse) and
``add_options(group.addoption)`` (pytest) register the same flags;
``cluster_args(get)`` reads them back, ``get`` being ``config.getoption`` or
``lambda dest: getattr(namespace, dest)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tipc.errors import ClusterError

if TYPE_CHECKING:
    from tipc.cluster.node import ClusterArgs

# Here, not in tipc.cluster.node: declaring the options (every pytest start, tipc's or not) loads
# nothing of the cluster's model.
DEFAULT_RENDEZVOUS_TIMEOUT = 60.0
DEFAULT_NODE_TIMEOUT = 60.0  # a node silent this long during a multi-node stage stops the others (tipc.cluster.watch)

OPTIONS: tuple[tuple[tuple[str, ...], dict[str, Any]], ...] = (
    (
        ("--ips",),
        dict(
            dest="tipc_ips",
            metavar="IP,IP,...",
            default=None,
            help="multi-node: the nodes' addresses in rank order (overrides the "
            "scheduler's list and the config's ips;gpus entry)",
        ),
    ),
    (
        ("--host",),
        dict(dest="tipc_host", metavar="ADDR", default=None, help="multi-node: this node's address in --ips"),
    ),
    (
        ("--node-rank",),
        dict(
            dest="tipc_node_rank",
            type=int,
            metavar="N",
            default=None,
            help="multi-node: this node's index in --ips (0 = first)",
        ),
    ),
    (
        ("--start-port",),
        dict(
            dest="tipc_start_port",
            type=int,
            metavar="PORT",
            default=None,
            help="first port of paddle.distributed.launch (default: FLAGS_START_PORT, else a free range from 17000)",
        ),
    ),
    (
        ("--device",),
        dict(
            dest="tipc_device",
            choices=("auto", "cpu", "gpu", "npu", "xpu"),
            default="auto",
            help="auto: GPU when nvidia-smi or /dev/nvidia0 is present; cpu: retarget GPU topologies to CPU processes; "
            "npu, xpu: plan what the suite's test_train_inference_python_<device>.sh runs",
        ),
    ),
    (
        ("--rendezvous-port",),
        dict(
            dest="tipc_rendezvous_port",
            type=int,
            metavar="PORT",
            default=None,
            help="multi-node preflight port on node 0 (default: start port - 1)",
        ),
    ),
    (
        ("--rendezvous-timeout",),
        dict(
            dest="tipc_rendezvous_timeout",
            type=float,
            metavar="S",
            default=DEFAULT_RENDEZVOUS_TIMEOUT,
            help="multi-node preflight: seconds to wait for every node",
        ),
    ),
    (
        ("--node-timeout",),
        dict(
            dest="tipc_node_timeout",
            type=float,
            metavar="S",
            default=DEFAULT_NODE_TIMEOUT,
            help="multi-node: a node that stops answering for S seconds during a stage stops that stage on "
            "every other node, which names it",
        ),
    ),
    (
        ("--preflight",),
        dict(
            dest="tipc_preflight",
            action="store_true",
            default=None,
            help="check node list, ports and peers before training (default)",
        ),
    ),
    (("--no-preflight",), dict(dest="tipc_preflight", action="store_false", help="skip the multi-node preflight")),
)


def add_options(add: Callable[..., Any]) -> None:
    for names, kwargs in OPTIONS:
        add(*names, **kwargs)


def cluster_args(get: Callable[[str], Any], port_count: int = 1) -> ClusterArgs:
    """The options' values as ``ClusterArgs``; ``port_count`` = processes per node."""
    from tipc.cluster.node import ClusterArgs
    from tipc.cluster.topology import split_list

    ips = get("tipc_ips")
    timeout = get("tipc_rendezvous_timeout")
    if timeout <= 0:
        raise ClusterError(f"--rendezvous-timeout {timeout:g}: expected a positive number of seconds")
    raw = get("tipc_node_timeout")  # a number, or text from TIPC_NODE_TIMEOUT or a settings file
    try:
        node_timeout = DEFAULT_NODE_TIMEOUT if raw is None else float(raw)
    except ValueError:
        raise ClusterError(f"--node-timeout {raw!r}: expected a number of seconds") from None
    if node_timeout <= 0:
        raise ClusterError(f"--node-timeout {node_timeout:g}: expected a positive number of seconds")
    rank = get("tipc_node_rank")
    if rank is not None and rank < 0:
        raise ClusterError(f"--node-rank {rank}: expected 0 or more")
    return ClusterArgs(
        ips=split_list(ips, "--ips") if ips is not None else (),
        host=get("tipc_host"),
        node_rank=rank,
        start_port=get("tipc_start_port"),
        device=get("tipc_device"),
        rendezvous_port=get("tipc_rendezvous_port"),
        rendezvous_timeout=timeout,
        node_timeout=node_timeout,
        preflight=get("tipc_preflight") is not False,
        port_count=port_count,
    )
