"""Several nodes' (or shards') results directories → one directory a report can read.

Each node of a multi-node run writes its own ``results.jsonl``, ``run.json`` and
``results_python.log`` (under ``<mode>/node<rank>/``), and so does each part of a
split matrix (``--shard K/N``, under ``<mode>/shard<K>/``). Merging keeps every
record as it was (``node_rank``/``host``/``shard`` included), orders them by node,
shard, then start time, and refuses directories that belong to different runs — for
shards, to different splits (``RunInfo.partition``): shards that split the matrix
differently could have run a chain twice or never. A missing shard is a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tipc.errors import ResultsError, UsageError
from tipc.files import read
from tipc.files.write import write_atomic, writing
from tipc.results.folder import LEGACY_LOG, MAX_RESULTS_BYTES, RECORDS, RUN_INFO, load_results_dir, node_dirs
from tipc.results.records import RunInfo, StageRecord

NodeResults = tuple[Path, RunInfo, list[StageRecord]]


def default_out(dirs: Sequence[Path]) -> Path:
    """The common parent of the node directories (the ``<mode>`` directory)."""
    parents = {d.resolve().parent for d in dirs}
    if len(parents) != 1:
        raise ResultsError(
            str(dirs[0]), 0, "the node directories have different parents; pass --out DIR for the merged results"
        )
    return parents.pop()


def merge_dirs(paths: Sequence[str | Path], out: str | Path | None = None) -> Path:
    """Merge node results into ``out`` (default: their common parent); returns ``out``."""
    dirs = node_dirs(paths)
    nodes = [(d, *load_results_dir(d)) for d in dirs]
    for d, _, _ in nodes:
        if not (d / LEGACY_LOG).exists():
            raise ResultsError(str(d / LEGACY_LOG), 0, "missing; every node's results directory has one")
    _check_same_run(nodes)
    nodes.sort(key=lambda n: (n[1].node_rank, _shard_index(n[1])))
    target = Path(out) if out is not None else default_out(dirs)
    if any(target.resolve() == d.resolve() for d in dirs):
        raise ResultsError(str(target), 0, "is one of the node directories; choose another --out")
    if target.exists() and not target.is_dir():
        raise UsageError(f"--out {target}: is a file; expected a directory for the merged results")
    with writing(target):
        target.mkdir(parents=True, exist_ok=True)
    records = sorted((r for _, _, rs in nodes for r in rs), key=lambda r: (r.node_rank, r.start))
    write_atomic(target / RECORDS, "".join(r.to_json() + "\n" for r in records))
    write_atomic(target / RUN_INFO, merged_run_info(nodes).to_json() + "\n")
    with writing(target / LEGACY_LOG):
        (target / LEGACY_LOG).write_bytes(merged_legacy_log(nodes))
    return target


def _check_same_run(nodes: list[NodeResults]) -> None:
    first_dir, first, _ = nodes[0]
    ranks: dict[tuple[int, str], Path] = {}
    for d, info, records in nodes:
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
        for number, record in enumerate(records, 1):
            if (record.model, record.mode) != (info.model, info.mode) or record.node_rank != info.node_rank:
                raise ResultsError(
                    str(d / RECORDS),
                    number,
                    f"record {record.id!r} is {record.model}/{record.mode} node "
                    f"{record.node_rank}, but {RUN_INFO} says {info.model}/{info.mode} "
                    f"node {info.node_rank}",
                )


def _part(info: RunInfo) -> str:
    """How merge notes name one input: ``node 1``, ``shard 2/8``."""
    return f"shard {info.shard}" if info.shard else f"node {info.node_rank}"


def _shard_index(info: RunInfo) -> int:
    return int(info.shard.partition("/")[0]) if info.shard else 0


def _missing_shards(infos: Sequence[RunInfo]) -> str:
    shards = [i.shard for i in infos if i.shard]
    if not shards:
        return ""
    count = int(shards[0].partition("/")[2])
    missing = sorted(set(range(1, count + 1)) - {_shard_index(i) for i in infos})
    if not missing:
        return ""
    names = ", ".join(f"{k}/{count}" for k in missing)
    return f"shard(s) {names} missing: their chains are not in these results"


def merged_run_info(nodes: Sequence[NodeResults]) -> RunInfo:
    """Node 0's (shard 1's) facts, with every part's host, the earliest start and the whole span."""
    infos = [info for _, info, _ in nodes]
    head = infos[0]
    start = min(i.start for i in infos)
    end = max(i.start + i.duration for i in infos)
    kind = "shard" if head.shard else "node"
    notes = [f"merged from {len(nodes)} {kind}(s): " + ", ".join(f"{_part(i)} {i.host} ({d})" for d, i, _ in nodes)]
    notes += filter(None, [_missing_shards(infos)])
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
    )


def merged_legacy_log(nodes: Sequence[NodeResults]) -> bytes:
    """Every node's status lines byte for byte, each node's block headed by one ``#`` line."""
    parts = []
    for d, info, _ in nodes:
        try:
            text = read.read_bytes(d / LEGACY_LOG, MAX_RESULTS_BYTES)
        except OSError as exc:
            raise ResultsError(str(d / LEGACY_LOG), 0, f"cannot be read ({exc.strerror or exc})") from None
        if text and not text.endswith(b"\n"):
            text += b"\n"
        parts.append(f"# {_part(info)} ({info.host}): {d / LEGACY_LOG}\n".encode() + text)
    return b"".join(parts)
