"""Shared behaviour of the fake target's scripts (stdlib only, no paddle).

The scripts honour the PaddleOCR CLI contract closely enough for tipc's plan
to drive them, and misbehave on demand through the ``TIPC_FAKE`` environment
variable: a comma-separated list of ``<kind>:<action>`` where kind is one of
train, eval, export, infer and action one of

* ``fail``        exit 1 after the normal output (train still writes train.log,
                  as a crashed real training does)
* ``fail-once=F`` fail as ``fail`` does when the file F does not exist, creating it: a flaky
                  stage that passes when run again
* ``hang``        print one line, then sleep silently forever
* ``sleep=S``     sleep S seconds before the normal work
* ``grandchild``  spawn two grandchildren that ignore SIGTERM and sleep: one in
                  the process group, one escaped with setsid(); their pids are
                  appended to the file named by ``TIPC_FAKE_PIDS``
* ``ignore-term`` ignore SIGTERM
* ``devices``     print the ``CUDA_VISIBLE_DEVICES`` the script was given (``unset`` when absent),
                  with the wall-clock window it ran in: ``fake devices: <ids> <start> <end>``
* ``slower=F``    (infer) a benchmark block whose inference time is F times the usual
* ``fill``        (train) at the end, fill the disk under its save dir, 64 MiB at most (a stage
                  whose outputs take the last free byte as it exits)
* ``gpu``         (infer) a simulated GPU: ``--use_gpu True`` runs when ``CUDA_VISIBLE_DEVICES``
                  names a device, instead of failing as a CPU-only build
* ``empty``       (infer) every prediction empty: the model recognised nothing, and exits 0
* ``zero-log``    at the end, replace the log its output goes to (and train's own train.log) with
                  a link to ``/dev/zero``: a log that never ends

e.g. ``TIPC_FAKE=train:fail`` or ``TIPC_FAKE=export:hang,infer:sleep=0.5``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

_STARTED = time.time()  # the script's start: every fake script imports this module first
_SLEEPER = "import os, signal, sys, time\n{setsid}signal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(3600)\n"


def actions(kind: str) -> dict[str, str]:
    """The actions TIPC_FAKE asks of this kind of script: {action: argument}."""
    wanted = {}
    for item in filter(None, os.environ.get("TIPC_FAKE", "").split(",")):
        target, _, action = item.strip().partition(":")
        if target == kind:
            name, _, arg = action.partition("=")
            wanted[name] = arg
    return wanted


def log(message: str) -> str:
    line = f"[{time.strftime('%Y/%m/%d %H:%M:%S')}] ppocr INFO: {message}"
    print(line, flush=True)
    return line


def misbehave_before(kind: str) -> dict[str, str]:
    """Apply everything that happens before the script's work; return the actions."""
    todo = actions(kind)
    if "ignore-term" in todo:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "grandchild" in todo:
        _spawn_grandchildren()
    if "sleep" in todo:
        time.sleep(float(todo["sleep"] or 1))
    if "hang" in todo:
        log(f"{kind} started")
        while True:
            time.sleep(3600)
    return todo


def finish(todo: dict[str, str], save: str = "") -> None:
    if "zero-log" in todo:
        logs = [os.readlink("/proc/self/fd/1")] + ([os.path.join(save, "train.log")] if save else [])
        for path in logs:
            os.remove(path)
            os.symlink("/dev/zero", path)
    if "fill" in todo and save:
        with open(os.path.join(save, "fake_filler"), "ab") as f:
            try:
                for _ in range(64 * 256):
                    f.write(b"\0" * 4096)
                    f.flush()
            except OSError:
                pass
    if "devices" in todo:
        # Printed at the end so that the window covers the whole stage, sleep included.
        seen = os.environ.get("CUDA_VISIBLE_DEVICES", "unset") or "unset"
        print(f"fake devices: {seen} {_STARTED} {time.time()}", flush=True)
    once = todo.get("fail-once")
    if "fail" in todo or (once is not None and not os.path.exists(once)):
        if once is not None:
            open(once, "w").close()
        print("Traceback (most recent call last):\nRuntimeError: fake failure (TIPC_FAKE)", flush=True)
        sys.exit(1)


def _spawn_grandchildren() -> None:
    pids = []
    for setsid in ("", "os.setsid()\n"):
        child = subprocess.Popen([sys.executable, "-c", _SLEEPER.format(setsid=setsid)])
        pids.append(child.pid)
    if os.environ.get("TIPC_FAKE_PIDS"):
        with open(os.environ["TIPC_FAKE_PIDS"], "a") as f:
            f.write("".join(f"{pid}\n" for pid in pids))


def overrides(argv: list[str]) -> dict[str, str]:
    """``-c <yml> -o k=v k=v ...`` → {k: v}; checks that the yml exists, like the real tools."""
    if "-c" not in argv or not os.path.isfile(argv[argv.index("-c") + 1]):
        sys.exit(f"fake: -c <existing yml> is required, got {argv}")
    pairs = argv[argv.index("-o") + 1 :] if "-o" in argv else []
    return dict(p.split("=", 1) for p in pairs if "=" in p)


def require_checkpoint(prefix: str) -> None:
    if not os.path.isfile(prefix + ".pdparams"):
        print(f"AssertionError: The {prefix}.pdparams does not exists!", flush=True)
        sys.exit(1)
