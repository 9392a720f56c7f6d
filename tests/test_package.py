"""The package as a user gets it: ``python -m build`` makes an sdist, and from it a wheel, which installs into a
clean venv (its dependencies from the package index, nothing from this checkout) where ``tipc --version`` and
``pytest --help`` work."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tipc.version import VERSION

ROOT = Path(__file__).resolve().parents[1]
# The clean venv sees nothing of this checkout's environment (a PYTHONPATH holding the sources would make pip
# find tipc already installed).
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # From the sdist, as pip would: the wheel is built from what the sdist carries, not from the checkout.
    subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], check=True, capture_output=True)
    return out


def only(folder: Path, pattern: str) -> Path:
    (found,) = folder.glob(pattern)
    return found


def test_the_wheel_carries_the_licence_the_types_marker_and_the_data_files(dist):
    wheel = only(dist, f"tipc-{VERSION}-py3-none-any.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    info = f"tipc-{VERSION}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    assert "tipc/py.typed" in names
    assert any(n.startswith("tipc/report/templates/") for n in names)
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert "Classifier: Framework :: Pytest" in metadata


def test_the_sdist_carries_the_licence_and_the_sources(dist):
    sdist = only(dist, f"tipc-{VERSION}.tar.gz")
    with tarfile.open(sdist) as tar:
        names = set(tar.getnames())
    assert f"tipc-{VERSION}/LICENSE" in names
    assert f"tipc-{VERSION}/tipc/cli/main.py" in names


def test_the_wheel_installs_and_runs_in_a_clean_venv(dist, tmp_path):
    """The wheel is built from the sdist (``python -m build``'s way), so this installs what the sdist holds."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    package = only(dist, f"tipc-{VERSION}-py3-none-any.whl")
    subprocess.run(
        [bin_dir / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", str(package)],
        check=True,
        capture_output=True,
        env=CLEAN_ENV,
    )
    shown = subprocess.run(
        [bin_dir / "tipc", "--version"], capture_output=True, text=True, check=True, env=CLEAN_ENV, cwd=tmp_path
    )
    assert VERSION in shown.stdout
    # The entry point loads tipc's plugin in the clean venv's pytest, whose help lists tipc's options.
    helped = subprocess.run(
        [bin_dir / "pytest", "--help"], capture_output=True, text=True, check=True, cwd=tmp_path, env=CLEAN_ENV
    )
    assert "--tipc-timeout" in helped.stdout
