"""While a multi-node stage runs, every node hears from node 0 and node 0 from every node.

``paddle.distributed.launch`` does not say which node went away: a killed node 1 ends node 0's training
with "Process abort signal", and a killed node 0 leaves node 1 retrying until the stage's time limit.
So each node's tipc keeps one TCP connection to node 0 for the stage's length (node 0 listens on the
rendezvous port, free once the preflight is over), and both ends send a beat every second. A node whose
connection closes without a goodbye (its tipc died) or that sends nothing for ``--node-timeout`` seconds
(its machine or its network went away) is silent: ``silent()`` names it and when, and the stage's
supervision stops the stage (``tipc.proc.child``'s ``abort``); its record is ``infra`` (``tipc.run.infra``).
A node that never joined within the bound is silent too. One thread; every wait bounded.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType

BEAT_S = 1.0
BEAT, BYE = b".", b"!"  # one byte each: a beat, and "my stage ended, I am not gone"


@dataclass
class _Peer:
    rank: int
    sock: socket.socket | None = None
    heard: float = field(default_factory=time.monotonic)
    done: bool = False


class NodeWatch:
    """Node ``rank``'s watch over the others of ``ips`` through node 0's ``port``; a context manager."""

    def __init__(self, ips: tuple[str, ...], rank: int, port: int, timeout: float) -> None:
        self.ips, self.rank, self.port, self.timeout = ips, rank, port, timeout
        self._lost = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tipc-node-watch", daemon=True)
        self._peers: dict[int, _Peer] = {}
        self._server: socket.socket | None = None

    def silent(self) -> str:
        """ "" while every node answers; else which went silent, and when."""
        return self._lost

    def __enter__(self) -> NodeWatch:
        if self.rank == 0:
            try:
                self._server = socket.create_server((self.ips[0], self.port))
            except OSError:  # the port is taken (the preflight was skipped): the stage runs unwatched, as before
                return self
            self._server.setblocking(False)
            self._peers = {k: _Peer(k) for k in range(1, len(self.ips))}
        else:
            self._peers = {0: _Peer(0)}
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join(timeout=BEAT_S * 5)
        for peer in self._peers.values():
            if peer.sock is not None:
                with contextlib.suppress(OSError):
                    peer.sock.sendall(BYE)
                peer.sock.close()
        if self._server is not None:
            self._server.close()

    def _lose(self, peer: _Peer, how: str) -> None:
        if not self._lost:
            when = time.strftime("%H:%M:%S")
            self._lost = f"node {peer.rank} ({self.ips[peer.rank]}) went silent at {when}: {how}"

    def _run(self) -> None:
        events = selectors.DefaultSelector()
        if self._server is not None:
            events.register(self._server, selectors.EVENT_READ, None)
        next_beat = 0.0
        try:
            while not self._stop.is_set() and not self._lost:
                now = time.monotonic()
                if self.rank != 0 and self._peers[0].sock is None:
                    self._join(events)
                if now >= next_beat:
                    self._beat()
                    next_beat = now + BEAT_S
                for key, _ in events.select(timeout=BEAT_S / 4):
                    if key.data is None:
                        self._accept(events)
                    else:
                        self._hear(key.data, events)
                self._check(time.monotonic())
        finally:
            events.close()

    def _join(self, events: selectors.BaseSelector) -> None:
        """A peer: connect to node 0 (it may not listen yet: tried again every beat, until the bound)."""
        try:
            sock = socket.create_connection((self.ips[0], self.port), timeout=BEAT_S)
        except OSError:
            return
        sock.sendall(f"{self.rank}\n".encode())
        sock.setblocking(False)
        self._peers[0].sock = sock
        self._peers[0].heard = time.monotonic()
        events.register(sock, selectors.EVENT_READ, self._peers[0])

    def _accept(self, events: selectors.BaseSelector) -> None:
        """Node 0: a peer arrives and says its rank (one line, at once)."""
        assert self._server is not None
        try:
            conn, _ = self._server.accept()
            conn.settimeout(BEAT_S * 5)
            rank = int(conn.recv(16).split(b"\n")[0])
        except (OSError, ValueError):
            return
        peer = self._peers.get(rank)
        if peer is None or peer.sock is not None:
            conn.close()
            return
        conn.setblocking(False)
        peer.sock, peer.heard = conn, time.monotonic()
        events.register(conn, selectors.EVENT_READ, peer)

    def _hear(self, peer: _Peer, events: selectors.BaseSelector) -> None:
        assert peer.sock is not None
        try:
            data = peer.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if BYE in data:
            peer.done = True
        elif not data and not peer.done:
            self._lose(peer, "its connection closed without a goodbye (its tipc or its machine stopped)")
        if not data or peer.done:
            events.unregister(peer.sock)
            return
        peer.heard = time.monotonic()

    def _beat(self) -> None:
        for peer in self._peers.values():
            if peer.sock is not None and not peer.done:
                with contextlib.suppress(OSError):  # a closed peer is found by its silence or its close
                    peer.sock.sendall(BEAT)

    def _check(self, now: float) -> None:
        for peer in self._peers.values():
            if not peer.done and now - peer.heard > self.timeout:
                joined = "nothing heard" if peer.sock is not None else "it never joined the watch"
                self._lose(peer, f"{joined} for {self.timeout:g} s (--node-timeout)")
