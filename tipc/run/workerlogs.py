"""The per-rank logs of a ``paddle.distributed.launch`` stage, and which rank failed: the one finder
the console's failure story, a failure's cause, a stage's reason and the report all ask.

The launcher's own output (the stage log) says little; the error sits in
``<log_dir>/workerlog.<rank>``. The directory comes from the stage's argv (``--log_dir``), else
from where older or hand-made results keep it; the failing ranks are those the launcher named,
else those whose own part of their log shows an error. Every log is read through the one tail
reader (``tipc.metrics.logfile.log_tail``), so through the read door.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tipc.metrics.logfile import log_tail
from tipc.results.records import StageRecord

LAUNCH = "paddle.distributed.launch"
LOG_DIR_FLAG = "--log_dir"
# The launcher's "Container rank 0 status failed cmd [...] code 1 log .../workerlog.0".
FAILED_RANK = re.compile(r"rank (\d+) status failed")
# What marks the rank that broke, strongest evidence first.
ERROR_HINTS = (("Traceback",), ("Error", "ERROR", "ABORT"))
MAX_SHOWN = 4
TAIL = 16 * 1024  # bytes of a log's end that say whether it failed


def launch_log_dirs(record: StageRecord) -> tuple[Path, ...]:
    """Where a launch stage's ranks wrote their logs, by every clue: the record's ``launch_log_dir``
    figure, the launcher's ``--log_dir`` (either spelling), then beside the stage log (``S_launch_log``
    beside ``S.log``, or beside ``S`` when the log is ``S/train.log``). None for a stage that launched
    nothing: other chains' launch logs beside its log are not its evidence."""
    explicit = record.metrics.get("launch_log_dir")
    if not explicit and LAUNCH not in record.argv:
        return ()
    found: list[Path] = []
    named = explicit or _option(record.argv, LOG_DIR_FLAG)
    if named:
        found.append(Path(record.cwd or ".") / str(named))
    if record.log:
        parent = Path(record.log).parent
        found.extend(sorted(parent.glob("*_launch_log")))
        found.append(parent.with_name(parent.name + "_launch_log"))
    return tuple(dict.fromkeys(Path(os.path.abspath(p)) for p in found if p.is_dir()))


def _option(argv: Sequence[str], flag: str) -> str | None:
    """``flag``'s value in an argv, spelt ``--flag=value`` or ``--flag value``."""
    for i, token in enumerate(argv):
        if token.startswith(f"{flag}="):
            return token.partition("=")[2]
        if token == flag and i + 1 < len(argv):
            return argv[i + 1]
    return None


def worker_logs(log_dir: Path) -> dict[int, Path]:
    """``workerlog.<rank>`` files of ``log_dir`` by rank."""
    try:
        found = {p.name.rpartition(".")[2]: p for p in log_dir.glob("workerlog.*")}
    except OSError:
        return {}
    return dict(sorted((int(rank), path) for rank, path in found.items() if rank.isdigit()))


def record_worker_logs(record: StageRecord) -> tuple[Path, ...]:
    """Every rank's ``workerlog.N`` of a recorded stage, directory by directory, in rank order."""
    return tuple(path for d in launch_log_dirs(record) for path in worker_logs(d).values())


def rank_of(path: Path) -> int:
    """The rank a ``workerlog.N`` belongs to."""
    return int(path.name.rpartition(".")[2])


def offset_of(record: StageRecord, path: str | Path) -> int:
    """Where ``record``'s own part of ``path`` begins (0: the whole file is the stage's), however
    either path is spelt."""
    wanted = os.path.abspath(path)
    for logged, offset in record.log_offsets.items():
        if os.path.abspath(logged) == wanted and isinstance(offset, int) and not isinstance(offset, bool):
            return max(0, offset)
    return 0


def _tail(path: str | Path, since: int = 0) -> str:
    with contextlib.suppress(OSError):  # a log that cannot be read is no evidence
        return log_tail(path, TAIL, since)[0]
    return ""


def failing_workers(launcher_log: str | Path, logs: Iterable[Path], since: Mapping[str, int]) -> tuple[Path, ...]:
    """The worker logs that show the failure: those of the ranks the launcher reported failed, else
    those whose own part shows an error, the strongest evidence first; () when none does (a timeout:
    nobody failed, someone waited). ``since``: where each log's part written by the stage begins, by
    its path (launch appends to an earlier run's ``workerlog.N``: an old traceback is no evidence)."""
    logs = tuple(logs)
    named = {int(r) for r in FAILED_RANK.findall(_tail(launcher_log))}
    chosen = [p for p in logs if rank_of(p) in named]
    if chosen:
        return tuple(chosen)
    offsets = {os.path.abspath(k): v for k, v in since.items()}  # however each path was spelt
    tails = {p: _tail(p, offsets.get(os.path.abspath(p), 0)) for p in logs}
    return tuple(
        dict.fromkeys(p for hints in ERROR_HINTS for p, text in tails.items() if any(h in text for h in hints))
    )


def shown_workers(launcher_log: str | Path, logs: Iterable[Path], since: Mapping[str, int]) -> tuple[Path, ...]:
    """The worker logs a failure's story shows: the failing ones, else every one (a timeout), at most
    ``MAX_SHOWN``."""
    logs = tuple(logs)
    return (failing_workers(launcher_log, logs, since) or logs)[:MAX_SHOWN]


def file_sizes(paths: Iterable[Path]) -> dict[str, int]:
    """Each existing file's size now, by path: where a stage's own part of an appended log begins."""
    sizes = {}
    for path in paths:
        try:
            sizes[str(path)] = path.stat().st_size
        except OSError:
            continue
    return sizes
