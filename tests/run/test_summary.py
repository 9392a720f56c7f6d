"""What the fronts print of a failed stage: readable, and safe for the user's terminal."""

from __future__ import annotations

from tipc.results.records import StageRecord, Status
from tipc.run.summary import failure_text


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
