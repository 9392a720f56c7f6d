"""tipc beside the popular pytest plugins, installed from PyPI into a scratch venv (slow).

The venv is cached under the temp dir, keyed by the plugin list, the checkout and tipc's pyproject, so a rerun
starts in seconds. In it, for the plugins all installed together (they coexist): an unrelated
project's ``pytest`` still runs, and the fake target's chain gives the same records, counts and
exit status as with every plugin but tipc disabled (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``), also
when each plugin's own option is used. docs/pytest-plugins.md lists the plugins checked.
"""

from __future__ import annotations

import fcntl
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.fake_target import FAKE_TARGET, copy_fake_target

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = (
    "pytest-timeout",
    "pytest-rerunfailures",
    "pytest-retry",
    "pytest-randomly",
    "pytest-order",
    "pytest-xdist",
    "pytest-html",
    "pytest-cov",
    "pytest-benchmark",
    "pytest-json-report",
    "pytest-split",
    "pytest-sugar",
    "pytest-instafail",
    "pytest-env",
    "pytest-flakefinder",
    "pytest-dependency",
)
CONFIG = "fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"
MODE = "lite_train_lite_infer"
# Each plugin's own option beside tipc's, in the venv that has them all.
WITH_OPTIONS = {
    "defaults": (),  # randomly shuffles, sugar and instafail report, env and order read their ini
    "timeout": ("--timeout", "300"),
    "timeout-thread": ("--timeout", "300", "--timeout-method", "thread"),
    "reruns": ("--reruns", "1"),
    "retries": ("--retries", "1"),
    "xdist": ("-n", "2", "--dist", "loadscope"),
    "html": ("--html", "report.html"),
    "json-report": ("--json-report", "--json-report-file", "report.json"),
    "cov": ("--cov", "tipc", "--cov-report", "term"),
    "benchmark": ("--benchmark-disable",),
    "no-randomly": ("-p", "no:randomly"),
}


