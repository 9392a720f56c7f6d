"""Results directories → one ``NodeRun`` per node, read with the cluster merge's reader, and which
run each record belongs to.

A results folder's ``results.jsonl`` may hold records *carried over* from earlier runs (a
``-k``/``--lf`` run keeps the latest record of every stage it did not run). Such a record
keeps the run id of the run that made it, so the report can tell this run's verdict and
figures from older ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tipc.errors import ResultsError
from tipc.files import read
from tipc.results.folder import RUN_INFO, Warn, node_dirs, numbered_records, results_files, superseded
from tipc.results.records import RunInfo, StageRecord

# (node rank, shard) → the id of that node's (shard's) run ("" before run ids): every node and
# every shard of a split matrix is a run of its own.
RunIds = Mapping[tuple[int, str], str]
# The folders a report may read files from (None: a record this process wrote, trusted as it is).
Roots = tuple[str, ...] | None
# How deep a results folder lies in its repo at most: test_tipc/output/<model>/<mode>/node<k>/shard<k>.
REPO_DEPTH = 6


@dataclass(frozen=True, slots=True)
class RecordsFile:
    """One ``results.jsonl`` as its first reading found it."""

    path: Path
    until: int  # its size then: a file a run still appends to reads the same each time
    dropped: frozenset[int]  # lines a later line of the same run replaces, and lines that are no record
    last: int  # the last line that is a record


def _quiet(_: str) -> None:
    """Bad lines were reported on the first reading; later ones skip them without a word."""


@dataclass(frozen=True)
class Records:
    """A run's records, read again from their files each time they are iterated: a report holds what
    it gathers from them (a matrix cell, a summary line), never the records themselves, so a 100 MB
    ``results.jsonl`` renders in the memory of its aggregates. The first reading checks every line
    and keeps what the others need before they start (which run each part is, where its stages ran)."""

    files: tuple[RecordsFile, ...] = ()
    count: int = 0
    newest: Mapping[tuple[int, str], str] = field(default_factory=dict)  # (node rank, shard) → newest run id
    cwds: tuple[str, ...] = ()  # the stages' working folders, each once
    ranks: frozenset[int] = frozenset()

    @classmethod
    def read(cls, path: Path, warn: Warn | None = None) -> Records:
        """The records of the ``results.jsonl`` at ``path``, read once through (``read_records`` says
        what ``warn`` does)."""
        try:
            until = path.stat().st_size
        except (FileNotFoundError, NotADirectoryError):
            return cls()
        except OSError:  # the reader says why
            until = None
        newest: dict[tuple[int, str], str] = {}
        cwds: dict[str, None] = {}
        bad: set[int] = set()  # lines that are no record, or blank
        count = last = 0

        def noted(numbered: Iterator[tuple[int, StageRecord]]) -> Iterator[tuple[int, StageRecord]]:
            nonlocal count, last
            for number, record in numbered:
                bad.update(range(last + 1, number))
                part = (record.node_rank, record.shard)
                newest[part] = max(newest.get(part, record.run_id), record.run_id)
                cwds[record.cwd] = None
                count, last = count + 1, number
                yield number, record

        dropped = superseded(noted(numbered_records(path, warn, until)))
        size = until if until is not None else path.stat().st_size
        found = RecordsFile(path, size, frozenset(dropped | bad), last)
        return cls((found,), count - len(dropped), newest, tuple(c for c in cwds if c), frozenset(r for r, _ in newest))

    @classmethod
    def joined(cls, parts: Iterable[Records]) -> Records:
        """Several runs' records as one, each run's in its order."""
        found = tuple(parts)
        return cls(
            tuple(f for p in found for f in p.files),
            sum(p.count for p in found),
            {part: run for p in found for part, run in p.newest.items()},
            tuple(dict.fromkeys(c for p in found for c in p.cwds)),
            frozenset(r for p in found for r in p.ranks),
        )

    def __iter__(self) -> Iterator[StageRecord]:
        for f in self.files:
            for number, record in numbered_records(f.path, _quiet, f.until, skip=f.dropped, checked=True):
                yield record
                if number == f.last:
                    break

    def __len__(self) -> int:
        return self.count


@dataclass(frozen=True, slots=True)
class NodeRun:
    """One node's run (or a merged directory's runs) as read from one results directory."""

    source: Path
    info: RunInfo
    records: Records


def load_runs(paths: Sequence[Path], warn: Warn | None = None) -> tuple[NodeRun, ...]:
    """Each path a results directory, or a ``<mode>`` directory standing for its ``node<k>/`` children.
    With ``warn``, a bad record line is reported there and skipped instead of stopping the report."""
    if not paths:
        raise ResultsError("<arguments>", 0, "no results directory given; expected at least one")
    runs = []
    for p in node_dirs(paths):
        info, records = results_files(p)
        runs.append(NodeRun(Path(p), info, Records.read(records, warn)))
    first = runs[0]
    for run in runs[1:]:
        if (run.info.model, run.info.mode) != (first.info.model, first.info.mode):
            raise ResultsError(
                str(run.source / RUN_INFO),
                0,
                f"found model/mode {run.info.model}/{run.info.mode}, expected "
                f"{first.info.model}/{first.info.mode} as in {first.source / RUN_INFO}: "
                "one report covers one run",
            )
    return tuple(runs)


def run_ids(runs: Sequence[NodeRun]) -> dict[tuple[int, str], str]:
    """Each node's (shard's) own run id. A merged folder's ``run.json`` is node 0's (shard 1's):
    another's run is the newest id among its records (ids sort by start time, carried ones are older)."""
    ids: dict[tuple[int, str], str] = {}
    for run in runs:
        own = (run.info.node_rank, run.info.shard)
        ids[own] = run.info.run_id
        for part in sorted(set(run.records.newest) - {own}):
            ids.setdefault(part, run.records.newest[part])
    return ids


def is_carried(record: StageRecord, ids: RunIds) -> bool:
    """True for a record an earlier run made. Results from before run ids cannot tell: never."""
    own = ids.get((record.node_rank, record.shard), "")
    return bool(own) and record.run_id != own


def carried_note(record: StageRecord, ids: RunIds) -> str:
    """What the report says of a carried-over record; "" for this run's."""
    if not is_carried(record, ids):
        return ""
    return f"from earlier run {record.run_id}" if record.run_id else "from an earlier run (before run ids)"


def run_roots(runs: Sequence[NodeRun]) -> tuple[str, ...]:
    """Where the files a report shows may lie: each results folder, and a stage's cwd (its repo) when
    the results folder lies in it, at most ``REPO_DEPTH`` levels down (never the file system's root).
    A record is input like any other: a log, an image or an output it names elsewhere (``/etc``, a
    ``../`` path, a link out) is not read."""
    roots: dict[str, None] = {}
    for run in runs:
        source = os.path.realpath(run.source)
        roots[source] = None
        for cwd in run.records.cwds:
            base = os.path.realpath(cwd)
            depth = len(Path(os.path.relpath(source, base)).parts)
            if base != os.sep and read.inside(source, [base]) and depth <= REPO_DEPTH:
                roots[base] = None
    return tuple(roots)


def readable(path: str | Path, roots: Roots) -> bool:
    """Whether a path a record names lies in ``roots``."""
    return roots is None or read.inside(path, roots)
