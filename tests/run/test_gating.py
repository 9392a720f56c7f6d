"""Gating: which stage runs, which is blocked (and why), which does not apply."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tipc.plan.model import Chain, Plan, Stage, StageKind, Topology
from tipc.results.records import StageRecord, Status
from tipc.run.gating import NOT_RANK0, Decision, decide


def stage(name: str, kind: StageKind, cwd: str, requires=(), outputs=(), rank0_only=False) -> Stage:
    return Stage(
        id=f"c::{name}",
        chain="c",
        name=name,
        kind=kind,
        argv=("py",),
        env={},
        cwd=cwd,
        log=f"out/{name}.log",
        requires=requires,
        outputs=outputs,
        rank0_only=rank0_only,
    )


def plan(cwd: str) -> Plan:
    stages = (
        stage("train", StageKind.TRAIN, cwd, outputs=("out/S/latest.pdparams",)),
        stage(
            "export",
            StageKind.EXPORT,
            cwd,
            requires=("c::train",),
            outputs=("out/S/Student/inference.pdiparams",),
            rank0_only=True,
        ),
        stage("infer[cpu]", StageKind.INFER, cwd, requires=("c::export",), rank0_only=True),
    )
    chain = Chain(
        id="c", trainer="norm_train", autocast="fp32", topology=Topology("cpu", "-1"), save_dir="out/S", stages=stages
    )
    return Plan(
        config_path="x.txt",
        model="m",
        mode="lite_train_lite_infer",
        cwd=cwd,
        output_dir="out",
        python="py",
        chains=(chain,),
    )


def rec(stage_id: str, status: Status, reason: str = "") -> StageRecord:
    return StageRecord(id=stage_id, kind="", chain="c", status=status, log=f"/abs/{stage_id}.log", reason=reason)


CASES = [
    # (stage, done records, files on disk, node_rank) -> (status or None, reason fragment)
    ("c::train", {}, (), 0, None, ""),
    ("c::export", {"c::train": Status.PASSED}, (), 0, None, ""),
    ("c::export", {"c::train": Status.FAILED}, (), 0, Status.BLOCKED, "blocked: train failed (see /abs/c::train.log)"),
    ("c::export", {"c::train": Status.TIMEOUT}, (), 0, Status.BLOCKED, "blocked: train timed out"),
    ("c::export", {"c::train": Status.HUNG}, (), 0, Status.BLOCKED, "blocked: train hung"),
    (
        "c::infer[cpu]",
        {"c::train": Status.FAILED, "c::export": Status.BLOCKED},
        (),
        0,
        Status.BLOCKED,
        "blocked: train failed",
    ),
    ("c::infer[cpu]", {}, ("out/S/Student/inference.pdiparams",), 0, None, ""),
    (
        "c::infer[cpu]",
        {},
        (),
        0,
        Status.BLOCKED,
        "blocked: export is not in this run and its outputs are missing (out/S/Student/inference.pdiparams); HINT c::export",
    ),
    ("c::export", {}, ("out/S/latest.pdparams",), 0, None, ""),
    ("c::export", {"c::train": Status.PASSED}, (), 1, Status.SKIPPED, NOT_RANK0),
    ("c::train", {}, (), 1, None, ""),
]


@pytest.mark.parametrize(
    ("stage_id", "done", "files", "rank", "status", "reason"),
    CASES,
    ids=[
        "no-requirements",
        "prereq-passed",
        "prereq-failed",
        "prereq-timeout",
        "prereq-hung",
        "names-root-cause",
        "deselected-outputs-present",
        "deselected-outputs-missing",
        "train-deselected-checkpoint-present",
        "rank1-not-applicable",
        "rank1-trains",
    ],
)
def test_decide(tmp_path: Path, stage_id, done, files, rank, status, reason):
    p = plan(str(tmp_path))
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("x")
    records = {
        sid: rec(sid, st, "blocked: train failed (see /abs/c::train.log)" if st is Status.BLOCKED else "")
        for sid, st in done.items()
    }
    decision = decide(p.stage(stage_id), p, records, lambda s: True, rank, include_hint=lambda s: f"HINT {s.id}")
    assert decision.status is status
    assert decision.reason.startswith(reason)


def test_outputs_left_by_another_plan_do_not_stand_in(tmp_path: Path):
    """A deselected export's files on disk count only when a passed run of this plan made them."""
    p = plan(str(tmp_path))
    (tmp_path / "out/S/Student").mkdir(parents=True)
    (tmp_path / "out/S/Student/inference.pdiparams").write_bytes(b"")
    decision = decide(p.stage("c::infer[cpu]"), p, {}, lambda s: False, include_hint=lambda s: f"HINT {s.id}")
    assert decision.status is Status.BLOCKED
    assert decision.reason == (
        "blocked: export is not in this run and its outputs on disk were not made by a "
        "passed run of this plan; HINT c::export"
    )


def test_a_stage_whose_input_is_missing_is_blocked_naming_it(tmp_path: Path):
    """A paddle2onnx conversion reads an exported model that no stage of its plan makes."""
    convert = replace(stage("convert_rec", StageKind.CONVERT, str(tmp_path)), inputs=("inf/rec/inference.json",))
    p = replace(plan(str(tmp_path)), chains=(replace(plan(str(tmp_path)).chains[0], stages=(convert,)),))
    decision = decide(convert, p, {}, lambda s: False)
    assert decision == Decision(
        Status.BLOCKED,
        "blocked: convert_rec reads inf/rec/inference.json, which is not there and no stage of this plan makes it "
        "(export the model first: a train config's export in the same run, or the suite's prepare.sh)",
    )
    (tmp_path / "inf/rec").mkdir(parents=True)
    (tmp_path / "inf/rec/inference.json").write_text("{}")
    assert decide(convert, p, {}, lambda s: False).runs
