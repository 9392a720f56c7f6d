"""Compatibility pieces that run inside the target's interpreter.

``auto_log/`` is a drop-in for PaddlePaddle's AutoLog (not on PyPI): put
``shim_path()`` on the target's ``PYTHONPATH`` and PaddleOCR's predictors
print the benchmark block with ``--benchmark True``.
"""

from __future__ import annotations

from pathlib import Path


def shim_path() -> str:
    """The directory holding the ``auto_log`` package (for ``PYTHONPATH``)."""
    return str(Path(__file__).resolve().parent)
