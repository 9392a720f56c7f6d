"""What the fronts print of a failed stage: readable, and safe for the user's terminal."""

from __future__ import annotations

import pytest

from tipc.metrics.causes import Cause
from tipc.metrics.logfile import CLIPPED
from tipc.results.records import StageRecord, Status
from tipc.run.cause import cause_of
from tipc.run.summary import causes_lines, failure_text


def test_a_failed_stages_log_tail_cannot_drive_the_terminal(tmp_path):
    log = tmp_path / "train.log"
    log.write_bytes(b"step 1\n\x1b]0;retitled\x07\x1b[2J\x1b[31mboom\x1b[0m\x00\n")
    record = StageRecord(
        id="c::train",
        kind="train",
        chain="c",
        status=Status.FAILED,
        argv=("python3", "t.py"),
        log=str(log),
        returncode=1,
        reason="exit code 1",
    )
    text = failure_text(record)
    assert "\x1b" not in text and "\x07" not in text and "\x00" not in text
    assert text.endswith("step 1\nboom\\x00")


def _failed(config: str, cause: str, kind: str = "missing-module") -> StageRecord:
    return StageRecord(
        id="c::train", kind="train", chain="c", status=Status.FAILED, config=config, cause_kind=kind, cause=cause
    )


MISSING = "ModuleNotFoundError: No module named 'x'"


@pytest.mark.parametrize(
    ("earlier", "expected"),
    [
        ((), [f"  2 configs: {MISSING} (missing-module)", "  m3/t.txt: CUDA error: N (cuda)"]),
        (
            (("r1", frozenset({MISSING})), ("r2", frozenset({MISSING}))),
            [f"  2 configs: {MISSING} (missing-module; since r1)", "  m3/t.txt: CUDA error: N (cuda; new in this run)"],
        ),
    ],
    ids=["no-history", "recurring-and-new"],
)
def test_failures_are_grouped_by_cause_and_told_new_or_since_when(earlier, expected):
    failed = [
        _failed("/a/m1/t.txt", MISSING),
        _failed("/b/m2/t.txt", MISSING),
        _failed("m3/t.txt", "CUDA error: N", "cuda"),
    ]
    assert causes_lines(failed, earlier) == ["tipc: failures by cause:", *expected]
    assert causes_lines([], earlier) == []


def test_a_last_line_over_the_tail_window_is_shown_clipped_and_judged(tmp_path, monkeypatch):
    """A Paddle error that prints a whole tensor on its last line (over 64 KiB): the console shows
    that line's end, marked as cut, and the cause rules read it, not "exit code 1"."""
    monkeypatch.setattr("tipc.suites.registry.cause_rules", list)  # the built-in rules only
    log = tmp_path / "train.log"
    log.write_text("step 1\n" + "ValueError: got Tensor(" + " 0.12345678," * 9000 + ") CUDA error: 700 ...\n")
    record = StageRecord(id="c::train", kind="train", chain="c", status=Status.FAILED, log=str(log),
                         returncode=1, reason="exit code 1")  # fmt: skip
    last = failure_text(record).splitlines()[-1]
    assert last.startswith(CLIPPED) and last.endswith(" 0.12345678,) CUDA error: 700 ...")
    assert cause_of(record, print) == Cause("cuda", "CUDA error: N ...")
