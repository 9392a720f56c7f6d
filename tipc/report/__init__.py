"""Records → one self-contained HTML report (jinja2, inline CSS and SVG, no network).

``write_report(results_dirs, out_root, compare=None, *, history=True)`` is the entry point;
``tipc.report.write`` documents the layout of the reports tree.
"""

from __future__ import annotations

from typing import Any

__all__ = ["write_report"]


def __getattr__(name: str) -> Any:
    # Loaded when asked for, not with the package: a run imports the report's modules one by
    # one while its stages run (``tipc.session.report.preload_reports``), each a small step.
    if name == "write_report":
        from tipc.report.write import write_report

        return write_report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
