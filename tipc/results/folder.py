"""The results folder: the one owner of its file names, its readers and its writers.

::

    <out>/results_python.log   the bash's status lines, appended by every run (old tooling greps it)
    <out>/results.jsonl        this run's StageRecords, one JSON object a line
    <out>/run.json             this run's RunInfo (``ended`` turns true when the run ends)
    <out>/runs/<run_id>/       earlier runs' results.jsonl and run.json, moved aside at the next begin
    <out>/.tipc.lock           held (flock) by the run that owns the folder; names it
    <out>/.tipc_stage/         the stages running now: how the next run finds one a killed harness left
    <out>/.tipc_passed.jsonl   a stamp per stage that ran: what it ran, if it passed (the last one counts)
    <out>/.tipc_reserve        64 KiB kept while a run goes on: given up when the disk fills, so that
                               the stage that filled it keeps its record and the run ends its run.json

A record's paths (``log``, ``log_offsets``' files, and ``cwd``, the target checkout) are written
relative to the ``<mode>`` folder the results folder belongs to (``portable_root``) when they lie
inside it, or inside the checkout that holds it (``cwd`` is ``../../../..`` for
``<repo>/test_tipc/output/<model>/<mode>``, a ``train.log`` the stage appended to
``../../../../output/…``), and read back against where that folder is now: results copied to
another machine, or merged on another CI runner, still name their logs, and with their checkout its
images and logs. ``run.json``'s ``folder`` keeps the absolute path they were written in
(provenance: where each path was).

Several processes of one run may append at once (pytest-xdist workers run different
chains of one plan), so every append is one ``write`` on an ``O_APPEND`` descriptor:
lines never interleave, and each is on disk as soon as its stage ends. Two *runs*
never share a folder at once: the second is refused, naming the first.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import threading
import time
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from tipc.errors import OutputError, ResultsError, UsageError
from tipc.files import read
from tipc.files.write import make_dirs, under, write_atomic, writing
from tipc.plan.model import Stage
from tipc.proc.tree import holders
from tipc.results.records import RecordError, RunInfo, StageRecord

LEGACY_LOG = "results_python.log"
RECORDS = "results.jsonl"
RUN_INFO = "run.json"
RUNS = "runs"
LOCK = ".tipc.lock"
RUNNING = ".tipc_stage"
PASSED_STAMPS = ".tipc_passed.jsonl"
RESERVE = ".tipc_reserve"
RESERVE_BYTES = 64 * 1024  # a record is a few KiB, run.json less: room for the last of each
NODE_PREFIX = "node"
SHARD_PREFIX = "shard"  # a part of a split matrix (--shard K/N) writes <mode>/shards/<run group>/shard<K>/
SHARDS = "shards"
# What the readers accept: a record is a few KiB (predictions included), a run.json less.
MAX_RECORD_BYTES = 16 << 20
MAX_RESULTS_BYTES = 1 << 30
MAX_RUN_INFO_BYTES = 16 << 20

Warn = Callable[[str], None]
T = TypeVar("T")


class FolderBusy(UsageError):
    """Another run holds the results folder."""


def new_run_id(now: float | None = None) -> str:
    """Sortable by start time to the millisecond, unique without coordination: ``20261201T013000Z-1275f3a9c1e``
    (the milliseconds, then 32 random bits): two runs in one second still compare in the order they began."""
    millis = round((time.time() if now is None else now) * 1000)  # one rounding: the second and its milliseconds agree
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(millis // 1000))
    return f"{stamp}-{millis % 1000:03d}{secrets.token_hex(4)}"


def stage_digest(stage: Stage) -> str:
    """What a stage runs, as one hash: equal digests mean its outputs came from the same plan."""
    what = {"argv": list(stage.argv), "env": dict(sorted(stage.env.items())), "cwd": stage.cwd}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


Span = tuple[int, int]  # where a line went: the file's size before it and after it


def _append(path: Path, text: str) -> Span:
    """One ``write`` on an ``O_APPEND`` descriptor; a line cut short (a disk that filled up
    mid-write) is taken back, so that every line in the file stays a whole record.

    No fsync: once ``write`` returns, the line is the kernel's, and a SIGKILLed or crashed harness
    loses none of it; only the machine's own crash could, which takes the run with it. An fsync of
    each line cost 4 ms (13 ms at worst) on a loaded disk, three files a stage."""
    data = text.encode()
    with writing(path):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            before = os.fstat(fd).st_size
            try:
                written = os.write(fd, data)
            except OSError:
                os.ftruncate(fd, before)
                raise
            if written != len(data):
                os.ftruncate(fd, before)
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        finally:
            os.close(fd)
    return before, before + written


def _take_back(path: Path, span: Span) -> bool:
    """Remove the line written at ``span`` when it is still the file's last; False when it is not."""
    with writing(path):
        fd = os.open(path, os.O_WRONLY)
        try:
            if os.fstat(fd).st_size != span[1]:
                return False
            os.ftruncate(fd, span[0])
            return True
        finally:
            os.close(fd)


