"""What a run shows while a stage runs: the texts, the heartbeat's rhythm, and a terminal left ungarbled."""

from __future__ import annotations

import os
from pathlib import Path

import pyte
import pytest

from tests.support.hang import without_hanging
from tipc.session.progress import (
    Overall,
    Progress,
    Running,
    TerminalLines,
    duration_text,
    last_meaningful,
    overall_text,
    read_tail,
    stage_text,
)

NOON = 1_780_000_000.0


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0s"), (59.4, "59s"), (61, "1m01s"), (3600, "1h00m"), (7322, "2h02m")], ids=str
)
def test_durations_read_as_people_say_them(seconds: float, text: str) -> None:
    assert duration_text(seconds) == text


@pytest.mark.parametrize(
    ("tail", "line"),
    [
        (
            "[2026/12/01 02:00:01] ppocr INFO: epoch: [3/50], global_step: 120, loss: 1.2\n"
            "[2026/12/01 02:00:02] ppocr INFO: save model in ./output/latest\n",
            "epoch: [3/50], global_step: 120, loss: 1.2",
        ),
        ("building\n\ncompiling kernels\n  \n", "compiling kernels"),
        ("\x1b[31mStep 7/9\x1b[0m\n", "Step 7/9"),
        ("", ""),
    ],
    ids=["step-line-wins", "last-non-empty", "escapes-dropped", "empty"],
)
def test_the_last_meaningful_line_of_a_log(tail: str, line: str) -> None:
    assert last_meaningful(tail) == line


def test_a_tail_is_a_bounded_read_of_the_end(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_bytes(b"x" * 100_000 + b"\nlast line\n")
    assert read_tail(log, 64) == "last line\n"
    assert read_tail(tmp_path / "missing") == ""


def test_a_log_turned_into_a_fifo_is_no_line_and_no_hang(tmp_path: Path) -> None:
    """The supervision loop reads the log while the stage runs: a FIFO there must not block it."""
    log = tmp_path / "train.log"
    os.mkfifo(log)
    assert without_hanging(lambda: read_tail(log), seconds=5) == ""


def test_a_stage_line_names_time_estimate_and_log() -> None:
    r = Running("norm_train-gpus_0::train", Path("x"), NOON, expected=420.0, last_line="epoch: [3/50]")
    assert stage_text(r, NOON + 192) == "norm_train-gpus_0::train: 3m12s of ~7m00s | epoch: [3/50]"
    assert "longer than last time" in stage_text(r, NOON + 900)
    assert stage_text(Running("s", Path("x"), NOON, None), NOON + 5) == "s: 5s"


def test_the_run_line_gives_the_end_from_recorded_durations() -> None:
    assert overall_text(Overall(done=4, total=12, remaining=0, unknown=0), NOON) == "4/12 stages done"
    assert ", ends ~" in overall_text(Overall(4, 12, remaining=600, unknown=0), NOON)
    assert "ends after" in overall_text(Overall(4, 12, remaining=600, unknown=2), NOON)
    assert "(2 never timed)" in overall_text(Overall(4, 12, remaining=600, unknown=2), NOON)
    # nothing timed: no end to give, only that it is not known
    assert overall_text(Overall(0, 6, remaining=0, unknown=6), NOON) == "0/6 stages done (6 never timed)"


def test_a_heartbeat_comes_every_interval_while_a_stage_runs(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text("epoch: [1/2], global_step: 5\n")
    shown: list[list[str]] = []
    progress = Progress(shown.append, total=3, interval=60.0)
    progress.plan([120.0, None, 10.0])
    progress.start("t::train", log, expected=120.0, now=NOON)
    for second in range(0, 150, 5):
        progress.tick(NOON + second)
    assert len(shown) == 2  # at 60 s and 120 s, not at every tick
    assert shown[0][0].startswith("tipc: still running t::train: 1m00s of ~2m00s | epoch: [1/2], global_step: 5 [")
    assert "0/3 stages done" in shown[0][0] and "1 never timed" in shown[0][0]
    progress.finish("t::train")
    assert progress.done == 1
    progress.tick(NOON + 400)
    assert len(shown) == 2  # nothing runs: nothing to say


def test_on_a_terminal_the_line_is_redrawn_and_erased_when_the_stage_ends(tmp_path: Path) -> None:
    shown: list[list[str]] = []
    progress = Progress(shown.append, total=1, interval=None)
    progress.start("t::train", tmp_path / "none.log", expected=None, now=NOON)
    progress.tick(NOON + 1)
    progress.tick(NOON + 2)
    progress.finish("t::train")
    assert len(shown) == 3 and shown[-1] == []


class Screen:
    """A real terminal emulator (pyte) that the front's output and the status lines are fed to."""

    def __init__(self, rows: int = 6, cols: int = 60) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.column = 0

    def write(self, text: str) -> None:
        self.stream.feed(text.replace("\n", "\r\n"))  # as a tty's onlcr does
        self.column = self.screen.cursor.x

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]


def test_status_lines_never_garble_the_fronts_output() -> None:
    """pytest writes `tests.py::item ` and later its verdict on the same line: the status line
    drawn meanwhile below it, redrawn, erased, leaves exactly pytest's text, even at the screen's bottom."""
    term = Screen(rows=4)
    status = TerminalLines(term.write, lambda: term.column, lambda: 60)
    term.write("line one\nline two\nline three\n")
    term.write("cfg::train ")
    status(["cfg::train: 1s"])
    status(["cfg::train: 2s | epoch 1", "cfg::eval: 1s"])
    assert term.lines()[-3:] == ["cfg::train", "cfg::train: 2s | epoch 1", "cfg::eval: 1s"]
    status([])
    term.write("PASSED\nnext::item ")
    status(["next::item: 1s"])
    status([])
    term.write("PASSED\n")
    assert [line for line in term.lines() if line] == ["line three", "cfg::train PASSED", "next::item PASSED"]


def test_a_stage_starting_beside_a_running_one_does_not_put_off_its_heartbeat(tmp_path: Path) -> None:
    shown: list[list[str]] = []
    progress = Progress(shown.append, total=40, interval=60.0)
    progress.start("long::train", tmp_path / "long.log", expected=None, now=NOON)
    for second in range(0, 130, 5):  # --jobs: a short stage starts beside it every 30 s
        if second % 30 == 0:
            progress.start(f"short{second}::infer", tmp_path / "short.log", expected=None, now=NOON + second)
        progress.tick(NOON + second)
        if second % 30 == 25:
            progress.finish(f"short{second - 25}::infer")
    assert len(shown) == 2 and all(any("long::train" in line for line in lines) for lines in shown)
