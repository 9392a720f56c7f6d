"""A golden check stage, run in the harness: no subprocess, the same record, status and log.

It judges this run's evidence only. Every stage it reads must have run *and passed in this run*:
a prerequisite left out of the run (``-k``) blocks it, even when last night's logs are on disk,
and a failed one blocks it as gating blocks any stage. Its findings fail it when ``--fail-on``
names ``golden`` (the default) and mark it ``differs`` otherwise; no golden file is ``no_golden``.
It writes no ``results_python.log`` line: that file keeps the bash's stages, one line each, and
tooling that counts them must not meet a stage the bash never had.

An agreement check (``StageKind.AGREE``, paddle2onnx chains) runs the same way with another
expectation: its first prerequisite is the Paddle Inference run of the export, its second the ONNX
Runtime run of the converted file, and every image's prediction must agree
(``tipc.golden.agreement``) within the tolerance of the config's golden for the mode (else fp32's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tipc.files import read
from tipc.golden.compare import GoldenVerdict, all_empty, compare
from tipc.golden.evidence import gather, predictions_of
from tipc.golden.files import GoldenError, find_golden, read_golden
from tipc.golden.model import Golden, Tolerance, default_tolerance
from tipc.metrics.logtext import printable
from tipc.plan.model import Plan, Stage, StageKind
from tipc.results.records import StageRecord, Status
from tipc.run.gating import decide

SHOWN = 3  # findings named in the reason; the log has them all
FINDING = "FINDING "  # how a finding's line starts in the check's log
UPDATE_HINT = "tipc golden update --from <this results folder>"


@dataclass(frozen=True, slots=True)
class GoldenOutcome:
    status: Status
    reason: str
    lines: tuple[str, ...] = ()  # the check's log
    metrics: dict[str, Any] = field(default_factory=dict)


def _not_this_run(stage: Stage, plan: Plan, done: Mapping[str, StageRecord]) -> str:
    missing = [plan.stage(r).name for r in stage.requires if r not in done]
    if not missing:
        return ""
    return (
        f"blocked: a golden check judges this run's evidence only, and {', '.join(missing)} did not run "
        "in this run; run the whole chain"
    )


def _goldens(stage: Stage, plan: Plan, precisions: list[str]) -> dict[str, Golden]:
    folder, stem = Path(stage.golden_dir), Path(plan.config_path).stem
    found = {p: find_golden(folder, stem, plan.mode, p) for p in precisions}
    return {p: read_golden(path, p) for p, path in found.items() if path is not None}


def _precisions(stage: Stage, plan: Plan) -> list[str]:
    cases = (plan.stage(r).infer for r in stage.requires)
    return list(dict.fromkeys(c.precision for c in cases if c is not None)) or ["fp32"]


def _judged(verdict: GoldenVerdict, fails: bool) -> tuple[Status, str]:
    tail = [*verdict.notes, *(f"no golden for {p}" for p in verdict.unjudged)]
    if not verdict.findings:
        return Status.PASSED, "; ".join(tail)
    shown = "; ".join(f.text() for f in verdict.findings[:SHOWN])
    more = f" (and {len(verdict.findings) - SHOWN} more in the log)" if len(verdict.findings) > SHOWN else ""
    reason = f"{len(verdict.findings)} golden finding(s): {shown}{more}"
    return (Status.FAILED if fails else Status.DIFFERS), "; ".join((reason, *tail))


def check(
    stage: Stage,
    plan: Plan,
    done: Mapping[str, StageRecord],
    fails: bool,
    node_rank: int = 0,
) -> GoldenOutcome:
    """``done``: this run's records by stage id; ``fails``: findings fail the stage (--fail-on golden)."""
    gap = _not_this_run(stage, plan, done)
    if gap:
        return GoldenOutcome(Status.BLOCKED, gap)
    gate = decide(stage, plan, done, lambda _: False, node_rank)
    if gate.status is not None:
        return GoldenOutcome(gate.status, gate.reason)
    if stage.kind is StageKind.AGREE:
        return _agree(stage, plan, done, fails)
    precisions = _precisions(stage, plan)
    try:
        goldens = _goldens(stage, plan, precisions)
    except GoldenError as exc:
        return GoldenOutcome(Status.FAILED, f"golden file unreadable: {exc}", (str(exc),))
    verdict = compare(goldens, gather([(plan.stage(r), done[r]) for r in stage.requires]))
    metrics: dict[str, Any] = {
        "findings": len(verdict.findings),
        "goldens": list(verdict.goldens),
        "empty_cases": list(verdict.empty_cases),
    }
    if not goldens:
        where = Path(stage.golden_dir) / Path(plan.config_path).stem
        reason = "; ".join(
            (f"no golden for {plan.mode} {'/'.join(precisions)} in {where}/ (write one: {UPDATE_HINT})", *verdict.notes)
        )
        return GoldenOutcome(Status.NO_GOLDEN, reason, (reason,), metrics)
    status, reason = _judged(verdict, fails)
    lines = (
        *(f"golden: {g}" for g in verdict.goldens),
        *(f"{FINDING}{f.text()}" for f in verdict.findings),
        *(f"note: {n}" for n in verdict.notes),
        f"{status.value}: {len(verdict.findings)} finding(s)",
    )
    return GoldenOutcome(status, reason, lines, metrics)


