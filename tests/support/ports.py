"""Ports for two nodes on one machine (127.0.0.2 and 127.0.0.3)."""

from __future__ import annotations

import socket

IPS = ("127.0.0.2", "127.0.0.3")


def launch_port(ips: tuple[str, ...] = IPS) -> int:
    """A launch port free on every address, with the rendezvous port (one below) free too."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind((ips[0], 0))
            port = s.getsockname()[1] + 1
        if port < 65000 and all(free(ip, p) for ip in ips for p in (port - 1, port)):
            return port
    raise RuntimeError(f"no free port pair on {', '.join(ips)}")


def free(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True
