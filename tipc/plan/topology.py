"""``gpu_list`` entries → Topology, read by structure (the bash read string lengths: docs/spec.md §1.6, §8 B5)."""

from __future__ import annotations

from dataclasses import replace

from tipc.config.bounds import excerpt
from tipc.config.model import Field
from tipc.errors import ConfigError
from tipc.plan.model import Topology, TopologyKind

CPU_ENTRY = "-1"
EXPECTED = "expected -1 (CPU), a GPU id, a comma list of ids, or '<ip>,<ip>;<ids>'"


def parse_topology(entry: str, field: Field, path: str) -> Topology:
    """One ``|`` entry of ``gpu_list``; any number of ids or ips works."""
    if entry == CPU_ENTRY:
        return Topology("cpu", entry)
    ips_text, sep, gpus_text = entry.rpartition(";")
    devices = _gpu_ids(gpus_text, entry, field, path)
    ips = _ips(ips_text, entry, field, path) if sep else ()
    return classify(entry, devices, ips)


def with_ips(topology: Topology, ips: tuple[str, ...]) -> Topology:
    """Replace a multi-node entry's ip list (``--ips``); single-node entries keep running on one node."""
    if topology.kind != "multi_node":
        return topology
    return classify(topology.entry, topology.devices, ips, nproc=topology.nproc)


def on_cpu(topology: Topology) -> Topology:
    """``--device cpu``: the same process layout with CPU processes (``--gpus=0,1`` → 2 processes)."""
    if not topology.devices:
        return topology
    kind = "cpu" if topology.kind == "gpu" else topology.kind
    return replace(topology, kind=kind, devices=())


def classify(entry: str, devices: tuple[str, ...], ips: tuple[str, ...], nproc: int | None = None) -> Topology:
    """Several ips make a multi-node entry; on one node, one process is ``gpu``, more ``multi_gpu``."""
    nproc = len(devices) if nproc is None else nproc
    if len(ips) > 1:
        return Topology("multi_node", entry, devices, ips, nproc)
    kind: TopologyKind = "gpu" if nproc == 1 else "multi_gpu"
    return Topology(kind, entry, devices, (), nproc)


def _gpu_ids(text: str, entry: str, field: Field, path: str) -> tuple[str, ...]:
    ids = tuple(text.split(","))
    if not all(i.strip().isdigit() for i in ids):
        raise ConfigError(path, field.line, f"{field.key}: entry {excerpt(entry)!r}: {EXPECTED}")
    return tuple(i.strip() for i in ids)


def _ips(text: str, entry: str, field: Field, path: str) -> tuple[str, ...]:
    ips = tuple(i.strip() for i in text.split(","))
    if not all(ips):
        raise ConfigError(path, field.line, f"{field.key}: entry {excerpt(entry)!r} has an empty ip; {EXPECTED}")
    return ips
