"""The per-rank logs of a ``paddle.distributed.launch`` stage, and which rank failed.

The launcher's own output (the stage log) says little; the error sits in
``<log_dir>/workerlog.<rank>``. These helpers find that directory from the
stage's argv and pick the workers to show when the stage did not pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tipc.files import read

LOG_DIR_FLAG = "--log_dir="
# The launcher's "Container rank 0 status failed cmd [...] code 1 log .../workerlog.0".
FAILED_RANK = re.compile(r"rank (\d+) status failed")
ERROR_HINTS = ("Traceback", "Error", "ERROR")
MAX_SHOWN = 4


def launch_log_dir(argv: Sequence[str], cwd: str | Path) -> Path | None:
    """The ``--log_dir`` of a launch argv, resolved against the stage's cwd."""
    if "paddle.distributed.launch" not in argv:
        return None
    for token in argv:
        if token.startswith(LOG_DIR_FLAG):
            return Path(cwd) / token[len(LOG_DIR_FLAG) :]
    return None


def worker_logs(log_dir: Path) -> dict[int, Path]:
    """``workerlog.<rank>`` files of ``log_dir`` by rank."""
    try:
        found = {p.name.rpartition(".")[2]: p for p in log_dir.glob("workerlog.*")}
    except OSError:
        return {}
    return dict(sorted((int(rank), path) for rank, path in found.items() if rank.isdigit()))


def failing_workers(launcher_log: str, log_dir: Path, since: Mapping[str, int] | None = None) -> dict[int, Path]:
    """The workers to show: those the launcher reported failed, else those whose log shows an error,
    else every worker (a timeout: nobody failed, someone waited). ``since``: where each worker
    log's part written by this stage begins (launch appends to an earlier run's workerlog.N)."""
    since = since or {}
    logs = worker_logs(log_dir)
    named = [int(r) for r in FAILED_RANK.findall(tail_text(launcher_log) or "")]
    chosen = {r: logs[r] for r in dict.fromkeys(named) if r in logs}
    if not chosen:
        chosen = {
            r: p
            for r, p in logs.items()
            if any(h in (tail_text(str(p), since=since.get(str(p), 0)) or "") for h in ERROR_HINTS)
        }
    return dict(list((chosen or logs).items())[:MAX_SHOWN])


def tail_text(path: str, size: int = 16 * 1024, since: int = 0) -> str | None:
    """The last ``size`` bytes of a file after byte ``since``, as text (a log may be huge);
    None when it cannot be read. A file now shorter than ``since`` was replaced: read it all."""
    try:
        return read.tail(path, size, since)[0].decode(errors="replace")
    except OSError:
        return None


def file_sizes(paths: Iterable[Path]) -> dict[str, int]:
    """Each existing file's size now, by path: where a stage's own part of an appended log begins."""
    sizes = {}
    for path in paths:
        try:
            sizes[str(path)] = path.stat().st_size
        except OSError:
            continue
    return sizes
