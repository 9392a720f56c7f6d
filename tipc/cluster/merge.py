"""One night's node (or shard) results directories → one directory a report can read.

Each node of a multi-node run writes its own ``results.jsonl``, ``run.json`` and
``results_python.log`` (under ``<mode>/node<rank>/``), and so does each part of a
split matrix (``--shard K/N``, under ``<mode>/shards/<run group>/shard<K>/``). A merge
joins the parts of one run group (``tipc.cluster.group``: one night), the one asked
for or the newest: a part of another group is set aside and named, never merged, and
a part the group should have (a shard of its split, a node of its list) that did not
report is a named gap, whatever folders other nights left. Merging keeps every record
as it was (``node_rank``/``host``/``shard`` included), orders them by node, shard, then
start time, and refuses parts that belong to different runs — for shards, to different
splits (``RunInfo.partition``): shards that split the matrix differently could have
run a chain twice or never.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from tipc.errors import ResultsError, UsageError
from tipc.files import read
from tipc.files.write import write_atomic, write_atomic_lines, writing
from tipc.results.folder import (
    LEGACY_LOG,
    MAX_RESULTS_BYTES,
    RECORDS,
    RUN_INFO,
    SHARDS,
    load_results_dir,
    newest_part,
    part_paths,
    read_run_info,
    record_line,
)
from tipc.results.records import RunInfo, StageRecord, Status

Part = tuple[Path, RunInfo]


@dataclass(frozen=True, slots=True)
class Merged:
    """What a merge wrote, and what it did not join."""

    path: Path
    group: str  # "" for parts from before run groups
    kind: str  # "shard" | "node"
    parts: int
    records: int
    set_aside: tuple[str, ...]  # parts of other run groups, named
    gaps: tuple[str, ...]  # parts of this group that did not report: "shard 3/8", "node 1"
    stopped: tuple[str, ...] = ()  # parts stopped before their end (a cancel, a killed harness), with their chains

    @property
    def incomplete(self) -> bool:
        """A part did not report or did not run to its end: the night is incomplete, neither passed nor failed."""
        return bool(self.gaps or self.stopped)


def _mode_dir(part: Path) -> Path:
    """The ``<mode>`` folder a part belongs to (``<mode>/node<k>``, ``<mode>/shards/<group>/shard<K>``)."""
    return part.parents[2] if part.parent.parent.name == SHARDS else part.parent


def default_out(dirs: Sequence[Path]) -> Path:
    """The ``<mode>`` directory the parts belong to."""
    parents = {_mode_dir(d.resolve()) for d in dirs}
    if len(parents) != 1:
        raise ResultsError(
            str(dirs[0]), 0, "the node directories have different parents; pass --out DIR for the merged results"
        )
    return parents.pop()


def _candidates(paths: Sequence[str | Path]) -> list[tuple[Path, RunInfo]]:
    """The parts named: a ``<mode>`` folder stands for every part it holds (of any night). A part
    whose ``run.json`` does not read (a shard that is no ``K/N``) is an error naming it, never left
    out: it would be counted as a part that did not report."""
    out: list[tuple[Path, RunInfo]] = []
    for raw in paths:
        path = Path(raw)
        parts = [p for p in part_paths(path) if (p / RUN_INFO).exists()]
        out.extend((p, read_run_info(p / RUN_INFO)) for p in parts or [path])
    return out


def _set_aside(others: Sequence[tuple[Path, RunInfo]]) -> tuple[str, ...]:
    by_group = Counter(info.run_group or "(none)" for _, info in others)
    return tuple(
        f"run group {group}: {count} part(s) ("
        + ", ".join(str(d) for d, info in others if (info.run_group or "(none)") == group)
        + ")"
        for group, count in sorted(by_group.items())
    )


def merge(paths: Sequence[str | Path], out: str | Path | None = None, group: str | None = None) -> Merged:
    """Merge one run group's parts into ``out`` (default: their ``<mode>`` directory). ``group``:
    the run group to merge (default: the newest part's)."""
    candidates = _candidates(paths)
    if not candidates:
        raise ResultsError(str(paths[0]) if paths else "<arguments>", 0, "no node or shard results to merge")
    chosen = newest_part(candidates).run_group if group is None else group
    mine = [(d, info) for d, info in candidates if info.run_group == chosen]
    if not mine:
        groups = ", ".join(sorted({i.run_group or "(none)" for _, i in candidates}))
        raise ResultsError(str(paths[0]), 0, f"no part of run group {chosen} here; found run group(s) {groups}")
    others = [(d, info) for d, info in candidates if info.run_group != chosen]
    nodes = sorted(mine, key=lambda n: (n[1].node_rank, _shard_index(n[1])))
    for d, _ in nodes:
        if not (d / LEGACY_LOG).exists():
            raise ResultsError(str(d / LEGACY_LOG), 0, "missing; every node's results directory has one")
    _check_same_run(nodes)
    dirs = [d for d, _ in nodes]
    target = Path(out) if out is not None else default_out(dirs)
    if any(target.resolve() == d.resolve() for d in dirs):
        raise ResultsError(str(target), 0, "is one of the node directories; choose another --out")
    set_aside = _set_aside(others)
    gaps = _gaps([info for _, info in nodes])
    if target.exists() and not target.is_dir():
        raise UsageError(f"--out {target}: is a file; expected a directory for the merged results")
    with writing(target):
        target.mkdir(parents=True, exist_ok=True)
    count: list[int] = []
    stopped: list[str] = []
    write_atomic_lines(target / RECORDS, _lines(nodes, target, count, stopped))
    info = replace(merged_run_info(nodes, set_aside, gaps, stopped), folder=os.path.abspath(target))
    write_atomic(target / RUN_INFO, info.to_json() + "\n")
    with writing(target / LEGACY_LOG):
        (target / LEGACY_LOG).write_bytes(merged_legacy_log(nodes))
    kind = "shard" if nodes[0][1].shard else "node"
    return Merged(target, chosen, kind, len(nodes), sum(count), set_aside, gaps, tuple(stopped))


def merge_dirs(paths: Sequence[str | Path], out: str | Path | None = None) -> Path:
    """``merge`` of the newest run group; returns where the merged results are."""
    return merge(paths, out).path


class Seen(dict[int, int]):
    """Each stage's record read so far: a digest of its key -> its part's index << 32 | its line; ``parts``: the
    parts read, by index."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[Path] = []


def _lines(nodes: Sequence[Part], target: Path, count: list[int], stopped: list[str]) -> Iterator[str]:
    """Every part's records as lines of ``target``'s results, part by part, each part's by start time:
    one part is read at a time, so a merge holds a shard's records, never the night's. ``count``
    hears how many records each part gave, ``stopped`` each part stopped before its end."""
    seen = Seen()
    for d, info in nodes:
        _, records = load_results_dir(d)
        _check_records(d, info, records, seen)
        count.append(len(records))
        stopped.extend(filter(None, [_stopped(info, records)]))
        for record in sorted(records, key=lambda r: r.start):
            yield record_line(record, target)


def _check_same_run(nodes: Sequence[Part]) -> None:
    first_dir, first = nodes[0]
    ranks: dict[tuple[int, str], Path] = {}
    for d, info in nodes:
        for name in ("model", "mode", "config_sha256", "partition"):
            if getattr(info, name) != getattr(first, name):
                raise ResultsError(
                    str(d / RUN_INFO),
                    0,
                    f"{name} is {getattr(info, name)!r} but "
                    f"{first_dir / RUN_INFO} has {getattr(first, name)!r}; "
                    "merge only the nodes of one run",
                )
        seen = ranks.get((info.node_rank, info.shard))
        if seen is not None:
            what, each = (f"shard {info.shard}", "shard") if info.shard else (f"node_rank {info.node_rank}", "node")
            raise ResultsError(str(d / RUN_INFO), 0, f"{what} again (also in {seen / RUN_INFO}); each {each} once")
        ranks[info.node_rank, info.shard] = d


def _check_records(d: Path, info: RunInfo, records: Sequence[StageRecord], seen: Seen) -> None:
    """A part's records against its ``run.json``; ``seen``: each stage read so far, as a digest of its key beside
    the part and line it was read at (two ints a record, not the record: a stage in two parts is named without
    holding the night)."""
    for number, record in enumerate(records, 1):
        digest = int.from_bytes(hashlib.blake2b(repr(record.key).encode(), digest_size=8).digest(), "big")
        part, line = divmod(seen.setdefault(digest, len(seen.parts) << 32 | number), 1 << 32)
        if part != len(seen.parts):
            raise ResultsError(
                str(d / RECORDS),
                number,
                f"record {record.id!r} of node {record.node_rank} is also in "
                f"{seen.parts[part] / RECORDS}:{line}; each stage is recorded by one part (a record copied "
                "from another part?)",
            )
        if (record.model, record.mode) != (info.model, info.mode) or record.node_rank != info.node_rank:
            raise ResultsError(
                str(d / RECORDS),
                number,
                f"record {record.id!r} is {record.model}/{record.mode} node "
                f"{record.node_rank}, but {RUN_INFO} says {info.model}/{info.mode} "
                f"node {info.node_rank}",
            )
    seen.parts.append(d)


def _stopped(info: RunInfo, records: Sequence[StageRecord]) -> str:
    """How a part was stopped before its end, with the chains it left unfinished ("" when it ran to its end):
    the scheduler ended it (a stage's infra evidence says so), or its harness was killed (``run.json`` never
    said it ended)."""
    cancel = next((r for r in records if r.stopped_by_scheduler), None)
    if cancel is not None:
        evidence = ", ".join(f"{k} {v}" for k, v in cancel.infra.items() if k != "kind")
        how = f"was stopped by the scheduler ({evidence})"
    elif not info.ended:
        how = "did not end (its harness was killed, or it still runs)"
    else:
        return ""
    chains = sorted({r.chain for r in records if r.status in (Status.INFRA, Status.BLOCKED, Status.FAILED)})
    listed = f"chains not run to their end: {', '.join(chains)}" if chains else "no chain of it was recorded"
    return f"{_part(info)} {how}; {listed}; the chains it had not begun are not in these results"


def _part(info: RunInfo) -> str:
    """How merge notes name one input: ``node 1``, ``shard 2/8``."""
    return f"shard {info.shard}" if info.shard else f"node {info.node_rank}"


def _shard_index(info: RunInfo) -> int:
    return int(info.shard.partition("/")[0]) if info.shard else 0


def _gaps(infos: Sequence[RunInfo]) -> tuple[str, ...]:
    """The parts the group should have and did not report: every shard of its split, every node
    of its node list."""
    if infos[0].shard:
        count = int(infos[0].shard.partition("/")[2])
        return tuple(f"shard {k}/{count}" for k in sorted(set(range(1, count + 1)) - {_shard_index(i) for i in infos}))
    listed = max((i.nodes for i in infos), key=len)
    ranks = {i.node_rank for i in infos}
    return tuple(f"node {k} ({ip})" for k, ip in enumerate(listed) if k not in ranks)


def merged_run_info(
    nodes: Sequence[Part], set_aside: Sequence[str] = (), gaps: Sequence[str] = (), stopped: Sequence[str] = ()
) -> RunInfo:
    """Node 0's (shard 1's) facts, with every part's host, the earliest start and the whole span."""
    infos = [info for _, info in nodes]
    head = infos[0]
    start = min(i.start for i in infos)
    end = max(i.start + i.duration for i in infos)
    kind = "shard" if head.shard else "node"
    group = f" of run group {head.run_group}" if head.run_group else ""
    notes = [f"merged from {len(nodes)} {kind}(s){group}: " + ", ".join(f"{_part(i)} {i.host} ({d})" for d, i in nodes)]
    if gaps:
        notes.append(f"incomplete: {', '.join(gaps)} did not report: their chains are not in these results")
    notes += [f"set aside (another night's, not merged): {line}" for line in set_aside]
    notes += [f"incomplete: {line}" for line in stopped]
    for name in ("tipc_version", "paddle_version", "python_version", "device"):
        values = {getattr(i, name) for i in infos}
        if len(values) > 1:
            notes.append(f"{kind}s differ in {name}: " + ", ".join(f"{_part(i)} {getattr(i, name)!r}" for i in infos))
    notes += [f"{_part(i)}: {note}" for i in infos for note in i.notes]
    listed = head.nodes or tuple(dict.fromkeys(i.host for i in infos))
    return replace(
        head,
        host="",
        node_rank=0,
        shard="",
        nodes=tuple(listed),
        start=start,
        duration=end - start,
        notes=tuple(notes),
        ended=all(i.ended for i in infos),
    )


def merged_legacy_log(nodes: Sequence[Part]) -> bytes:
    """Every node's status lines byte for byte, each node's block headed by one ``#`` line."""
    parts = []
    for d, info in nodes:
        try:
            text = read.read_bytes(d / LEGACY_LOG, MAX_RESULTS_BYTES)
        except OSError as exc:
            raise ResultsError(str(d / LEGACY_LOG), 0, f"cannot be read ({exc.strerror or exc})") from None
        if text and not text.endswith(b"\n"):
            text += b"\n"
        parts.append(f"# {_part(info)} ({info.host}): {d / LEGACY_LOG}\n".encode() + text)
    return b"".join(parts)
