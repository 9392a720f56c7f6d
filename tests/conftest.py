"""Fixtures that more than one test folder uses (helpers live in ``tests/support``)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

# pytester runs pytest inside this process and unloads what each run imported; numpy (under scipy's rank test,
# which the trends load when they judge) refuses to load twice in one process, so it is loaded once, here.
import scipy.stats  # noqa: F401

from tests.support.fake_checkout import make_checkout
from tests.support.fake_target import copy_fake_target
from tests.support.recorded_runs import multi_node_runs, single_node_run

pytest_plugins = ["pytester"]


def pytest_configure(config: pytest.Config) -> None:
    """The suite started in the background of a script (``(make test &)``, a nightly's ``make test &``) inherits
    SIGINT ignored, and passes that on to every process it starts: the Ctrl-C tests (of the harness, of a stage
    tree) need SIGINT as a terminal delivers it, so Python's handler is put back (exec resets it to the default)."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _no_nightly_of_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's history and run group are its own, not those of the CI job running the suite."""
    for name in (
        "TIPC_HISTORY",
        "TIPC_RUN_GROUP",
        "SLURM_ARRAY_JOB_ID",
        "SLURM_JOB_ID",
        "GITHUB_RUN_ID",
        "CI_PIPELINE_ID",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The root of a fake PaddleOCR checkout (config at ``CONFIG_REL``)."""
    make_checkout(tmp_path)
    return tmp_path


@pytest.fixture
def fake_repo(tmp_path: Path) -> Path:
    """A throw-away copy of the fake target."""
    return copy_fake_target(tmp_path / "fake_target")


@pytest.fixture
def single_run(tmp_path: Path) -> Path:
    """A recorded one-node run with every status (report and ``tipc report`` tests)."""
    return single_node_run(tmp_path / "results")


@pytest.fixture
def multi_run(tmp_path: Path) -> tuple[Path, Path]:
    return multi_node_runs(tmp_path / "results")
