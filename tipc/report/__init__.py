"""Records → one self-contained HTML report (jinja2, inline CSS and SVG, no network).

``write_report(results_dirs, out_root, compare=None, *, history=True)`` is the entry point;
``tipc.report.write`` documents the layout of the reports tree.
"""

from tipc.report.write import write_report

__all__ = ["write_report"]
