"""Control bytes from logs, reasons and commands never reach the page raw."""

from __future__ import annotations

import re

from tests.support.recorded_runs import ResultsWriter
from tipc.report import write_report
from tipc.results.records import Status

NASTY = "\x1b]0;retitled\x07\x1b[31mred\x1b[0m nul\x00 bel\x07"
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def test_log_tail_reason_and_command_are_printable(tmp_path):
    w = ResultsWriter(tmp_path / "results", start=1_764_500_000.0, run_id="20251130T100000Z-00000001")
    w.add(
        "norm_train-gpus_-1-fp32",
        "train",
        Status.FAILED,
        f"step 1\n{NASTY}\nTraceback\n",
        returncode=1,
        reason=f"exit code 1 {NASTY}",
        argv=("python3", "tools/train.py", "-o", f"Global.x={NASTY}"),
    )
    html = write_report([w.write(start=1_764_500_000.0)], tmp_path / "reports").read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(html)
    assert "retitled" not in html  # an OSC title is a command to the terminal, not text
    assert "red nul\\x00 bel\\x07" in html
