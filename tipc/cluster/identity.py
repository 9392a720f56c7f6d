"""Which node of the list this process is: from options, the scheduler, or the interfaces.

Precedence: ``--host``/``--node-rank`` > the scheduler's environment > the one
address of the list that this machine owns. Owning two of them (several nodes
on one machine) is an error that names the option that settles it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from tipc.cluster.topology import SOURCE_PADDLE, SOURCE_SLURM, ClusterSpec, Resolver
from tipc.errors import ClusterError

FIX = "pass --host <this node's address> or --node-rank <its index in the list>"

# A scheduler's rank variable indexes that scheduler's own list only.
_RANK_VARS = {SOURCE_SLURM: "SLURM_NODEID", SOURCE_PADDLE: "PADDLE_TRAINER_ID"}
# A host variable is an address, checked against whichever list is in use.
_HOST_VARS = ("POD_IP",)


@dataclass(frozen=True, slots=True)
class Identity:
    host: str
    node_rank: int
    source: str  # "--host", "--node-rank", "SLURM_NODEID", "POD_IP", "local interfaces", ...


def local_addresses(fib_trie: Path = Path("/proc/net/fib_trie")) -> frozenset[str]:
    """This machine's addresses and local networks (``127.0.0.0/8``), without extra packages."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None):
            found.add(str(info[4][0]))
    except OSError:
        pass  # an unresolvable host name only means fewer candidates
    with contextlib.suppress(OSError):  # not Linux: the host name's addresses are all we have
        found |= parse_fib_trie(fib_trie.read_text())
    return frozenset(found)


def parse_fib_trie(text: str) -> set[str]:
    """``/proc/net/fib_trie`` → the ``host LOCAL`` routes as networks (``127.0.0.0/8``)."""
    found, address = set(), ""
    for line in text.splitlines():
        token = line.strip()
        if token.startswith("|-- "):
            address = token[4:]
        elif token.endswith("host LOCAL") and address:
            found.add(str(ipaddress.ip_network(f"{address}{token.split()[0]}", strict=False)))
    return found


def owned(ip: str, local: Iterable[str]) -> bool:
    address = ipaddress.ip_address(ip)
    return any(address in ipaddress.ip_network(net, strict=False) for net in local)


def this_node(
    spec: ClusterSpec,
    *,
    host: str | None,
    node_rank: int | None,
    environ: Mapping[str, str],
    local: Iterable[str],
    resolver: Resolver,
) -> Identity:
    """This node's address and rank in ``spec`` (which must list at least one node)."""
    if host is not None or node_rank is not None:
        return _from_values(spec, host, node_rank, "--host", "--node-rank", resolver)
    env_host = next(((v, environ[v]) for v in _HOST_VARS if environ.get(v)), None)
    rank_var = _RANK_VARS.get(spec.source)
    env_rank = environ.get(rank_var) if rank_var else None
    if env_host or env_rank:
        rank = _parse_rank(env_rank, rank_var or "") if env_rank else None
        return _from_values(
            spec, env_host[1] if env_host else None, rank, env_host[0] if env_host else "", rank_var or "", resolver
        )
    return _from_interfaces(spec, local)


def _parse_rank(text: str, source: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ClusterError(f"{source}={text!r} is not a node index (expected 0, 1, ...)") from None


def _from_values(
    spec: ClusterSpec, host: str | None, rank: int | None, host_src: str, rank_src: str, resolver: Resolver
) -> Identity:
    listed = f"the node list {','.join(spec.ips)} (from {spec.source})"
    by_rank = None
    if rank is not None:
        if not 0 <= rank < len(spec.ips):
            raise ClusterError(f"{rank_src}={rank} is outside {listed}; expected 0..{len(spec.ips) - 1}")
        by_rank = Identity(spec.ips[rank], rank, rank_src)
    if host is None:
        assert by_rank is not None
        return by_rank
    address = _address(host, host_src, resolver)
    if address not in spec.ips:
        raise ClusterError(
            f"{host_src}={host} is not in {listed}; pass the address this node "
            "has in that list, or fix the list (--ips)"
        )
    by_host = Identity(address, spec.ips.index(address), host_src)
    if by_rank is not None and by_rank.node_rank != by_host.node_rank:
        raise ClusterError(
            f"{host_src}={host} is node {by_host.node_rank} of {listed}, but "
            f"{rank_src}={rank}; give one of them, or make them agree"
        )
    return by_host


def _address(host: str, source: str, resolver: Resolver) -> str:
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        try:
            return str(ipaddress.ip_address(resolver(host)))
        except ClusterError as exc:
            raise ClusterError(f"{source}: {exc}") from None


def _from_interfaces(spec: ClusterSpec, local: Iterable[str]) -> Identity:
    local = tuple(local)
    mine = [ip for ip in spec.ips if owned(ip, local)]
    listed = f"the node list {','.join(spec.ips)} (from {spec.source})"
    if len(mine) == 1:
        return Identity(mine[0], spec.ips.index(mine[0]), "local interfaces")
    if not mine:
        raise ClusterError(
            f"none of this machine's addresses ({', '.join(sorted(local)) or 'none found'}) "
            f"is in {listed}; {FIX}, or give the right list with --ips"
        )
    raise ClusterError(f"this machine owns {' and '.join(mine)} of {listed}, so it cannot tell which node it is; {FIX}")