def _tolerance(stage: Stage, plan: Plan) -> tuple[Tolerance, str]:
    """The golden's tolerance for this mode at fp32 when the config has a golden, else fp32's default."""
    from tipc.golden.agreement import PRECISION

    if stage.golden_dir:
        path = find_golden(Path(stage.golden_dir), Path(plan.config_path).stem, plan.mode, PRECISION)
        if path is not None:
            return read_golden(path, PRECISION).tolerance, str(path)
    return default_tolerance(PRECISION), f"the {PRECISION} default"


def _agree(stage: Stage, plan: Plan, done: Mapping[str, StageRecord], fails: bool) -> GoldenOutcome:
    from tipc.golden.agreement import agreement

    paddle, onnx = (done[r] for r in stage.requires)
    reference = predictions_of(paddle)
    if not reference:
        reason = f"no prediction tipc can read in {paddle.log} (Paddle Inference's): nothing to compare ONNX with"
        return GoldenOutcome(Status.NO_GOLDEN, reason)
    try:
        tol, source = _tolerance(stage, plan)
    except GoldenError as exc:
        return GoldenOutcome(Status.FAILED, f"golden file unreadable: {exc}", (str(exc),))
    predicted = predictions_of(onnx)
    found = agreement(plan.stage(stage.requires[1]).name, reference, predicted, tol)
    # Blank against blank (an untrained model) agrees and proves little about the conversion: say so.
    blank = all_empty(reference) and all_empty(predicted)
    timing = f"ONNX Runtime {onnx.duration:.2f} s, Paddle Inference {paddle.duration:.2f} s"
    gap = "" if found.largest_score_gap is None else f", largest score gap {found.largest_score_gap:.3g}"
    within = f"texts equal and scores within ±{tol.score:g} ({source})"
    metrics: dict[str, Any] = {
        "findings": len(found.findings),
        "images": found.images,
        "onnx_s": round(onnx.duration, 3),
        "paddle_s": round(paddle.duration, 3),
        "score_tolerance": tol.score,
        "all_empty": blank,
        **({"largest_score_gap": found.largest_score_gap} if found.largest_score_gap is not None else {}),
    }
    lines = (f"tolerance: {source}", *(f"{FINDING}{f.text()}" for f in found.findings))
    if not found.findings:
        empty = (
            "; every prediction of both is empty: blanks agree, which says little of the conversion" if blank else ""
        )
        reason = f"{found.images} images agree: {within}{gap}{empty}; {timing}"
        return GoldenOutcome(Status.PASSED, reason, lines, metrics)
    shown = "; ".join(f.text() for f in found.findings[:SHOWN])
    more = f" (and {len(found.findings) - SHOWN} more in the log)" if len(found.findings) > SHOWN else ""
    reason = f"{len(found.findings)} disagreement(s) of ONNX Runtime with Paddle Inference: {shown}{more}; {timing}"
    return GoldenOutcome(Status.FAILED if fails else Status.DIFFERS, reason, lines, metrics)


def failure_text(record: StageRecord, limit: int = 40) -> str:
    """A failed golden check's story: its findings, one a line, from its log; no command, no exit code."""
    findings = []
    try:
        lines = (raw.decode("utf-8", errors="replace") for raw in read.lines(record.log))
        findings = [line.rstrip("\n")[len(FINDING) :] for line in lines if line.startswith(FINDING)]
    except OSError:
        pass
    shown = [f"  {printable(f)}" for f in findings[:limit]]
    if len(findings) > limit:
        shown.append(f"  … and {len(findings) - limit} more")
    goldens = ", ".join(record.metrics.get("goldens", [])) or "Paddle Inference's predictions (agreement check)"
    why = f"{len(findings)} golden finding(s) against {goldens}"
    head = f"{record.id}: {record.status.value.upper()} ({why if findings else record.reason})"
    return "\n".join((head, *shown, f"log: {record.log}"))