def portable_root(folder: Path) -> Path:
    """The ``<mode>`` folder a results folder belongs to: record paths are relative to it.
    ``<mode>``, ``<mode>/node<k>``, ``<mode>/shards/<group>/shard<K>``, and ``runs/<id>`` of each."""
    folder = Path(os.path.abspath(folder))
    if folder.parent.name == RUNS:
        folder = folder.parent.parent
    if folder.parent.parent.name == SHARDS:
        return folder.parents[2]
    if folder.name.startswith(NODE_PREFIX) and folder.name[len(NODE_PREFIX) :].isdigit():
        return folder.parent
    return folder


def _home(cwd: str, root: Path) -> Path:
    """What a record's paths are relative within: the target checkout it ran in when that holds the
    ``<mode>`` folder (``<repo>/test_tipc/output/…``), else the ``<mode>`` folder itself."""
    return Path(cwd) if cwd and os.path.isabs(cwd) and root.is_relative_to(cwd) else root


def _relative(path: str, root: Path, home: Path) -> str:
    """Inside ``home`` (a log, the checkout itself, the ``train.log`` it appended to): relative to
    the ``<mode>`` folder. Anywhere else: as it was."""
    if path and os.path.isabs(path) and Path(path).is_relative_to(home):
        return os.path.relpath(path, root)
    return path


def _absolute(path: str, root: Path) -> str:
    return path if not path or os.path.isabs(path) else os.path.normpath(os.path.join(root, path))


def _paths(log: str, cwd: str, offsets: dict[str, int], root: Path, move: Callable[[str, Path], str]) -> dict[str, Any]:
    """A record's paths moved: its log, its working folder and the logs it appended to."""
    return {
        "log": move(log, root),
        "log_offsets": {move(k, root): v for k, v in offsets.items()},
        "cwd": move(cwd, root),
    }


def _moved(record: StageRecord, root: Path, move: Callable[[str, Path], str]) -> StageRecord:
    if not record.log and not record.log_offsets and not record.cwd:
        return record
    return replace(record, **_paths(record.log, record.cwd, record.log_offsets, root, move))


def _record(raw: bytes, root: Path, checked: bool) -> StageRecord:
    """The record of a line; ``checked``: a line read as a record before, not checked again (its paths
    are moved before the record is made, which is most of what a later reading saves)."""
    d = read.json_of(raw)
    if not checked:
        return _moved(StageRecord.from_dict(d), root, _absolute)
    d.update(_paths(d.get("log", ""), d.get("cwd", ""), d.get("log_offsets", {}), root, _absolute))
    return StageRecord.from_dict(d, checked=True)


def record_line(record: StageRecord, folder: Path) -> str:
    """``record`` as a line of ``folder``'s ``results.jsonl``: its paths relative to the ``<mode>`` folder."""
    root = portable_root(folder)
    home = _home(record.cwd, root)
    return _moved(record, root, lambda path, _: _relative(path, root, home)).to_json() + "\n"


def read_records(path: Path, warn: Warn | None = None) -> list[StageRecord]:
    """Every record of a ``results.jsonl``, a stage's last of a run where a rerun left two (see
    ``ResultsDir.take_back``). A bad line raises ``ResultsError`` naming the file and line, or,
    with ``warn``, is reported there and skipped."""
    numbered = list(numbered_records(path, warn))
    dropped = superseded(numbered)
    return [r for number, r in numbered if number not in dropped]


