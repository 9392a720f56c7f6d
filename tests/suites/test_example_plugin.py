"""The example plugin (``example_plugin/tipc_example_suite.py``) adds a dialect and a report section to both fronts
without a line of tipc naming it: ``pytest tipc -p tipc_example_suite`` runs a TinySuite checkout's chain and
reports it with the plugin's section; ``tipc plan`` finds the plugin through a ``tipc`` entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tipc
from tests.suites.example_plugin.tipc_example_suite import FIGURE, HISTORY

EXAMPLE = Path(__file__).resolve().parent / "example_plugin"
TIPC_DIR = str(Path(tipc.__file__).resolve().parent)
MODE = "lite_train_lite_infer"
TRAIN = "import pathlib, sys\nout = pathlib.Path(sys.argv[1].split('=', 1)[1])\nout.mkdir(parents=True)\n"
INFER = "import sys\nprint('predicted with', sys.argv[1])\n"


def tiny_checkout(root: Path) -> Path:
    """A checkout of a suite tipc does not know: its marker folder, one config, its two scripts."""
    (root / "tinysuite").mkdir(parents=True)
    configs = root / "test_tipc" / "configs" / "m"
    configs.mkdir(parents=True)
    for model in ("m", "n"):
        text = f"model_name:{model}\npython:{sys.executable}\ntrain:train.py\ninfer:infer.py\n"
        (configs / f"{model}_tiny.txt").write_text(text)
    (root / "train.py").write_text(TRAIN)
    (root / "infer.py").write_text(INFER)
    return root / "test_tipc" / "configs"


def test_a_pytest_plugin_adds_a_dialect_and_a_report_section(pytester: pytest.Pytester, monkeypatch) -> None:
    pytester.makeini("[pytest]\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join((str(EXAMPLE), os.environ.get("PYTHONPATH", ""))))
    configs = tiny_checkout(pytester.path / "tiny")
    reports = pytester.path / "reports"
    args = [
        "-p",
        "tipc_example_suite",
        "--config",
        str(configs),
        "--mode",
        MODE,
        "--tipc-repo",
        str(pytester.path / "tiny"),
    ]
    # In a subprocess: the plugin registered stays in that process (tipc's registry is one per process).
    result = pytester.runpytest_subprocess(
        TIPC_DIR, "-c", str(pytester.path / "tox.ini"), *args, "--tipc-report-dir", str(reports)
    )
    result.assert_outcomes(passed=4)
    index = next(p for p in reports.rglob("index.html") if "matrix" not in p.parts).read_text()
    assert "<h2>TinySuite notes</h2>" in index
    assert "record files in" in index
    matrix = next(reports.glob("matrix/*/index.html")).read_text()
    assert "<th>suite</th>" in matrix
    assert matrix.count('<td class="small">TinySuite</td>') == 2
    # Its figure of each infer stage's log, in the stage's record; its history store, where it chose.
    records = [
        json.loads(line) for path in pytester.path.rglob("results.jsonl") for line in path.read_text().splitlines()
    ]
    infers = [r for r in records if r["kind"] == "infer"]
    assert len(infers) == 2 and all(r["metrics"][FIGURE] == 1 for r in infers)
    stores = sorted(p.name for p in pytester.path.rglob("*.sqlite"))
    assert stores == [HISTORY], stores


def test_the_cli_finds_a_plugin_through_its_tipc_entry_point(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "tipc_example_suite-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tipc-example-suite\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tipc]\nexample = tipc_example_suite\n")
    configs = tiny_checkout(tmp_path / "tiny")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(EXAMPLE), os.environ.get("PYTHONPATH", "")))}
    done = subprocess.run(
        [sys.executable, "-m", "tipc", "plan", "--config", str(configs / "m" / "m_tiny.txt"), "--mode", MODE],
        cwd=tmp_path / "tiny",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "TinySuite: planned by the example plugin" in done.stdout
    assert "suite TinySuite: detected from the checkout's tinysuite/ folder" in done.stdout
    assert "train.py --save_dir=" in done.stdout
