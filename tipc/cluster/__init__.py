"""Multi-node support: node list and identity, ports, device choice, preflight, merge.

Fronts use ``resolve_node`` → ``to_plan_kwargs`` for ``PlanOptions``,
``run_preflight`` before the first stage, and ``merge_dirs`` / ``load_results_dir``
afterwards. Everything raises ``ClusterError`` (setup) or ``ConfigError`` (files).
"""

from tipc.cluster.device import detect_device
from tipc.cluster.errors import ClusterError
from tipc.cluster.merge import load_results_dir, merge_dirs
from tipc.cluster.node import ClusterArgs, NodeContext, resolve_node, to_plan_kwargs
from tipc.cluster.options import add_options, cluster_args
from tipc.cluster.preflight import PreflightReport, run_preflight
from tipc.cluster.topology import ClusterSpec, ips_from_gpu_list, node_list

__all__ = [
    "ClusterArgs", "ClusterError", "ClusterSpec", "NodeContext", "PreflightReport",
    "add_options", "cluster_args", "detect_device", "ips_from_gpu_list", "load_results_dir",
    "merge_dirs", "node_list", "resolve_node", "run_preflight", "to_plan_kwargs",
]
