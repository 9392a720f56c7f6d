import socket

import pytest


@pytest.fixture
def free_port():
    """A port the kernel just handed out on 127.0.0.2 and 127.0.0.3 (so likely free on both)."""

    def pick(count: int = 1) -> int:
        for _ in range(50):
            with socket.socket() as s:
                s.bind(("127.0.0.2", 0))
                base = s.getsockname()[1]
            if base + count > 65000:
                continue
            if all(_free(h, p) for h in ("127.0.0.2", "127.0.0.3") for p in range(base, base + count)):
                return base
        raise RuntimeError("no free port range found")

    return pick


def _free(host, port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


@pytest.fixture
def listener():
    """Listen on (host, port) for the test's duration."""
    sockets = []

    def listen(host, port):
        s = socket.create_server((host, port))
        sockets.append(s)
        return s

    yield listen
    for s in sockets:
        s.close()
