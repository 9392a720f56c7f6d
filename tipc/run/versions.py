"""The stage interpreter's Python and paddle versions, as one JSON line.

Run by the stage interpreter by path (``python versions.py``): it imports nothing of
tipc, which that interpreter may not have. Imported by the harness when the stages
run in its own environment: ``paddle_from_metadata`` then answers in-process.
tipc never imports paddle; this script does only for a paddle installed without
metadata (a source build on ``PYTHONPATH``) or under both names, to tell which.
"""

from __future__ import annotations

import contextlib
import json
import platform
from importlib import metadata

PADDLE_DISTRIBUTIONS = ("paddlepaddle", "paddlepaddle-gpu")


def paddle_from_metadata() -> str:
    """The installed paddle's version, read from its distribution (~10 ms, where importing paddle
    is a second of CPU); "" when no distribution or both say."""
    found = []
    for name in PADDLE_DISTRIBUTIONS:
        with contextlib.suppress(metadata.PackageNotFoundError):
            found.append(metadata.version(name))
    return found[0] if len(found) == 1 else ""


def paddle_version() -> str:
    """``paddle_from_metadata``, else paddle's own ``__version__``; "" when there is no paddle."""
    version = paddle_from_metadata()
    if version:
        return version
    try:
        import paddle

        return str(getattr(paddle, "__version__", ""))
    except Exception:  # noqa: BLE001 - a broken paddle is no paddle here; the doctor says why
        return ""


if __name__ == "__main__":
    print(json.dumps({"python_version": platform.python_version(), "paddle_version": paddle_version()}))
