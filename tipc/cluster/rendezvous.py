"""A small rendezvous over TCP: every node says hello to node 0 before training.

Node 0 listens on ``<ips[0]>:<port>``; the others connect with retries and send
one JSON line. Node 0 waits until every node has arrived or the timeout ends,
compares what each sent with its own, and answers every peer with the same
verdict, so that all nodes stop together. Nothing here outlives the call: one
thread, sockets closed in ``finally``/``with``, every wait bounded.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

MAX_LINE = 64 * 1024
RETRY_S = 0.2  # between connection attempts while node 0 is not listening yet
HELLO_READ_S = 5.0  # a connected peer sends its hello at once
REPLY_GRACE_S = 5.0  # node 0 answers right after its own deadline at the latest

COMPARED = ("tipc_version", "config_sha256", "paddle_version", "mode", "ips", "start_port")


@dataclass(frozen=True, slots=True)
class Hello:
    rank: int
    host: str
    tipc_version: str
    config_sha256: str
    paddle_version: str
    mode: str = ""
    ips: tuple[str, ...] = ()
    start_port: int | None = None
    local_problems: tuple[str, ...] = ()  # this node's own failed checks (ports...)

    def to_wire(self) -> bytes:
        return (json.dumps(asdict(self)) + "\n").encode()

    @classmethod
    def from_wire(cls, data: Any) -> Hello:
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        try:
            kw["ips"] = tuple(kw.get("ips", ()))
            kw["local_problems"] = tuple(kw.get("local_problems", ()))
            hello = cls(**kw)
        except TypeError as exc:
            raise ValueError(str(exc)) from None
        if not isinstance(hello.rank, int):
            raise ValueError(f"rank {hello.rank!r} is not an integer")
        return hello


@dataclass(frozen=True, slots=True)
class RendezvousAnswer:
    ok: bool
    problems: tuple[str, ...]
    arrived: tuple[int, ...] = ()  # ranks node 0 heard from, node 0 included

    def to_wire(self) -> bytes:
        return (
            json.dumps({"ok": self.ok, "problems": list(self.problems), "arrived": list(self.arrived)}) + "\n"
        ).encode()


def compare(
    own: Hello, peers: Mapping[int, Hello], ips: tuple[str, ...], timeout: float, extra: tuple[str, ...] = ()
) -> RendezvousAnswer:
    """Node 0's judgement: who is missing, who differs, who failed locally. Pure."""
    problems = list(extra)
    problems += [f"node 0 ({own.host}): {p}" for p in own.local_problems]
    for rank in range(1, len(ips)):
        peer = peers.get(rank)
        if peer is None:
            problems.append(f"node {rank} ({ips[rank]}) never arrived within {timeout:g} s")
            continue
        who = f"node {rank} ({peer.host})"
        if peer.host != ips[rank]:
            problems.append(f"{who} says it is {peer.host}, but node {rank} of the list is {ips[rank]}")
        for name in COMPARED:
            mine, theirs = getattr(own, name), getattr(peer, name)
            if mine != theirs:
                problems.append(f"{who} has {name} {_show(theirs)}, node 0 ({own.host}) has {_show(mine)}")
        problems += [f"{who}: {p}" for p in peer.local_problems]
    arrived = (0, *sorted(peers))
    return RendezvousAnswer(not problems, tuple(problems), arrived)


def _show(value: Any) -> str:
    return repr(",".join(value)) if isinstance(value, tuple) else repr(value)


def rendezvous(own: Hello, ips: tuple[str, ...], port: int, timeout: float) -> RendezvousAnswer:
    """Node 0 serves, the others join; one node alone only judges itself."""
    if own.rank == 0:
        return serve(own, ips, port, timeout)
    return join(own, ips, port, timeout)


def serve(own: Hello, ips: tuple[str, ...], port: int, timeout: float) -> RendezvousAnswer:
    deadline = time.monotonic() + timeout
    peers: dict[int, Hello] = {}
    extra: list[str] = []
    conns: list[socket.socket] = []
    try:
        with socket.create_server((ips[0], port)) as server:
            while len(peers) < len(ips) - 1 and (left := deadline - time.monotonic()) > 0:
                server.settimeout(left)
                try:
                    conn, addr = server.accept()
                except TimeoutError:
                    break
                conns.append(conn)
                _admit(conn, addr[0], ips, peers, extra, min(left, HELLO_READ_S))
        verdict = compare(own, peers, ips, timeout, tuple(extra))
        for conn in conns:
            with contextlib.suppress(OSError):  # that peer gave up already; it reports its own timeout
                conn.sendall(verdict.to_wire())
        return verdict
    finally:
        for conn in conns:
            conn.close()


def _admit(
    conn: socket.socket, addr: str, ips: tuple[str, ...], peers: dict[int, Hello], extra: list[str], read_timeout: float
) -> None:
    """Read one peer's hello into ``peers``, or say in ``extra`` why it was not one."""
    try:
        hello = Hello.from_wire(json.loads(_read_line(conn, time.monotonic() + read_timeout)))
    except (OSError, ValueError) as exc:
        extra.append(f"a connection from {addr} sent no valid hello ({exc})")
        return
    if not 1 <= hello.rank < len(ips):
        extra.append(
            f"{hello.host} (from {addr}) claims rank {hello.rank}, but the list "
            f"{','.join(ips)} has ranks 1..{len(ips) - 1} for peers"
        )
    elif hello.rank in peers:
        extra.append(f"two nodes claim rank {hello.rank}: {peers[hello.rank].host} and {hello.host}")
    else:
        peers[hello.rank] = hello


def join(own: Hello, ips: tuple[str, ...], port: int, timeout: float) -> RendezvousAnswer:
    deadline = time.monotonic() + timeout
    sock = _connect_until((ips[0], port), deadline)
    if sock is None:
        return RendezvousAnswer(False, (f"node 0 ({ips[0]}:{port}) did not answer within {timeout:g} s",))
    with sock:
        try:
            sock.sendall(own.to_wire())
            reply = json.loads(_read_line(sock, time.monotonic() + timeout + REPLY_GRACE_S))
            return RendezvousAnswer(bool(reply["ok"]), tuple(reply["problems"]), tuple(reply["arrived"]))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return RendezvousAnswer(False, (f"node 0 ({ips[0]}:{port}) gave no verdict ({exc})",))


def _connect_until(addr: tuple[str, int], deadline: float) -> socket.socket | None:
    while (left := deadline - time.monotonic()) > 0:
        try:
            return socket.create_connection(addr, timeout=min(left, 2.0))
        except OSError:
            time.sleep(min(RETRY_S, max(0.0, deadline - time.monotonic())))
    return None


def _read_line(sock: socket.socket, deadline: float) -> str:
    """One ``\\n``-terminated line, bounded in size and time."""
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out waiting for a line")
        sock.settimeout(left)
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError("connection closed before a full line")
        data += chunk
        if len(data) > MAX_LINE:
            raise ValueError(f"line longer than {MAX_LINE} bytes")
    return data.split(b"\n", 1)[0].decode()
