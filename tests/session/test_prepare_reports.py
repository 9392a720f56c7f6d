"""The report's modules load in a thread while the stages run, only for a run that writes a report.

Checked in a fresh interpreter: this one has the report loaded already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PREPARE = """
import json, sys, threading
from pathlib import Path
from tipc.plan import PlanOptions
from tipc.run.plan_run import RunSettings
from tipc.session.report import prepare_reports
from tipc.session.settings import ConfigTarget, Settings

target = ConfigTarget(path=Path("/c.txt"), display="c.txt", options=PlanOptions("lite_train_lite_infer", repo="/r"))
prepare_reports(Settings(targets=(target,), run=RunSettings(dry_run=sys.argv[1] == "dry"), report=sys.argv[2] == "on"))
loaders = [t for t in threading.enumerate() if t.name == "tipc-report-loader"]
for thread in loaders:
    thread.join()
jinja2_loaded = "jinja2" in sys.modules
from tipc.report.render import environment  # to see what the loader left behind, if it ran
print(json.dumps([len(loaders), environment.cache_info().currsize, jinja2_loaded]))
"""


@pytest.mark.parametrize(
    ("dry_run", "report", "loaded"),
    [("run", "on", [1, 1, True]), ("dry", "on", [0, 0, False]), ("run", "off", [0, 0, False])],
    ids=["run", "dry-run", "no-report"],
)
def test_the_report_loads_in_the_background_only_when_one_will_be_written(dry_run, report, loaded):
    done = subprocess.run(
        [sys.executable, "-c", PREPARE, dry_run, report], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == loaded  # [loader threads, environments, jinja2 loaded]