def _venv_python() -> Path:
    """The scratch venv with tipc (editable) and every plugin; made once per checkout and plugin list (its tipc
    is this checkout's), by one process at a time: another session or xdist worker waits for it rather than
    deleting the venv it is building."""
    identity = "\n".join((*PLUGINS, str(ROOT), (ROOT / "pyproject.toml").read_text()))
    key = hashlib.sha256(identity.encode()).hexdigest()[:12]
    home = Path(os.environ.get("TIPC_COMPAT_CACHE", Path(tempfile.gettempdir()) / "tipc-compat-venvs")) / key
    python = home / "bin" / "python"
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if (home / "ready").is_file():
            return python
        shutil.rmtree(home, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        done = subprocess.run([*pip, "-e", str(ROOT), *PLUGINS], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot install the plugins from PyPI here: {done.stderr.strip()[-300:]}")
        (home / "ready").write_text("")
        return python


@pytest.fixture(scope="module")
def venv() -> Path:
    return _venv_python()


def _env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TIPC_", "COV_"))}
    return {**clean, **extra}


def _layout(work: Path) -> Path:
    """The fake target and its configs as a user's checkout has them (see tests/plugin/conftest.py)."""
    copy_fake_target(work / "fake_target")
    configs = work / "test_configs" / "fake_rec"
    configs.mkdir(parents=True)
    shutil.copy(FAKE_TARGET / "configs" / "fake_rec" / Path(CONFIG).name, configs)
    (configs / "target.yaml").write_text("repo: ../../fake_target\n")
    (work / "pytest.ini").write_text("[pytest]\n")
    return work


def _pytest_tipc(
    python: Path, work: Path, *extra: str, autoload: bool = True, **env: str
) -> subprocess.CompletedProcess[str]:
    """One ``pytest tipc`` of the fake chain in ``work`` (``env``: more of the environment)."""
    _layout(work)
    environ = _env(**env) if autoload else _env(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **env)
    plugins = () if autoload else ("-p", "tipc.plugin.hooks")
    argv = [str(python), "-m", "pytest", *plugins, "tipc", "-c", "pytest.ini", "-p", "no:cacheprovider"]
    argv += ["--config", CONFIG, "--mode", MODE, "--tipc-python", str(python), "--tipc-no-report", *extra]
    return subprocess.run(argv, cwd=work, env=environ, capture_output=True, text=True, timeout=600)


def _out(work: Path) -> Path:
    return work / "fake_target" / "test_tipc" / "output" / "fake_rec" / MODE


def _records(work: Path) -> dict[str, dict]:
    """The records by stage name (``train``, ``export``, ``infer[…]``)."""
    lines = (_out(work) / "results.jsonl").read_text().splitlines()
    return {r["id"].rpartition("::")[2]: r for r in map(json.loads, lines)}


def _chain(python: Path, work: Path, *extra: str, autoload: bool = True) -> dict:
    """One ``pytest tipc`` of the fake chain: exit status, the records' (id, status), tipc's counts."""
    done = _pytest_tipc(python, work, *extra, autoload=autoload)
    out = _out(work)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    counts = re.search(r"^tipc: (\d+ \w+.*?) in /", done.stdout, re.M)
    legacy = (out / "results_python.log").read_text().count("\n")
    return {
        "exit": done.returncode,
        "records": sorted((r["id"], r["status"], len(r["attempts"])) for r in records),
        "counts": counts.group(1) if counts else done.stdout[-2000:],
        "legacy lines": legacy,
    }


@pytest.fixture(scope="module")
def baseline(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _chain(venv, tmp_path_factory.mktemp("baseline"), autoload=False)


@pytest.mark.slow
def test_an_unrelated_projects_pytest_still_runs(venv, tmp_path):
    (tmp_path / "test_project.py").write_text("def test_one():\n    pass\n\ndef test_two():\n    pass\n")
    for extra in ((), ("--timeout", "30"), ("-n", "2")):  # --timeout is pytest-timeout's
        done = subprocess.run(
            [str(venv), "-m", "pytest", "-p", "no:cacheprovider", *extra, "test_project.py"],
            cwd=tmp_path,
            env=_env(),
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout + done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", list(WITH_OPTIONS))
def test_the_chain_gives_what_it_gives_without_the_plugins(venv, baseline, tmp_path, name):
    assert baseline["exit"] == 0 and baseline["counts"] == "5 passed" and baseline["legacy lines"] == 5
    assert _chain(venv, tmp_path, *WITH_OPTIONS[name]) == baseline


# Each plugin's own option that cannot run a chain: refused before anything is written.
REFUSED = {
    "benchmark-only": (("--benchmark-only",), "--benchmark-only (pytest-benchmark) skips every test*"),
    "setup-plan": (("--setup-plan",), "--setup-plan runs no test*"),
    "flake-finder": (("--flake-finder",), "--flake-finder (pytest-flakefinder) runs each stage many times*"),
    "splits": (("--splits", "2", "--group", "1"), "--splits 2 (pytest-split) divides the items*--tipc-shard*"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(REFUSED))
def test_an_option_that_cannot_run_a_chain_is_refused_and_writes_nothing(venv, tmp_path, name):
    extra, message = REFUSED[name]
    done = _pytest_tipc(venv, tmp_path, *extra)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout[-2000:] + done.stderr[-2000:]
    assert fnmatch.fnmatch(done.stderr, f"*ERROR: tipc: {message}"), done.stderr
    assert not _out(tmp_path).exists()


@pytest.mark.slow
def test_pytest_retry_retries_a_failing_stage_and_the_chain_goes_on(venv, tmp_path):
    # -p no:rerunfailures: it also reruns the tests that carry pytest-retry's flaky mark, on its own.
    done = _pytest_tipc(venv, tmp_path, "--retries", "2", "-p", "no:rerunfailures", TIPC_FAKE="export:fail")
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-3000:] + done.stderr[-2000:]
    records = _records(tmp_path)
    assert [a["status"] for a in records["export"]["attempts"]] == ["failed"] * 3
    assert [r["status"] for r in records.values()] == ["passed", "passed", "failed", "blocked", "blocked"]


@pytest.mark.slow
def test_pytest_timeouts_limit_bounds_a_stage_under_tipc_jobs(venv, tmp_path):
    done = _pytest_tipc(
        venv, tmp_path, "--timeout", "2", "--tipc-jobs", "2", "--tipc-timeout", "train=60", TIPC_FAKE="train:hang"
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-3000:] + done.stderr[-2000:]
    train = _records(tmp_path)["train"]
    assert train["status"] == "timeout" and "the limit was pytest-timeout's timeout" in train["reason"]
    assert train["duration"] < 10


@pytest.mark.slow
def test_pytest_dependency_skipping_a_stage_is_recorded_and_counted(venv, tmp_path):
    (tmp_path / "conftest_dependency.py").write_text(
        "import pytest\n"
        "def pytest_collection_modifyitems(items):\n"
        "    for item in items:\n"
        "        if item.name == 'export':\n"
        "            item.add_marker(pytest.mark.dependency(depends=['never_ran'], scope='session'))\n"
    )
    done = _pytest_tipc(venv, tmp_path, "-p", "conftest_dependency", PYTHONPATH=str(tmp_path))
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-3000:] + done.stderr[-2000:]
    export = _records(tmp_path)["export"]
    assert export["status"] == "skipped" and "depends on never_ran" in export["reason"]
    assert "tipc: 2 passed, 2 blocked, 1 skipped in" in done.stdout
