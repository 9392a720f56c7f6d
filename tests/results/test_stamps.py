"""ResultsDir's passed stamps: which outputs on disk a later, narrower run may trust."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tipc.plan.model import Stage, StageKind
from tipc.results.folder import ResultsDir

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
    results.stamp_passed(EXPORT)
    assert results.passed_before(later) is trusted
