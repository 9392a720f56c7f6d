"""Drive headless Chromium over ``--remote-debugging-pipe`` with the stdlib only.

The pipe transport is NUL-terminated JSON on the child's fds 3 (commands in) and
4 (replies and events out): no websocket, no port, no network.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
    "--remote-debugging-pipe",
)


class Browser:
    def __init__(self, binary: str, profile: Path, timeout: float = 30.0) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()

        def wire_fds() -> None:  # runs in the child: fds 3/4 are the protocol's fixed numbers
            high_r, high_w = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child_r, from_child_w))
            os.dup2(high_r, 3)  # dup2 leaves the copies inheritable; the originals stay close-on-exec
            os.dup2(high_w, 4)

        profile.mkdir(parents=True, exist_ok=True)
        self.stderr_path = profile / "chromium.stderr"  # a file, not a pipe: a full pipe would stall chromium
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                close_fds=False,
                preexec_fn=wire_fds,
            )
        os.close(to_child_r)
        os.close(from_child_w)
        self.timeout, self._buf, self._next_id = timeout, b"", 0
        self.events: list[dict[str, Any]] = []

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise EOFError(f"chromium closed the pipe: {self.stderr_path.read_text(errors='replace')[-2000:]}")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, event: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        for seen in self.events:
            if seen.get("method") == event:
                return seen
        while True:
            msg = self._read_message(deadline)
            self.events.append(msg)
            if msg.get("method") == "Page.javascriptDialogOpening":  # an open dialog would stall the load
                self.send("Page.handleJavaScriptDialog", msg.get("sessionId"), accept=True)
            if msg.get("method") == event:
                return msg

    def open(self, url: str) -> str:
        """A new tab on ``url`` with console, log and network events on; returns its session id."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session)
        self.send(
            "Emulation.setDeviceMetricsOverride", session, width=1400, height=1000, deviceScaleFactor=1, mobile=False
        )
        self.send("Page.navigate", session, url=url)
        self.wait_for("Page.loadEventFired")
        return session

    def screenshot(self, session: str, path: Path) -> None:
        data = self.send("Page.captureScreenshot", session, format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def evaluate(self, session: str, expression: str) -> Any:
        return self.send("Runtime.evaluate", session, expression=expression, returnByValue=True)["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, failed loads, dialogs and requests leaving the machine."""
        out = []
        for e in self.events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append(f"console.{p['type']}: {[a.get('value') for a in p.get('args', [])]}")
            elif method == "Runtime.exceptionThrown":
                out.append(f"exception: {p.get('exceptionDetails', {}).get('text')}")
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif method == "Network.loadingFailed":
                out.append(f"failed load: {p.get('errorText')} ({p.get('type')})")
            elif method == "Page.javascriptDialogOpening":
                out.append(f"dialog: {p.get('message')}")
            elif method == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:", "about:")):
                    out.append(f"request leaves the file: {url}")
        return out

    def close(self) -> None:
        with contextlib.suppress(OSError, EOFError, TimeoutError, RuntimeError):
            self.send("Browser.close")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)
