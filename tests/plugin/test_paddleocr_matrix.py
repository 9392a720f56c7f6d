"""The whole PaddleOCR model zoo in one collection: ``pytest tipc --config <checkout>/test_tipc/configs``.

Runs only where ``TIPC_PADDLEOCR`` names a PaddleOCR checkout (read, never written). Every config
is collected or is its own error: nothing aborts the collection, and each mode takes under 5 s.
Run with ``-s`` to see how many configs were collected, how many errored, and why.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

import tipc
from tipc.config.modes import MODES

CHECKOUT = os.environ.get("TIPC_PADDLEOCR", "")
BUDGET_SECONDS = 5.0

pytestmark = pytest.mark.skipif(
    not CHECKOUT, reason="TIPC_PADDLEOCR is not set: point it at a PaddleOCR checkout to collect its whole zoo"
)


def collect(mode: str, workdir: Path) -> tuple[subprocess.CompletedProcess[str], float, Path]:
    junit = workdir / f"{mode}.xml"
    (workdir / "tox.ini").write_text("[pytest]\n")
    source = str(Path(tipc.__file__).resolve().parents[1])  # this checkout's tipc, whatever is installed
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (source, os.environ.get("PYTHONPATH"))))}
    argv = [sys.executable, "-m", "pytest", str(Path(tipc.__file__).resolve().parent), "-c", "tox.ini"]
    argv += ["-p", "no:cacheprovider", "--config", f"{CHECKOUT}/test_tipc/configs", "--mode", mode]
    argv += ["--collect-only", "-q", f"--junitxml={junit}"]
    start = time.monotonic()
    done = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=120)
    return done, time.monotonic() - start, junit


@pytest.mark.parametrize("mode", MODES)
def test_the_whole_zoo_collects_without_an_abort(mode, tmp_path):
    done, seconds, junit = collect(mode, tmp_path)
    out = done.stdout
    assert "Interrupted" not in out and "UsageError" not in done.stderr, out + done.stderr
    assert done.returncode in (0, 1), out + done.stderr  # 1: configs that could not be planned
    (selection,) = [line for line in out.splitlines() if line.startswith("tipc: ") and " configs: " in line]
    (collected,) = [line for line in out.splitlines() if " collected" in line]
    # Each error is "<path>[:<line>]: <what>": told here by what, counted.
    reasons = Counter(
        re.sub(r"^\d+: ", "", (case.find("error").text or "").partition(": ")[2])
        for case in ET.parse(junit).getroot().iter("testcase")
        if case.find("error") is not None
    )
    print(f"\n{mode}: {selection.removeprefix('tipc: ')}; {collected.strip()}; {seconds:.2f} s")
    for reason, count in reasons.most_common():
        print(f"    {count} × {reason}")
    assert seconds < BUDGET_SECONDS
