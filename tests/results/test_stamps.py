"""ResultsDir's passed stamps: which outputs on disk a later, narrower run may trust."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tipc.plan.model import Stage, StageKind
from tipc.results.folder import ResultsDir
from tipc.results.records import RunInfo

EXPORT = Stage(
    id="c::export",
    chain="c",
    name="export",
    kind=StageKind.EXPORT,
    argv=("py", "tools/export_model.py", "-o", "Global.checkpoints=S/latest"),
    env={"CUDA_VISIBLE_DEVICES": None},
    cwd="/repo",
    log="out/export.log",
)


@pytest.mark.parametrize(
    ("later", "trusted"),
    [
        (EXPORT, True),
        (replace(EXPORT, argv=(*EXPORT.argv, "Global.use_gpu=True")), False),
        (replace(EXPORT, env={"CUDA_VISIBLE_DEVICES": "0"}), False),
        (replace(EXPORT, id="c2::export"), False),
    ],
    ids=["same-stage", "other-argv", "other-env", "other-stage"],
)
def test_a_stamp_vouches_only_for_the_stage_as_it_ran(tmp_path, later, trusted):
    results = ResultsDir(tmp_path)
    assert not results.passed_before(EXPORT)
    results.stamp(EXPORT, passed=True)
    assert results.passed_before(later) is trusted


def test_a_stage_that_ran_again_and_failed_vouches_for_nothing(tmp_path):
    """Its outputs on disk are now the failed run's, whatever an earlier pass left."""
    results = ResultsDir(tmp_path)
    results.stamp(EXPORT, passed=True)
    results.stamp(EXPORT, passed=False)
    assert not results.passed_before(EXPORT)
    results.stamp(EXPORT, passed=True)
    assert results.passed_before(EXPORT)


def test_a_torn_stamp_is_no_stamp_and_the_next_begin_keeps_one_line_per_passed_stage(tmp_path):
    results = ResultsDir(tmp_path)
    other = replace(EXPORT, id="c2::export")
    for stage, passed in ((EXPORT, True), (other, True), (EXPORT, True), (other, False)):
        results.stamp(stage, passed)
    with results.stamps_file.open("a") as f:
        f.write('{"id": "c3::export", "dig')  # a full disk cut the last line short
    assert results.passed_before(EXPORT) and not results.passed_before(other)
    results.begin(RunInfo(model="m", mode="lite_train_lite_infer", config="a.txt", run_id="r1"))
    assert results.stamps_file.read_text().count("\n") == 1
    assert results.passed_before(EXPORT) and not results.passed_before(other)
