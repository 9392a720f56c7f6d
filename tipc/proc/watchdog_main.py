"""The watchdog's own process (``tipc.proc.watchdog``): read the harness's pipe to its end; an end
without a goodbye means the harness died, and the run's processes are killed.

It imports nothing until it must kill. It starts beside the run's first stage, and every module
it loads is CPU taken from that stage: with the harness's modules (pathlib, subprocess, the
process tree) its start took ~20 ms of CPU and made a quick first stage ~15 ms slower; without
them, a few ms.
"""

from __future__ import annotations

import sys

GOODBYE = b"goodbye\n"


def serve(marker: str, grace: float) -> None:
    if not sys.stdin.buffer.read().endswith(GOODBYE):
        from tipc.proc.watchdog import kill_marked

        kill_marked(marker, grace)
