"""An export passes only on the files its manifest names written by this run (PaddleSeg's ``deploy.yaml``)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tipc.dialects.paddleseg import PADDLESEG
from tipc.dialects.paddleseg.planner import MANIFESTS
from tipc.plan.model import Stage, StageKind
from tipc.proc.executor import ProcessExecutor
from tipc.results.records import Status
from tipc.run.execute import StageContext, StageRun
from tipc.run.false_pass import false_pass
from tipc.run.limits import Limits

DEPLOY = "out/S/deploy.yaml"
NAMES_PDMODEL = "Deploy:\n  model: model.pdmodel\n  params: model.pdiparams\n  transforms: []\n"
NAMES_JSON = "Deploy:\n  model: model.json\n  params: model.pdiparams\n"
STALE = "earlier"  # written by an earlier run: dated an hour before the stage started
FRESH = "now"
EARLIER_RUN = (
    "exit code 0 but out/S/deploy.yaml names model.pdmodel, which it did not write: the file there is left from an "
    "earlier run (modified before this stage started)"
)


def export_stage(outputs: tuple[str, ...] = (DEPLOY,)) -> Stage:
    return Stage("c::export", "c", "export", StageKind.EXPORT, ("py",), {}, ".", "x.log", outputs=outputs)


@pytest.mark.parametrize(
    ("deploy", "files", "expected"),
    [
        (NAMES_PDMODEL, {"model.pdmodel": FRESH, "model.pdiparams": FRESH}, ""),
        (NAMES_JSON, {"model.json": FRESH, "model.pdiparams": FRESH, "model.pdmodel": STALE}, ""),
        # Paddle 3 wrote model.json; deploy.yaml still names the earlier run's model.pdmodel
        (NAMES_PDMODEL, {"model.json": FRESH, "model.pdiparams": FRESH, "model.pdmodel": STALE}, EARLIER_RUN),
        (
            NAMES_PDMODEL,
            {"model.json": FRESH, "model.pdiparams": FRESH},
            "exit code 0 but out/S/deploy.yaml names model.pdmodel, which it did not write",
        ),
        (
            "Deploy:\n  model: model.pdmodel\n",
            {"model.pdmodel": FRESH},
            "exit code 0 but its out/S/deploy.yaml cannot be read: {deploy}:1: expected Deploy.model and "
            "Deploy.params naming the exported files",
        ),
    ],
    ids=["fresh", "fresh-json-beside-stale-pdmodel", "stale-pdmodel", "named-file-missing", "no-params-key"],
)
def test_an_export_passes_only_on_the_files_its_deploy_yaml_names_written_now(tmp_path, deploy, files, expected):
    started = time.time()
    folder = (tmp_path / DEPLOY).parent
    folder.mkdir(parents=True)
    (tmp_path / DEPLOY).write_text(deploy)
    for name, when in files.items():
        (folder / name).write_bytes(b"x")
        if when == STALE:
            os.utime(folder / name, (started - 3600, started - 3600))
    problem = false_pass(export_stage(), tmp_path, tmp_path / "x.log", True, None, MANIFESTS, started)
    assert problem == expected.format(deploy=tmp_path / DEPLOY)


def test_outputs_no_manifest_names_are_judged_as_before(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out/weights.pdparams").write_bytes(b"x")
    stage = export_stage(("out/weights.pdparams",))
    assert false_pass(stage, tmp_path, tmp_path / "x.log", True, None, MANIFESTS, time.time()) == ""


EXPORTER = """\
import pathlib, sys
out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
(out / "model.json").write_text("{}")
(out / "model.pdiparams").write_bytes(b"p")
(out / "deploy.yaml").write_text("Deploy:\\n  model: model.pdmodel\\n  params: model.pdiparams\\n")
"""


def test_a_real_export_beside_an_earlier_runs_model_fails_with_its_cause(tmp_path: Path):
    """The PaddleSeg dialect's manifest, judged on a process that exits 0 having written model.json."""
    (tmp_path / "export.py").write_text(EXPORTER)
    (tmp_path / "out/S").mkdir(parents=True)
    stale = tmp_path / "out/S/model.pdmodel"
    stale.write_bytes(b"old")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    stage = Stage(
        "c::export", "c", "export", StageKind.EXPORT, (sys.executable, "export.py", "out/S"), {}, ".", "e.log",
        outputs=(DEPLOY,),
    )  # fmt: skip
    context = StageContext(cwd=tmp_path, limits=Limits(), marker="m", dialect=PADDLESEG)
    judged = StageRun(stage, context, tmp_path / "e.log").run(ProcessExecutor(grace=0.2))
    assert (judged.status, judged.reason) == (Status.FAILED, EARLIER_RUN)