def numbered_records(
    path: Path,
    warn: Warn | None = None,
    until: int | None = None,
    *,
    skip: Container[int] = (),
    checked: bool = False,
) -> Iterator[tuple[int, StageRecord]]:
    """(line number, record) of each record of a ``results.jsonl`` (before byte ``until``), read as a
    stream: only the line being read is held. A bad line raises ``ResultsError`` naming the file and
    line, or, with ``warn``, is reported there and skipped. No file (yet): no records. A later reading
    of the same lines passes ``skip`` (lines not to read: the bad ones, the replaced ones) and
    ``checked`` (every other line was found a record: they are not checked again)."""
    root = portable_root(path.parent)
    try:
        for number, raw in read.numbered_lines(path, MAX_RECORD_BYTES, MAX_RESULTS_BYTES, until):
            if number in skip or (raw is not None and not raw.strip()):
                continue
            try:
                if raw is None:
                    raise ValueError(f"a line over {MAX_RECORD_BYTES} bytes")
                record = _record(raw, root, checked)
            except (ValueError, RecordError) as exc:  # UnicodeDecodeError and JSON nested too deeply too
                problem = ResultsError(
                    str(path), number, f"not a stage record ({_short(exc)}); expected one JSON object per line"
                )
                if warn is None:
                    raise problem from None
                warn(f"tipc: skipped {problem}")
                continue
            yield number, record
    except (FileNotFoundError, NotADirectoryError):  # none yet (a file where the folder would be: none ever)
        return
    except OSError as exc:
        raise ResultsError(str(path), 0, f"cannot be read ({exc.strerror or exc})") from None


def superseded(numbered: Iterable[tuple[int, StageRecord]]) -> set[int]:
    """The line numbers of records a later line of the same run replaces: of a stage's records of one
    run, the last counts (records of no run id: schema 0, each its own run)."""
    last: dict[tuple[str, str, str, int], int] = {}
    dropped = set()
    for number, record in numbered:
        if record.run_id:
            key = (record.run_id, *record.key)
            earlier = last.get(key)
            if earlier is not None:
                dropped.add(earlier)
            last[key] = number
    return dropped


def read_run_info(path: Path) -> RunInfo:
    """A ``run.json``; ``ResultsError`` says why it is not one."""
    try:
        return RunInfo.from_dict(read.json_of(read.read_bytes(path, MAX_RUN_INFO_BYTES)))
    except FileNotFoundError:
        raise ResultsError(
            str(path), 0, f"missing; expected a tipc results directory with {RUN_INFO} and {RECORDS}"
        ) from None
    except OSError as exc:
        raise ResultsError(str(path), 0, f"cannot be read ({exc.strerror or exc})") from None
    except (ValueError, RecordError) as exc:
        raise ResultsError(str(path), 0, f"not a tipc run.json ({_short(exc)})") from None


def _short(exc: Exception, limit: int = 200) -> str:
    text = str(exc)
    return text if len(text) <= limit else text[:limit] + "…"


def results_files(path: str | Path) -> tuple[RunInfo, Path]:
    """``run.json`` of one results folder and where its ``results.jsonl`` is; ``ResultsError`` when
    either is missing."""
    path = Path(path)
    info = read_run_info(path / RUN_INFO)
    if not (path / RECORDS).exists():  # a FIFO or a device is there: the reader says what it is
        raise ResultsError(
            str(path / RECORDS), 0, f"missing; expected a tipc results directory with {RUN_INFO} and {RECORDS}"
        )
    return info, path / RECORDS


def load_results_dir(path: str | Path, warn: Warn | None = None) -> tuple[RunInfo, list[StageRecord]]:
    """``run.json`` and ``results.jsonl`` of one results folder; ``ResultsError`` names the bad line."""
    info, records = results_files(path)
    return info, read_records(records, warn)


def part_paths(path: Path) -> list[Path]:
    """The folders of a ``<mode>`` folder where its node and shard parts go: ``node<k>/``,
    ``shards/<group>/shard<K>/``, and ``shard<K>/`` of a tipc from before run groups."""
    found = [
        *path.glob(f"{NODE_PREFIX}*"),
        *path.glob(f"{SHARD_PREFIX}[0-9]*"),
        *path.glob(f"{SHARDS}/*/{SHARD_PREFIX}*"),
    ]
    return sorted(found)


def part_dirs(path: Path) -> list[tuple[Path, RunInfo]]:
    """The node and shard parts a ``<mode>`` folder holds, with their ``run.json``. A part whose
    ``run.json`` does not read is no part to a report (``tipc merge`` names it as an error)."""
    parts = []
    for p in part_paths(path):
        with contextlib.suppress(ResultsError):
            parts.append((p, read_run_info(p / RUN_INFO)))
    return parts


