"""One function turns options + environment into this node's frozen ``NodeContext``.

Fronts (the pytest plugin, ``tipc run``) call ``resolve_node`` once, pass
``to_plan_kwargs(ctx)`` into ``PlanOptions`` and ``ctx`` into the preflight.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypedDict

from tipc.cluster.device import Device, choose_device
from tipc.cluster.identity import local_addresses, this_node
from tipc.cluster.options import DEFAULT_NODE_TIMEOUT, DEFAULT_RENDEZVOUS_TIMEOUT
from tipc.cluster.ports import FindPorts, find_free_range, resolve_start_port
from tipc.cluster.topology import Resolver, default_resolver, node_list


@dataclass(frozen=True, slots=True)
class ClusterArgs:
    """The cluster options exactly as a front received them (None = not given)."""

    ips: tuple[str, ...] = ()  # --ips, already split on commas
    host: str | None = None  # --host
    node_rank: int | None = None  # --node-rank
    start_port: int | None = None  # --start-port
    device: Literal["auto", "cpu", "gpu"] = "auto"  # --device
    rendezvous_port: int | None = None  # --rendezvous-port; default start_port - 1
    rendezvous_timeout: float = DEFAULT_RENDEZVOUS_TIMEOUT  # --rendezvous-timeout, seconds
    node_timeout: float = DEFAULT_NODE_TIMEOUT  # --node-timeout, seconds
    preflight: bool = True  # --preflight / --no-preflight
    port_count: int = 1  # ports each node's launch needs: its processes per node


@dataclass(frozen=True, slots=True)
class NodeContext:
    """This node's place in the job; single-node runs have ``ips == ()``."""

    ips: tuple[str, ...]
    host: str | None
    node_rank: int | None
    start_port: int | None
    device: Device
    device_reason: str
    rendezvous_port: int | None = None
    rendezvous_timeout: float = DEFAULT_RENDEZVOUS_TIMEOUT
    node_timeout: float = DEFAULT_NODE_TIMEOUT
    preflight: bool = True
    port_count: int = 1
    topology_source: str = "none"
    identity_source: str = ""
    port_source: str = ""

    @property
    def multi_node(self) -> bool:
        return len(self.ips) > 1

    def notes(self) -> tuple[str, ...]:
        """Plain sentences for the plan notes and ``run.json``: what was decided and why."""
        out = [f"device {self.device} ({self.device_reason})"]
        if self.ips:
            out.append(
                f"nodes {','.join(self.ips)} from {self.topology_source}; this is node "
                f"{self.node_rank} ({self.host}) by {self.identity_source}"
            )
        if self.start_port is not None:
            out.append(f"start port {self.start_port} ({self.port_source})")
        return tuple(out)


def resolve_node(
    cli: ClusterArgs,
    environ: Mapping[str, str] | None = None,
    config_ips: Sequence[str] = (),
    local_addrs: Iterable[str] | None = None,
    resolver: Resolver = default_resolver,
    *,
    which: Callable[[str], str | None] = shutil.which,
    exists: Callable[[str], bool] = os.path.exists,
    find_ports: FindPorts = find_free_range,
) -> NodeContext:
    """Topology, identity, ports and device by their precedence rules; raises ``ClusterError``."""
    environ = os.environ if environ is None else environ
    device, device_reason = choose_device(cli.device, environ, which, exists)
    spec = node_list(cli.ips, environ, config_ips, resolver)
    # What single- and multi-node contexts share; each fills in the rest below.
    common = NodeContext(
        ips=(),
        host=None,
        node_rank=None,
        start_port=None,
        device=device,
        device_reason=device_reason,
        rendezvous_timeout=cli.rendezvous_timeout,
        node_timeout=cli.node_timeout,
        preflight=cli.preflight,
        port_count=cli.port_count,
        topology_source=spec.source,
    )
    if not spec.ips:
        start, port_source = _explicit_port(cli, environ)
        return replace(common, start_port=start, port_source=port_source)
    me = this_node(
        spec,
        host=cli.host,
        node_rank=cli.node_rank,
        environ=environ,
        local=local_addresses() if local_addrs is None else local_addrs,
        resolver=resolver,
    )
    # One spare port below the launch range holds the rendezvous.
    start, port_source = resolve_start_port(
        cli.start_port, environ, me.host, cli.port_count + 1, lambda host, count: find_ports(host, count) + 1
    )
    return replace(
        common,
        ips=spec.ips,
        host=me.host,
        node_rank=me.node_rank,
        start_port=start,
        rendezvous_port=cli.rendezvous_port or start - 1,
        identity_source=me.source,
        port_source=port_source,
    )


def _explicit_port(cli: ClusterArgs, environ: Mapping[str, str]) -> tuple[int | None, str]:
    """Single node: a start port only when asked for; launch picks its own otherwise."""
    if cli.start_port is None and not environ.get("FLAGS_START_PORT", "").strip():
        return None, ""
    return resolve_start_port(cli.start_port, environ, None, cli.port_count)


class PlanFields(TypedDict):
    """The ``PlanOptions`` fields a ``NodeContext`` decides, as keyword arguments."""

    ips: tuple[str, ...]
    host: str | None
    node_rank: int | None
    start_port: int | None
    device: Device
    notes: tuple[str, ...]


def to_plan_kwargs(ctx: NodeContext) -> PlanFields:
    """The ``PlanOptions`` fields this context decides."""
    return {
        "ips": ctx.ips,
        "host": ctx.host,
        "node_rank": ctx.node_rank,
        "start_port": ctx.start_port,
        "device": ctx.device,
        "notes": ctx.notes(),
    }
