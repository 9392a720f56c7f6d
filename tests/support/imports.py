"""What a fresh interpreter imports: checked in a child, since the test process has everything loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def loaded_after(code: str, *packages: str, args: tuple[str, ...] = ()) -> list[str]:
    """The modules of ``packages`` that a fresh interpreter holds after running ``code``."""
    listing = (
        f"\nimport json, sys\npackages = {packages!r}\n"
        "print(json.dumps(sorted(m for m in sys.modules if any(m == p or m.startswith(p + '.') for p in packages))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code + listing, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])