def newest_part(parts: Sequence[tuple[Path, RunInfo]]) -> RunInfo:
    """The part that started last: its run group is tonight's, once tonight's parts have begun."""
    return max((info for _, info in parts), key=lambda info: info.start)


def node_dirs(paths: Sequence[str | Path]) -> list[Path]:
    """The results folders named, a ``<mode>`` folder standing for its merged results when they are
    of the newest run group's parts (``tipc merge`` wrote them), else for those parts. A part of an
    earlier night is never read as tonight's."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        parts = part_dirs(path)
        if not parts:
            out.append(path)
            continue
        newest = newest_part(parts)
        own = None
        with contextlib.suppress(ResultsError):
            own = read_run_info(path / RUN_INFO)
        # A merge spans its parts: one that ended before the newest part began is an earlier night's. A run
        # of the folder itself (a plain ``tipc run``) begun after the newest part is tonight's, whatever parts
        # an earlier sharded night left beside it.
        merged = own is not None and own.run_group == newest.run_group and own.start + own.duration >= newest.start
        plain_after = own is not None and own.run_group != newest.run_group and own.start > newest.start
        if (merged or plain_after) and (path / RECORDS).is_file():
            out.append(path)
        else:
            out.extend(p for p, info in parts if info.run_group == newest.run_group)
    return out


def group_folder(mode_dir: Path, group: str) -> Path:
    """The shards of one night (``tipc.cluster.group``): one folder per night, so that no night's
    shard is ever read as another's. The id comes from the environment (a scheduler's job id): one
    component made by the write door, whatever it holds, and distinct ids stay distinct folders."""
    return under(mode_dir / SHARDS, group)


def shard_folder(mode_dir: Path, group: str, index: int) -> Path:
    return under(mode_dir / SHARDS, group, f"{SHARD_PREFIX}{index}")


def has_results(path: Path) -> bool:
    return (path / RECORDS).is_file() or bool(part_dirs(path))


@dataclass(frozen=True, slots=True)
class Interrupted:
    """What ``begin`` found of an earlier run that never ended (its harness was killed)."""

    run_id: str
    stages: tuple[dict[str, object], ...]  # the RUNNING entries: the stages it was running


class ResultsDir:
    """One results folder. ``begin``/``end`` are the owning process's; appends are anyone's in the run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock_fd: int | None = None
        # Several configs of one run may write this folder: it is begun once, and ended by the last.
        self._info: RunInfo | None = None
        self._users = 0
        self._full: OutputError | None = None  # the disk filled up: the reserve is spent

    @property
    def legacy_log(self) -> Path:
        return self.path / LEGACY_LOG

    @property
    def records_file(self) -> Path:
        return self.path / RECORDS

    @property
    def run_info_file(self) -> Path:
        return self.path / RUN_INFO

    @property
    def runs_dir(self) -> Path:
        return self.path / RUNS

    # --- the run's ownership of the folder ---

    def begin(self, info: RunInfo) -> Interrupted | None:
        """Own the folder for ``info.run_id``: lock it, move the previous run's files aside into
        ``runs/<its id>/``, start this run's ``run.json`` and an empty ``results.jsonl``.

        Returns what an earlier run that never ended left (its files are moved aside all the
        same); raises ``FolderBusy`` naming the run that holds the folder now. Another config
        of the same run only adds itself to ``run.json``'s ``configs``.
        """
        self._users += 1
        if self._info is not None and self._info.run_id == info.run_id:
            self._info = replace(self._info, configs=(*self._info.configs, *info.configs))
            self.write_run_info(self._info)
            return None
        make_dirs(self.path)
        try:
            self._lock(info)
        except (FolderBusy, OutputError):
            self._users -= 1
            raise
        self._info = info
        with writing(self.path):
            interrupted = self._archive_previous()
            self._compact_stamps()
            self.records_file.write_text("")
            # Present even when no stage runs (a failed preflight): merge and old CI expect it.
            self.legacy_log.touch()
        with contextlib.suppress(OSError):  # a disk already full: no reserve, and the next write says so
            (self.path / RESERVE).write_bytes(bytes(RESERVE_BYTES))
        self.write_run_info(info)
        return interrupted

    def _lock(self, info: RunInfo) -> None:
        with writing(self.path / LOCK):
            fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "another run"
            os.close(fd)
            # The run named there may be gone while a process it started still holds the lock: say who.
            named = re.search(r"\(pid (\d+) on ", holder)
            others = {p: c for p, c in holders(self.path / LOCK).items() if not named or p != int(named[1])}
            held = ", ".join(f"pid {pid} ({command})" for pid, command in others.items())
            raise FolderBusy(
                f"results folder {self.path} is in use by {holder}{f'; held now by {held}' if held else ''}; "
                "wait for it to end, or give this run its own folder (--output-root)"
            ) from None
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info.start or time.time()))
        try:
            with writing(self.path / LOCK):
                os.ftruncate(fd, 0)
                os.pwrite(
                    fd,
                    f"run {info.run_id} (pid {os.getpid()} on {socket.gethostname()}, started {started})\n".encode(),
                    0,
                )
        except OutputError:
            os.close(fd)
            raise
        self._lock_fd = fd

    def _archive_previous(self) -> Interrupted | None:
        try:
            previous = read_run_info(self.run_info_file)
        except ResultsError:
            previous = None
        interrupted = None
        if previous is not None and not previous.ended:
            interrupted = Interrupted(previous.run_id, self.running_stages())
        if previous is not None:
            dest = self.runs_dir / (previous.run_id or f"before-run-ids-{int(previous.start)}")
            make_dirs(dest)
            for name in (RECORDS, RUN_INFO):
                if (self.path / name).exists():
                    os.replace(self.path / name, dest / name)
        shutil.rmtree(self.path / RUNNING, ignore_errors=True)
        return interrupted

    def end(self, info: RunInfo) -> None:
        """Write the final ``run.json`` and, once every config that began the folder has ended,
        mark it ``ended`` and let the folder go."""
        head = self._info or info
        self._info = replace(
            head,
            configs=tuple(dict.fromkeys((*head.configs, *info.configs))),
            notes=tuple(dict.fromkeys((*head.notes, *info.notes))),
            paddle_version=info.paddle_version or head.paddle_version,
            python_version=info.python_version or head.python_version,
            duration=max(head.duration, info.start + info.duration - head.start),
        )
        self._users = max(0, self._users - 1)
        self.write_run_info(replace(self._info, ended=self._users == 0))
        if self._users == 0:
            with contextlib.suppress(OSError):
                (self.path / RESERVE).unlink()
        if self._users == 0 and self._lock_fd is not None:
            os.close(self._lock_fd)  # the content stays: it names the last owner, which is harmless
            self._lock_fd = None

    def previous_run_dir(self) -> Path | None:
        """The newest folder under ``runs/`` (run ids sort by start time)."""
        with contextlib.suppress(OSError):
            dirs = sorted(d for d in self.runs_dir.iterdir() if (d / RECORDS).is_file())
            return dirs[-1] if dirs else None
        return None

    # --- what a run writes ---

    def write_run_info(self, info: RunInfo) -> None:
        make_dirs(self.path)
        self._spending_reserve(
            lambda: write_atomic(self.run_info_file, replace(info, folder=os.path.abspath(self.path)).to_json() + "\n")
        )

    def _spending_reserve(self, write: Callable[[], T]) -> T:
        """``write()``; on a full disk, once more after giving up the reserve, so that the stage that
        filled the disk keeps its record and the run can end its ``run.json`` (``append_record``
        then stops the run with the error)."""
        try:
            return write()
        except OutputError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            try:
                (self.path / RESERVE).unlink()
            except OSError:
                raise exc from None
            self._full = exc
            return write()

    def read_run_info(self) -> RunInfo | None:
        try:
            return read_run_info(self.run_info_file)
        except ResultsError:
            return None

    def append_record(self, record: StageRecord) -> Span:
        make_dirs(self.path)
        span = self._spending_reserve(lambda: _append(self.records_file, record_line(record, self.path)))
        if self._full is not None:
            raise self._full  # the disk is full: the run stops here, with this stage's record
        return span

    def append_legacy(self, line: str, name: str = LEGACY_LOG) -> Span:
        """``name``: the bash's status-line file (``results_paddle2onnx.log`` for paddle2onnx plans)."""
        make_dirs(self.path)
        return self._spending_reserve(lambda: _append(self.path / name, line))

    def take_back(self, record: Span, legacy: Span | None, name: str = LEGACY_LOG) -> None:
        """A stage run again (a rerun plugin's next attempt) replaces its earlier record and
        status line: one record, one line per stage. Only while they are the files' last lines
        (one stage at a time); else the earlier ones stay, and readers take a stage's last record
        of a run."""
        if legacy is not None:
            _take_back(self.path / name, legacy)
        _take_back(self.records_file, record)

    def note_running(self, entry: str) -> None:
        """Say which stage runs now (``entry``: its record as JSON), until ``note_between`` or the
        next stage's note: the next run reads it if we die. Written in one go, not atomically: a
        torn entry is skipped."""
        # One file per thread (a scheduler runs several stages of one process at once), kept from
        # stage to stage and written over in place, padded with blanks that JSON ignores: creating
        # and removing a file, or truncating one, cost every stage 0.2-0.3 ms. Between two stages
        # it says `null`, no entry; the next run's begin removes it.
        path = self._note()
        make_dirs(path.parent)
        data = entry.encode()
        with writing(path):
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                os.pwrite(fd, data.ljust(max(os.fstat(fd).st_size, len(data))), 0)
            finally:
                os.close(fd)

    def note_between(self) -> None:
        """No stage of this thread runs now (its last one's record is written, or about to be)."""
        path = self._note()
        with contextlib.suppress(OSError):  # no note of this thread's: nothing to take back
            fd = os.open(path, os.O_RDWR)
            try:
                os.pwrite(fd, b"null".ljust(os.fstat(fd).st_size), 0)
            finally:
                os.close(fd)

    def _note(self) -> Path:
        return self.path / RUNNING / f"{os.getpid()}-{threading.get_ident()}"

    def running_stages(self) -> tuple[dict[str, object], ...]:
        """The stage entries left by processes that did not finish their stage (one per thread)."""
        entries = []
        with contextlib.suppress(OSError):
            for path in sorted((self.path / RUNNING).iterdir()):
                with contextlib.suppress(OSError, ValueError):
                    entry = read.json_of(read.read_bytes(path, MAX_RECORD_BYTES))
                    if isinstance(entry, dict):
                        entries.append(entry)
        return tuple(entries)

    @property
    def stamps_file(self) -> Path:
        return self.path / PASSED_STAMPS

    def stamp(self, stage: Stage, passed: bool) -> None:
        """Remember whether ``stage`` passed with these argv: a later run that deselects it may use its
        outputs only then. One appended line per stage that ran, the last one counting: creating a
        file per stage cost every stage ~0.3 ms, and a failure must take back an earlier pass."""
        line = json.dumps({"id": stage.id, "digest": stage_digest(stage) if passed else ""})
        make_dirs(self.path)
        _append(self.stamps_file, line + "\n")

    def passed_before(self, stage: Stage) -> bool:
        """True when the last run of ``stage`` passed it exactly as this plan would run it."""
        return self._stamps().get(stage.id, "") == stage_digest(stage)

    def _stamps(self) -> dict[str, str]:
        """Each stage's last stamp (a torn line, cut short by a full disk, is no stamp)."""
        stamps: dict[str, str] = {}
        with contextlib.suppress(OSError):  # none yet, or not a file the door reads: no stamp
            for _, line in read.numbered_lines(self.stamps_file, MAX_RECORD_BYTES, MAX_RESULTS_BYTES):
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    entry = read.json_of(line or b"")
                    stamps[str(entry["id"])] = str(entry["digest"])
        return stamps

    def _compact_stamps(self) -> None:
        """Keep one line per stage that passed: the file grows by a line per stage every run."""
        stamps = {sid: digest for sid, digest in self._stamps().items() if digest}
        if self.stamps_file.is_file():
            write_atomic(
                self.stamps_file, "".join(json.dumps({"id": i, "digest": d}) + "\n" for i, d in stamps.items())
            )

    # --- reading ---

    def records(self, warn: Warn | None = None) -> list[StageRecord]:
        return read_records(self.records_file, warn)


def archive_interrupted(results: ResultsDir, found: Interrupted, record: StageRecord) -> None:
    """Add the record of the stage a killed run was running to that run's archived records."""
    dest = results.runs_dir / found.run_id
    make_dirs(dest)
    _append(dest / RECORDS, record_line(record, dest))
