"""Launch ports: where they come from, whether they are free, and who holds them.

A port already taken makes ``paddle.distributed.launch`` wait forever (the bash's
B20); checking by binding first turns that hang into an error naming the port.
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Callable, Mapping
from pathlib import Path

from tipc.errors import ClusterError

AUTO_BASE = 17000  # the range PaddleOCR's fleet doc recommends (10000-20000)
AUTO_LIMIT = 20000

FindPorts = Callable[[str | None, int], int]  # (host, count) -> start; None: all addresses


def check_ports(host: str | None, start: int, count: int) -> list[str]:
    """Problems with ports ``start .. start+count-1`` on ``host`` (all addresses when None)."""
    problems = []
    for port in range(start, start + count):
        problem = _bind_problem(host or "", port)
        if problem:
            problems.append(problem)
    return problems


def find_free_range(host: str | None, count: int, base: int = AUTO_BASE, limit: int = AUTO_LIMIT) -> int:
    """The lowest ``start >= base`` whose ``count`` ports are all free on ``host``."""
    start = base
    while start + count <= limit:
        taken = [p for p in range(start, start + count) if _bind_problem(host or "", p)]
        if not taken:
            return start
        start = taken[-1] + 1
    raise ClusterError(
        f"no {count} consecutive free ports in {base}-{limit} on {host or 'this machine'}; "
        "pass --start-port or set FLAGS_START_PORT"
    )


def resolve_start_port(
    cli: int | None, environ: Mapping[str, str], host: str | None, count: int, find: FindPorts = find_free_range
) -> tuple[int, str]:
    """``--start-port`` > ``FLAGS_START_PORT`` > a free range found here; with its source."""
    if cli is not None:
        return _in_range(cli, "--start-port", count), "--start-port"
    text = environ.get("FLAGS_START_PORT", "").strip()
    if text:
        try:
            value = int(text)
        except ValueError:
            raise ClusterError(f"FLAGS_START_PORT={text!r} is not a port number") from None
        return _in_range(value, "FLAGS_START_PORT", count), "FLAGS_START_PORT"
    return find(host, count), f"first free range from {AUTO_BASE} on {host or 'this machine'}"


def _in_range(port: int, source: str, count: int) -> int:
    if not 1024 <= port <= 65535 - count:
        raise ClusterError(f"{source}={port}: expected a port in 1024..{65535 - count}")
    return port


def _bind_problem(host: str, port: int) -> str:
    # SO_REUSEADDR so that a recently closed connection (TIME_WAIT) is not a false
    # alarm; Linux still refuses the bind while anyone listens on the port.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            where = f"{host or '*'}:{port}"
            if exc.errno == errno.EADDRINUSE:
                owner = port_owner(port)
                return f"port {where} is taken" + (f" by {owner}" if owner else "")
            if exc.errno == errno.EADDRNOTAVAIL:
                return f"{host} is not an address of this machine (binding {where} failed)"
            return f"cannot bind {where}: {exc.strerror}"
    return ""


def port_owner(port: int, proc: Path = Path("/proc")) -> str | None:
    """``"pid 123 (python)"`` for the local listener on ``port``, when /proc shows it."""
    inodes = _listening_inodes(port, proc)
    if not inodes:
        return None
    for pid_dir in proc.iterdir():
        if not pid_dir.name.isdigit():
            continue
        if _socket_links(pid_dir) & {f"socket:[{inode}]" for inode in inodes}:
            try:
                name = (pid_dir / "comm").read_text().strip()
            except OSError:
                name = "?"
            return f"pid {pid_dir.name} ({name})"
    return None


def _socket_links(pid_dir: Path) -> set[str]:
    links: set[str] = set()
    try:
        fds = list((pid_dir / "fd").iterdir())
    except OSError:
        return links  # another user's process or one that just exited
    for fd in fds:
        try:
            links.add(os.readlink(fd))
        except OSError:
            continue  # closed since the listing (the listing's own descriptor, for one)
    return links


def _listening_inodes(port: int, proc: Path) -> set[str]:
    inodes = set()
    for table in ("net/tcp", "net/tcp6"):
        try:
            lines = (proc / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A = LISTEN
                inodes.add(inode)
    return inodes
