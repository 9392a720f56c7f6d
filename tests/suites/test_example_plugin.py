"""The example plugin (``example_plugin/tipc_example_suite.py``) adds a dialect and a report section to both fronts
without a line of tipc naming it: ``pytest tipc -p tipc_example_suite`` runs a TinySuite checkout's chain and
reports it with the plugin's section; ``tipc plan`` finds the plugin through a ``tipc`` entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import tipc
from tests.suites.example_plugin.tipc_example_suite import FIGURE, HISTORY, WRAPPED

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


def installed_in_a_venv(tmp_path: Path) -> Path:
    """A venv of its own with the example plugin pip-installed (its entry points for both fronts), offline: tipc
    and its dependencies come from this interpreter's (a ``.pth``), the plugin is built without isolation."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "tipc-here.pth").write_text(f"{Path(TIPC_DIR).parent}\n{sysconfig.get_paths()['purelib']}\n")
    source = shutil.copytree(EXAMPLE, tmp_path / "plugin", ignore=shutil.ignore_patterns("__pycache__"))
    pip = ["-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index", "-q", str(source)]
    done = subprocess.run([venv / "bin" / "python", *pip], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return venv / "bin" / "python"


@pytest.mark.slow  # a venv and a pip install: about 10 s before either front runs
def test_an_installed_plugin_runs_on_both_fronts(tmp_path: Path) -> None:
    """The plugin as a user installs it (``pip install``), in a venv where it is found only through its entry
    points: ``tipc run`` and ``pytest tipc`` each run a TinySuite chain, its wrapper notes the plan."""
    python = installed_in_a_venv(tmp_path)
    configs = tiny_checkout(tmp_path / "tiny")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's own paths only
    config = str(configs / "m" / "m_tiny.txt")
    fronts = {
        "cli": ["-m", "tipc", "run", "--config", config, "--mode", MODE, "--output-root", "out-cli", "--no-report"],
        "pytest": ["-m", "pytest", "tipc", f"--config={config}", "--mode", MODE, "--tipc-output-root", "out-pytest",
                   "--tipc-no-report", "-p", "no:cacheprovider", "-c", str(tmp_path / "tiny" / "tox.ini")],
    }  # fmt: skip
    (tmp_path / "tiny" / "tox.ini").write_text("[pytest]\n")
    for front, argv in fronts.items():
        done = subprocess.run(
            [python, *argv], cwd=tmp_path / "tiny", env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (front, done.stdout, done.stderr)
        run = json.loads(next((tmp_path / "tiny").glob(f"out-{front}/m/{MODE}/run.json")).read_text())
        assert WRAPPED in json.dumps(run), front
        records = (tmp_path / "tiny").glob(f"out-{front}/m/{MODE}/results.jsonl")
        assert [json.loads(line)["status"] for line in next(records).read_text().splitlines()] == ["passed"] * 2
