"""Where reports go: one rule for both fronts, whatever pytest's rootdir."""

from __future__ import annotations

from pathlib import Path

import pytest

from tipc.plan import PlanOptions
from tipc.session.report import report_root
from tipc.session.settings import ConfigTarget, Settings


def settings(report_dir: Path | None = None, repo: str = "/repo") -> Settings:
    from tipc.run.plan_run import RunSettings

    target = ConfigTarget(path=Path("/c.txt"), display="c.txt", options=PlanOptions("lite_train_lite_infer", repo=repo))
    return Settings(targets=(target,), run=RunSettings(), report_dir=report_dir)


@pytest.mark.parametrize(
    ("report_dir", "cwd", "root"),
    [
        (None, "/home/ci/work", "/home/ci/work/reports"),
        (Path("/tmp/out"), "/home/ci/work", "/tmp/out"),
        (None, "/", "/repo/reports"),  # a service started in / never writes /reports
    ],
    ids=["cwd", "report-dir", "root-cwd"],
)
def test_report_root(report_dir, cwd, root):
    assert report_root(settings(report_dir), Path(cwd)) == Path(root)
