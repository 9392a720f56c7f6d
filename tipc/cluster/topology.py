"""Which nodes take part, in rank order, and where that list came from.

Precedence: ``--ips`` > the scheduler's environment (Slurm, then PaddleCloud /
Kubernetes) > the config's ``gpu_list`` ``ips;gpus`` entry. The source is kept so
that plan notes and reports can say why these nodes were used.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from tipc.cluster.hostlist import expand_hostlist
from tipc.errors import ClusterError

Resolver = Callable[[str], str]

SOURCE_CLI = "--ips"
SOURCE_SLURM = "SLURM_JOB_NODELIST"
SOURCE_PADDLE = "PADDLE_TRAINERS"
SOURCE_CONFIG = "config gpu_list"
SOURCE_NONE = "none"

# paddle.distributed.launch swaps 127.0.0.1 for the node's own address, so two
# nodes on one machine must use other loopback addresses.
_LAUNCH_REWRITES = ipaddress.ip_address("127.0.0.1")


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    ips: tuple[str, ...]  # addresses in rank order (host names resolved)
    source: str  # one of the SOURCE_* names
    names: tuple[str, ...] = ()  # as the source wrote them (host names before resolving)

    @property
    def multi_node(self) -> bool:
        return len(self.ips) > 1

    def describe(self) -> str:
        if not self.ips:
            return "single node (no node list given)"
        shown = ",".join(self.ips)
        if self.names != self.ips:
            shown += f" ({','.join(self.names)})"
        return f"{len(self.ips)} node(s) {shown} from {self.source}"


def default_resolver(name: str) -> str:
    try:
        return socket.gethostbyname(name)
    except OSError as exc:
        raise ClusterError(f"cannot resolve host {name!r}: {exc}") from None


def ips_from_gpu_list(entries: Iterable[str]) -> tuple[str, ...]:
    """The node list of the first ``ips;gpus`` entry, read by structure (not by length)."""
    for entry in entries:
        if ";" in entry:
            return split_list(entry.split(";", 1)[0], "config gpu_list")
    return ()


_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def node_name_problem(item: str) -> str:
    """Why ``item`` is neither an IPv4 address nor a host name ("" when it is one).

    Checked by its spelling, before anything resolves it: a resolver reads ``1.2.3`` as
    ``1.2.0.3``, and ``paddle.distributed.launch --ips`` cannot take IPv6 addresses."""
    if ":" in item:
        return "is an IPv6 address: paddle.distributed.launch --ips takes IPv4 addresses or host names"
    labels = item.split(".")
    if all(label.isdigit() for label in labels):
        if len(labels) == 4 and all(int(label) <= 255 for label in labels):
            return ""
        return "is not an IPv4 address (expected four numbers 0-255, e.g. 10.0.0.1)"
    if len(item) > 253 or not all(_HOST_LABEL.fullmatch(label) for label in labels) or labels[-1].isdigit():
        return "is not a host name (letters, digits and '-' between dots)"
    return ""


def split_list(text: str, source: str) -> tuple[str, ...]:
    items = tuple(item.strip() for item in text.split(","))
    if not text.strip() or any(not item for item in items):
        raise ClusterError(f"{source}={text!r}: expected a comma list of node addresses, e.g. 10.0.0.1,10.0.0.2")
    for item in items:
        problem = node_name_problem(item)
        if problem:
            raise ClusterError(f"{source}={text!r}: {item!r} {problem}")
    return items


def node_list(
    cli_ips: Sequence[str],
    environ: Mapping[str, str],
    config_ips: Sequence[str] = (),
    resolver: Resolver = default_resolver,
) -> ClusterSpec:
    """The node list from the first source that gives one, names resolved and validated."""
    names, source = _first_source(tuple(cli_ips), environ, tuple(config_ips))
    if not names:
        return ClusterSpec((), SOURCE_NONE)
    ips = tuple(_resolve(name, source, resolver) for name in names)
    _validate(ips, names, source)
    return ClusterSpec(ips, source, names)


def _first_source(
    cli_ips: tuple[str, ...], environ: Mapping[str, str], config_ips: tuple[str, ...]
) -> tuple[tuple[str, ...], str]:
    if cli_ips:
        return cli_ips, SOURCE_CLI
    # A scheduler's one-node allocation is not a multi-node job: fall through.
    slurm = environ.get("SLURM_JOB_NODELIST") or environ.get("SLURM_NODELIST")
    if slurm and len(names := expand_hostlist(slurm)) > 1:
        return names, SOURCE_SLURM
    trainers = environ.get("PADDLE_TRAINERS")
    if trainers and len(names := split_list(trainers, SOURCE_PADDLE)) > 1:
        return names, SOURCE_PADDLE
    return config_ips, SOURCE_CONFIG


def _resolve(name: str, source: str, resolver: Resolver) -> str:
    if _is_address(name):
        return str(ipaddress.ip_address(name))
    try:
        address = resolver(name)
    except ClusterError as exc:
        raise ClusterError(f"{exc} (node list from {source})") from None
    return str(ipaddress.ip_address(address))


def _validate(ips: tuple[str, ...], names: tuple[str, ...], source: str) -> None:
    seen: dict[str, str] = {}
    for ip, name in zip(ips, names, strict=False):
        if ip in seen:
            raise ClusterError(
                f"node list from {source} names {ip} twice ({seen[ip]!r} and {name!r}); "
                "every node needs its own address"
            )
        seen[ip] = name
    if len(ips) < 2:
        return
    _check_loopback_names(ips, names, source)
    if any(ipaddress.ip_address(ip) == _LAUNCH_REWRITES for ip in ips):
        raise ClusterError(
            f"node list from {source} ({','.join(names)}) contains 127.0.0.1, which "
            "paddle.distributed.launch replaces by the machine's address; for several nodes on "
            "one machine use other loopback addresses, e.g. --ips 127.0.0.2,127.0.0.3"
        )


def _check_loopback_names(ips: tuple[str, ...], names: tuple[str, ...], source: str) -> None:
    """A host name that resolves to loopback here (Debian's ``127.0.1.1`` line in /etc/hosts)
    names this machine only: the other nodes would look for it elsewhere and never meet."""
    for ip, name in zip(ips, names, strict=False):
        if ipaddress.ip_address(ip).is_loopback and not _is_address(name):
            raise ClusterError(
                f"node list from {source}: host {name!r} resolves to the loopback address {ip} on "
                "this machine, which the other nodes cannot reach; map it to its network address "
                "(/etc/hosts) or give the addresses with --ips"
            )


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
