"""``make gpu-check``'s verdict: what a run on a GPU machine must show, read from what tipc wrote.

    python tests/gpu/gpu_check.py --doctor doctor.json --serial DIR --scheduled DIR [DIR ...]

* the doctor's GPU checks passed (the driver answers; libcudart, libcublas, libcudnn resolve;
  libnccl too for a multi-GPU config); paddle's own checks are shown, not judged: the stand-in
  target runs on PyTorch where paddle cannot be installed;
* both runs chose the GPU (``run.json``'s device) and no stage failed; a stage is blocked only
  for a chain that needs more GPUs than the machine has;
* every stage that ran on a GPU saw only ids of this machine's (``CUDA_VISIBLE_DEVICES``), all
  of one chain's GPU stages saw the same ones, a launched training's ``--gpus=`` named them too,
  and a CPU inference stage of a pinned chain saw none;
* no two chains held a GPU at once: the spans of their GPU stages (``start`` to ``start +
  duration``) over a shared id do not overlap;
* every GPU inference stage recorded the GPU memory and utilisation of its benchmark block.

Prints one line per finding and a summary (chains, stage time, wall time); exits 1 on any finding.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tipc.results.folder import load_results_dir
from tipc.results.records import StageRecord, Status
from tipc.schedule.devices import available_gpus

REQUIRED = ("nvidia driver", "libcudart", "libcublas", "libcudnn")
SHOWN_ONLY = ("paddle", "run_check", "cuda compatibility")
VISIBLE = "CUDA_VISIBLE_DEVICES"
GPUS = "--gpus="


def doctor_findings(doc: dict, multi_gpu: bool) -> list[str]:
    """The doctor's GPU checks that did not pass, from ``tipc doctor --json``'s document."""
    required = (*REQUIRED, "libnccl") if multi_gpu else REQUIRED
    findings = []
    for config in doc.get("configs", []):
        states = {c["name"]: c for c in config.get("checks", [])}
        for name in required:
            check = states.get(name)
            if check is None:
                findings.append(f"doctor {config['config']}: no {name!r} check")
            elif check["state"] != "pass":
                findings.append(f"doctor {config['config']}: {name} is {check['state']}: {check['detail']}")
    return findings


def ids(value: str | None) -> tuple[str, ...]:
    return tuple(i for i in (value or "").split(",") if i)


def gpu_ids(record: StageRecord) -> tuple[str, ...]:
    """The GPUs a stage computed on: those it saw, unless it is a CPU inference case."""
    if record.infer is not None and record.infer.get("device") == "cpu":
        return ()
    return ids(record.env.get(VISIBLE))


@dataclass(frozen=True, slots=True)
class Span:
    chain: str  # config and chain id
    gpus: frozenset[str]
    start: float
    end: float


def chain_name(record: StageRecord) -> str:
    return f"{Path(record.config).name}:{record.chain}"


def status_findings(records: Sequence[StageRecord], pool: Sequence[str]) -> list[str]:
    findings = []
    for r in records:
        if r.status.is_failure:
            findings.append(f"{chain_name(r)} {r.id}: {r.status.value}: {r.reason}")
        elif r.status is Status.BLOCKED and "GPU(s) and this node has" not in r.reason:
            findings.append(f"{chain_name(r)} {r.id}: blocked: {r.reason}")
    if not any(gpu_ids(r) for r in records if r.status.ran):
        findings.append(f"no stage ran on a GPU (this machine's GPUs: {','.join(pool) or 'none'})")
    return findings


def pinning_findings(records: Sequence[StageRecord], pool: Sequence[str], pinned: bool) -> list[str]:
    """Each GPU stage saw only this machine's ids, the same ones across its chain; with ``pinned``
    (a scheduled run) a CPU inference case saw none."""
    findings = []
    by_chain: dict[str, set[tuple[str, ...]]] = {}
    holding = {chain_name(r) for r in records if r.status.ran and gpu_ids(r)}
    for r in records:
        if not r.status.ran:
            continue
        seen = gpu_ids(r)
        cpu_case = not seen and r.infer is not None and chain_name(r) in holding
        if pinned and cpu_case and r.env.get(VISIBLE) != "":
            findings.append(
                f"{chain_name(r)} {r.id}: a CPU case of a pinned chain saw {VISIBLE}={r.env.get(VISIBLE)!r}"
            )
        outside = [i for i in seen if i not in pool]
        if outside:
            findings.append(f"{chain_name(r)} {r.id}: {VISIBLE} names {','.join(outside)}, not a GPU of this machine")
        launched = [t[len(GPUS) :] for t in r.argv if t.startswith(GPUS)]
        if launched and (not seen or any(ids(g) != seen for g in launched)):
            findings.append(f"{chain_name(r)} {r.id}: --gpus={launched[0]} but {VISIBLE}={','.join(seen)!r}")
        if seen:
            by_chain.setdefault(chain_name(r), set()).add(tuple(sorted(seen)))
    for chain, sets in by_chain.items():
        if len(sets) > 1:
            findings.append(f"{chain}: its GPU stages saw different devices: {sorted(sets)}")
    return findings


def spans(records: Iterable[StageRecord]) -> list[Span]:
    """Per chain, from its first GPU stage's start to its last one's end (it holds its GPUs so long)."""
    found: dict[str, Span] = {}
    for r in records:
        seen = gpu_ids(r)
        if not r.status.ran or not seen:
            continue
        name, end = chain_name(r), r.start + r.duration
        old = found.get(name)
        if old is None:
            found[name] = Span(name, frozenset(seen), r.start, end)
        else:
            found[name] = Span(name, old.gpus | set(seen), min(old.start, r.start), max(old.end, end))
    return sorted(found.values(), key=lambda s: s.start)


def sharing_findings(records: Sequence[StageRecord]) -> list[str]:
    findings = []
    chains = spans(records)
    for i, a in enumerate(chains):
        for b in chains[i + 1 :]:
            shared = a.gpus & b.gpus
            if shared and b.start < a.end and a.start < b.end:
                overlap = min(a.end, b.end) - max(a.start, b.start)
                findings.append(
                    f"{a.chain} and {b.chain} held GPU {','.join(sorted(shared))} at once ({overlap:.2f} s)"
                )
    return findings


def figure_findings(records: Sequence[StageRecord]) -> list[str]:
    findings = []
    gpu_infers = [r for r in records if r.status is Status.PASSED and r.infer and r.infer.get("device") == "gpu"]
    if not gpu_infers:
        findings.append("no GPU inference stage passed: no GPU figures to check")
    for r in gpu_infers:
        memory, util = r.metrics.get("gpu_rss_mb"), r.metrics.get("gpu_util")
        if not isinstance(memory, (int, float)) or memory <= 0 or not isinstance(util, (int, float)):
            findings.append(f"{chain_name(r)} {r.id}: GPU figures not recorded (gpu_rss_mb={memory}, gpu_util={util})")
    return findings


def summary(label: str, records: Sequence[StageRecord]) -> str:
    ran = [r for r in records if r.status.ran]
    if not ran:
        return f"{label}: no stage ran"
    wall = max(r.start + r.duration for r in ran) - min(r.start for r in ran)
    busy = sum(r.duration for r in ran)
    memory = [r.metrics["gpu_rss_mb"] for r in ran if isinstance(r.metrics.get("gpu_rss_mb"), (int, float))]
    util = [r.metrics["gpu_util"] for r in ran if isinstance(r.metrics.get("gpu_util"), (int, float))]
    blocked = sum(r.status is Status.BLOCKED for r in records)
    return (
        f"{label}: {len({chain_name(r) for r in ran})} chains, {len(ran)} stages ran "
        f"({sum(r.status is Status.PASSED for r in ran)} passed, {blocked} blocked), "
        f"stage time {busy:.1f} s over {wall:.1f} s wall (x{busy / max(wall, 1e-9):.2f}); "
        f"GPU inference memory {min(memory, default=0):.0f}-{max(memory, default=0):.0f} MB, "
        f"utilisation {min(util, default=0):.0f}-{max(util, default=0):.0f} %"
    )


def run_findings(label: str, folders: Sequence[Path], pool: Sequence[str], pinned: bool) -> tuple[list[str], str]:
    """The findings of one run over its results folders (one per model): GPUs are shared across them."""
    findings, records = [], []
    for folder in folders:
        info, found = load_results_dir(folder)
        records += found
        if info.device != "gpu":
            findings.append(f"{label}: {folder}: run.json says device {info.device!r}, not gpu")
    for found in (
        status_findings(records, pool),
        pinning_findings(records, pool, pinned),
        sharing_findings(records),
        figure_findings(records),
    ):
        findings += [f"{label}: {f}" for f in found]
    return findings, summary(label, records)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--doctor", type=Path, required=True, help="tipc doctor --json's output")
    parser.add_argument("--multi-gpu", action="store_true", help="the doctor's config launches: libnccl must resolve")
    parser.add_argument("--serial", type=Path, required=True, help="results folder of the one-config run")
    parser.add_argument(
        "--scheduled",
        type=Path,
        nargs="+",
        required=True,
        help="results folders of the --jobs auto run (one per model)",
    )
    args = parser.parse_args(argv)
    pool = available_gpus(None, os.environ)
    try:
        doc = json.loads(args.doctor.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        doc = {"configs": [{"config": str(args.doctor), "checks": []}]}
        print(f"doctor: {args.doctor}: not tipc doctor --json's output ({exc})")
    for config in doc.get("configs", []):
        for check in config.get("checks", []):
            if check["name"] in (*REQUIRED, "libnccl", *SHOWN_ONLY):
                print(f"doctor: {check['state'].upper():4} {check['name']}: {check['detail']}")
    findings = doctor_findings(doc, args.multi_gpu)
    lines = []
    for label, folders, pinned in (("serial", [args.serial], False), ("scheduled", args.scheduled, True)):
        found, line = run_findings(label, folders, pool, pinned)
        findings += found
        lines.append(line)
    print(f"GPUs of this machine: {','.join(pool) or 'none'}")
    print("\n".join(lines))
    for finding in findings:
        print(f"FINDING {finding}")
    print(f"gpu-check: {'FAILED' if findings else 'passed'} ({len(findings)} findings)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
