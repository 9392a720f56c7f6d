"""The doctor's reports as text (both fronts print it) and as ``tipc doctor --json``'s document.

The JSON document (``schema`` 1)::

    {"schema": 1, "ok": false,
     "configs": [{"config": "tinyrec/train_….txt", "python": "python3", "ok": false,
                  "checks": [{"name": "paddle", "state": "pass|warn|fail|na", "detail": "…", "fix": "…"}]}],
     "problems": [{"config": "…", "kind": "error|not applicable", "reason": "…"}]}

``ok`` is false when a check failed or a config could not be planned (the exit status is then 1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tipc.doctor.checks import JSON_SCHEMA, Report, State

_WORDS = {State.PASS: "passed", State.WARN: "warned", State.FAIL: "failed", State.NA: "not applicable"}


def report_lines(report: Report) -> list[str]:
    lines = [f"tipc doctor: {report.config} (stage interpreter {report.python})"]
    lines += ["  " + check.line().replace("\n", "\n  ") for check in report.checks]
    return lines


def tally(reports: Sequence[Report]) -> str:
    counts = Counter(check.state for report in reports for check in report.checks)
    return "tipc doctor: " + ", ".join(f"{counts[state]} {_WORDS[state]}" for state in State if counts[state])


def document(reports: Sequence[Report], problems: Sequence[dict[str, str]]) -> dict[str, Any]:
    """``problems``: configs that could not be examined, each ``{"config", "kind", "reason"}``."""
    ok = all(r.ok for r in reports) and not any(p["kind"] == "error" for p in problems)
    return {"schema": JSON_SCHEMA, "ok": ok, "configs": [r.to_json() for r in reports], "problems": list(problems)}
