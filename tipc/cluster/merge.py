"""Several nodes' results directories → one directory a report can read.

Each node of a multi-node run writes its own ``results.jsonl``, ``run.json`` and
``results_python.log`` (under ``<mode>/node<rank>/``). Merging keeps every
record as it was (``node_rank``/``host`` included), orders them by node then
start time, and refuses directories that belong to different runs.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Sequence

from tipc.config.errors import ConfigError
from tipc.run.record import RunInfo, StageRecord

RESULTS = "results.jsonl"
RUN = "run.json"
LEGACY = "results_python.log"
NODE_PREFIX = "node"

NodeResults = tuple[Path, RunInfo, list[StageRecord]]


def load_results_dir(path: str | Path) -> tuple[RunInfo, list[StageRecord]]:
    """``run.json`` and ``results.jsonl`` of one results directory; ``ConfigError`` names the bad line."""
    path = Path(path)
    run_path, results_path = path / RUN, path / RESULTS
    for needed in (run_path, results_path):
        if not needed.is_file():
            raise ConfigError(str(needed), 0, "missing; expected a tipc results directory "
                                              f"with {RUN} and {RESULTS}")
    try:
        info = RunInfo.from_dict(json.loads(run_path.read_text(encoding="utf-8")))
    except (ValueError, TypeError, KeyError) as exc:
        raise ConfigError(str(run_path), 0, f"not a tipc run.json ({exc})") from None
    records = []
    for number, line in enumerate(results_path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(StageRecord.from_dict(json.loads(line)))
        except (ValueError, TypeError, KeyError) as exc:
            raise ConfigError(str(results_path), number,
                              f"not a stage record ({exc}); expected one JSON object per line") from None
    return info, records


def node_dirs(paths: Sequence[str | Path]) -> list[Path]:
    """The results directories named, a ``<mode>`` directory standing for its ``node<k>/`` children.

    Children win over the directory's own files, which are an earlier merge's output.
    """
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        children = sorted(p for p in path.glob(f"{NODE_PREFIX}*") if (p / RUN).is_file())
        out.extend(children or [path])
    return out


def default_out(dirs: Sequence[Path]) -> Path:
    """The common parent of the node directories (the ``<mode>`` directory)."""
    parents = {d.resolve().parent for d in dirs}
    if len(parents) != 1:
        raise ConfigError(str(dirs[0]), 0, "the node directories have different parents; "
                                           "pass --out DIR for the merged results")
    return parents.pop()


def merge_dirs(paths: Sequence[str | Path], out: str | Path | None = None) -> Path:
    """Merge node results into ``out`` (default: their common parent); returns ``out``."""
    dirs = node_dirs(paths)
    nodes = [(d, *load_results_dir(d)) for d in dirs]
    for d, _, _ in nodes:
        if not (d / LEGACY).is_file():
            raise ConfigError(str(d / LEGACY), 0, "missing; every node's results directory has one")
    _check_same_run(nodes)
    nodes.sort(key=lambda n: n[1].node_rank)
    target = Path(out) if out is not None else default_out(dirs)
    if any(target.resolve() == d.resolve() for d in dirs):
        raise ConfigError(str(target), 0, "is one of the node directories; choose another --out")
    target.mkdir(parents=True, exist_ok=True)
    records = sorted((r for _, _, rs in nodes for r in rs), key=lambda r: (r.node_rank, r.start))
    (target / RESULTS).write_text("".join(r.to_json() + "\n" for r in records))
    (target / RUN).write_text(merged_run_info(nodes).to_json() + "\n")
    (target / LEGACY).write_bytes(merged_legacy_log(nodes))
    return target


def _check_same_run(nodes: list[NodeResults]) -> None:
    first_dir, first, _ = nodes[0]
    ranks: dict[int, Path] = {}
    for d, info, records in nodes:
        for name in ("model", "mode", "config_sha256"):
            if getattr(info, name) != getattr(first, name):
                raise ConfigError(str(d / RUN), 0, f"{name} is {getattr(info, name)!r} but "
                                  f"{first_dir / RUN} has {getattr(first, name)!r}; "
                                  "merge only the nodes of one run")
        if info.node_rank in ranks:
            raise ConfigError(str(d / RUN), 0, f"node_rank {info.node_rank} again "
                              f"(also in {ranks[info.node_rank] / RUN}); each node once")
        ranks[info.node_rank] = d
        for number, record in enumerate(records, 1):
            if (record.model, record.mode) != (info.model, info.mode) or record.node_rank != info.node_rank:
                raise ConfigError(str(d / RESULTS), number,
                                  f"record {record.id!r} is {record.model}/{record.mode} node "
                                  f"{record.node_rank}, but {RUN} says {info.model}/{info.mode} "
                                  f"node {info.node_rank}")


def merged_run_info(nodes: Sequence[NodeResults]) -> RunInfo:
    """Node 0's facts, with every node's host, the earliest start and the whole span."""
    infos = [info for _, info, _ in nodes]
    head = infos[0]
    start = min(i.start for i in infos)
    end = max(i.start + i.duration for i in infos)
    notes = [f"merged from {len(nodes)} node(s): " + ", ".join(
        f"node {i.node_rank} {i.host} ({d})" for d, i, _ in nodes)]
    for name in ("tipc_version", "paddle_version", "python_version", "device"):
        values = {getattr(i, name) for i in infos}
        if len(values) > 1:
            notes.append(f"nodes differ in {name}: " + ", ".join(
                f"node {i.node_rank} {getattr(i, name)!r}" for i in infos))
    notes += [f"node {i.node_rank}: {note}" for i in infos for note in i.notes]
    listed = head.nodes or tuple(i.host for i in infos)
    return replace(head, host="", node_rank=0, nodes=tuple(listed), start=start,
                   duration=end - start, notes=tuple(notes))


def merged_legacy_log(nodes: Sequence[NodeResults]) -> bytes:
    """Every node's status lines byte for byte, each node's block headed by one ``#`` line."""
    parts = []
    for d, info, _ in nodes:
        text = (d / LEGACY).read_bytes()
        if text and not text.endswith(b"\n"):
            text += b"\n"
        parts.append(f"# node {info.node_rank} ({info.host}): {d / LEGACY}\n".encode() + text)
    return b"".join(parts)
