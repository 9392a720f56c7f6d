"""What a run shows while a stage runs: a status line on a terminal, a heartbeat line in a CI log.

A lite training runs minutes and a whole one hours; a line that only changes when a stage ends
looks like a hang to a person and to a CI service that kills jobs without output for ten minutes.
While a stage runs, its front shows the stage, how long it has run and how long it took last
time, the last step line of its log, and where the whole run stands. On a terminal that is a line
below the front's own output, redrawn in place and erased when the stage ends (pytest's output is
never overwritten); anywhere else a plain line every ``interval`` seconds. The text is made here,
from facts the run already has (the recorded durations of earlier runs, the stage's own log); the
front decides where it goes. Nothing here runs on its own: the stage's supervision calls ``tick``.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tipc.metrics.logfile import log_tail
from tipc.metrics.logtext import printable

TAIL_BYTES = 4096  # the log's end read per look: a step line is far shorter
DEFAULT_INTERVAL = 60.0  # seconds between heartbeat lines off a terminal
REDRAW = 1.0  # seconds between redraws of the terminal line

# A training's progress line: PaddleOCR's "epoch: [3/50], global_step: 120, ...", "Epoch 3 step 20".
_STEP = re.compile(r"\b(epoch|global_step|step|iter|batch)\b", re.IGNORECASE)
_LOGGER_PREFIX = re.compile(r"^\[\d{4}/\d\d/\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?\] \S+ [A-Z]+: ?")


def duration_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


# The executor's header above the stage's own output (tipc.proc.executor): not the stage's news.
_HEADER = ("# tipc stage: ", "# command: ", "# cwd: ", "# env: ", "# start: ")


def last_meaningful(tail: str) -> str:
    """The last step line of a log's end, else its last non-empty line; '' for none."""
    lines = [_LOGGER_PREFIX.sub("", line).strip() for line in printable(tail).splitlines()]
    lines = [line for line in lines if line and not line.startswith(_HEADER)]
    for line in reversed(lines):
        if _STEP.search(line):
            return line
    return lines[-1] if lines else ""


def read_tail(path: Path, limit: int = TAIL_BYTES) -> str:
    """The end of a log as text ('' when unreadable): a bounded read through the read door, whatever
    the log is now (a FIFO or a device is refused at once: the supervision loop never blocks)."""
    try:
        return log_tail(path, limit)[0]
    except OSError:
        return ""


@dataclass(slots=True)
class Running:
    stage_id: str
    log: Path
    started: float
    expected: float | None  # seconds it took when it last ran, None: never ran
    last_line: str = ""


@dataclass(frozen=True, slots=True)
class Overall:
    done: int
    total: int
    remaining: float  # seconds the stages not yet done are expected to take (those with a record)
    unknown: int  # stages not yet done that never ran: the end is later than the estimate by them


def stage_text(r: Running, now: float, width: int = 200) -> str:
    elapsed = now - r.started
    text = f"{r.stage_id}: {duration_text(elapsed)}"
    if r.expected:
        text += f" of ~{duration_text(r.expected)}"
        if elapsed > r.expected * 1.5 and elapsed - r.expected > 30:
            text += " (longer than last time)"
    if r.last_line:
        text += f" | {r.last_line}"
    return text if len(text) <= width else text[: width - 1] + "…"


def overall_text(o: Overall, now: float) -> str:
    text = f"{o.done}/{o.total} stages done"
    if o.remaining > 0:  # with nothing timed, an end would only be now
        end = time.strftime("%H:%M", time.localtime(now + o.remaining))
        text += f", ends {'after ' if o.unknown else '~'}{end}"
    if o.unknown:
        text += f" ({o.unknown} never timed)"
    return text


Show = Callable[[list[str]], None]  # the lines to show now ([]: erase)


@dataclass
class Progress:
    """The running stages and the run's counts; ``tick`` refreshes the text and hands it to ``show``.

    ``interval`` None: a terminal (redraw every second, erase when a stage ends); a number: a CI log
    (one line per running stage every ``interval`` seconds, nothing to erase)."""

    show: Show
    total: int
    interval: float | None = DEFAULT_INTERVAL
    done: int = 0
    expected_left: float = 0.0  # seconds of the stages not yet started that have a record
    unknown_left: int = 0
    running: dict[str, Running] = field(default_factory=dict)
    _next: float = 0.0
    # ``--jobs`` runs stages in threads, each supervision loop ticking: one at a time here.
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def start(self, stage_id: str, log: Path, expected: float | None, now: float | None = None) -> None:
        with self._lock:
            self._start(stage_id, log, expected, time.time() if now is None else now)

    def _start(self, stage_id: str, log: Path, expected: float | None, now: float) -> None:
        if not self.running:  # the clock starts with the first; one starting beside others must not
            # put off their lines (with --jobs, short stages starting every minute would silence a long one)
            self._next = now + (REDRAW if self.interval is None else self.interval)
        self.running[stage_id] = Running(stage_id, log, now, expected)
        if expected:
            self.expected_left = max(0.0, self.expected_left - expected)
        else:
            self.unknown_left = max(0, self.unknown_left - 1)

    def finish(self, stage_id: str) -> None:
        with self._lock:
            self._finish(stage_id)

    def _finish(self, stage_id: str) -> None:
        if self.running.pop(stage_id, None) is not None:
            self.done += 1
            if self.interval is None:
                self.show([])

    def tick(self, now: float | None = None) -> None:
        with self._lock:
            self._tick(time.time() if now is None else now)

    def _tick(self, now: float) -> None:
        if not self.running or now < self._next:
            return
        self._next = now + (REDRAW if self.interval is None else self.interval)
        for r in self.running.values():
            r.last_line = last_meaningful(read_tail(r.log))
        self.show(self.lines(now))

    def lines(self, now: float) -> list[str]:
        running_left = sum(max(0.0, r.expected - (now - r.started)) for r in self.running.values() if r.expected)
        overall = Overall(
            self.done, self.total, self.expected_left + running_left, self.unknown_left + self._untimed_running(now)
        )
        prefix = "" if self.interval is None else "tipc: still running "
        stages = [prefix + stage_text(r, now) for r in self.running.values()]
        return [*stages[:-1], f"{stages[-1]} [{overall_text(overall, now)}]"] if stages else []

    def _untimed_running(self, now: float) -> int:
        return sum(1 for r in self.running.values() if not r.expected or now - r.started > r.expected)

    def plan(self, expected: Iterable[float | None]) -> None:
        """The expected durations of the stages this run will start (None: never ran)."""
        with self._lock:
            self._plan(expected)

    def _plan(self, expected: Iterable[float | None]) -> None:
        for seconds in expected:
            if seconds:
                self.expected_left += seconds
            else:
                self.unknown_left += 1


class TerminalLines:
    """Status lines drawn below the cursor's line and the cursor put back where it was, so that the
    front's own partial line (pytest's ``path::item`` or its dots) goes on as if nothing happened.

    ``column`` says where the cursor is on its line. Drawing uses relative moves only: the first
    draw writes the line breaks that make room (scrolling the screen at its bottom), later ones
    move down into that room without scrolling."""

    def __init__(self, write: Callable[[str], None], column: Callable[[], int], width: Callable[[], int]) -> None:
        self._write, self._column, self._width = write, column, width
        self._room = 0  # lines below the cursor's line that we made and may draw on

    def __call__(self, lines: list[str]) -> None:
        width = max(20, self._width() - 1)
        shown = [line[: width - 1] + "…" if len(line) > width else line for line in lines]
        out = []
        for i in range(max(len(shown), self._room)):
            out.append("\n\r" if i >= self._room else "\x1b[1B\r")
            out.append("\x1b[2K" + (shown[i] if i < len(shown) else ""))
        depth = max(len(shown), self._room)
        self._room = depth if shown else 0
        if depth:
            out.append(f"\x1b[{depth}A\r" + (f"\x1b[{self._column()}C" if self._column() else ""))
            self._write("".join(out))


def for_front(
    write: Callable[[str], None],
    *,
    terminal: bool,
    quiet: bool,
    heartbeat: float,
    column: Callable[[], int] = lambda: 0,
    width: Callable[[], int] = lambda: 80,
) -> Progress | None:
    """A front's progress: a status line on a terminal, a heartbeat line every ``heartbeat`` seconds
    anywhere else (0: none); none with ``-q``. A heartbeat starts on a line of its own: the front's
    line may be unfinished (pytest's ``path `` before its dots)."""
    if quiet:
        return None
    if terminal:
        return Progress(TerminalLines(write, column, width), total=0, interval=None)
    if heartbeat <= 0:
        return None

    def beat(lines: list[str]) -> None:
        write(("\n" if column() else "") + "".join(f"{line}\n" for line in lines))

    return Progress(beat, total=0, interval=heartbeat)
