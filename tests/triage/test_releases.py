"""``tipc bisect --paddle-good/--paddle-bad``: the first Paddle release that breaks a stage, each release installed
into a venv of its own from a local wheelhouse of tiny ``paddlepaddle`` wheels (offline: ``--no-index``)."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tipc.cli.main import main
from tipc.errors import UsageError
from tipc.triage.releases import between
from tipc.triage.step import BAD, GOOD

MODE = "lite_train_lite_infer"
EXPORT = "norm_train-gpus_-1-fp32::export"
RELEASES = ("3.0.0", "3.1.0", "3.1.1", "3.2.0", "3.3.1")
BROKEN_FROM = "3.2.0"  # its jit.save stopped working


def wheel(folder: Path, version: str, body: str) -> None:
    """A pure-Python wheel of ``paddlepaddle`` ``version`` whose ``paddle`` package is ``body``."""
    info = f"paddlepaddle-{version}.dist-info"
    files = {
        "paddle/__init__.py": body,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: paddlepaddle\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [
        f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},"
        f"{len(text.encode())}"
        for path, text in files.items()
    ]
    with zipfile.ZipFile(folder / f"paddlepaddle-{version}-py3-none-any.whl", "w") as whl:
        for path, text in files.items():
            whl.writestr(path, text)
        whl.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheelhouse")
    for version in RELEASES:
        works = tuple(map(int, version.split("."))) < tuple(map(int, BROKEN_FROM.split(".")))
        wheel(folder, version, f"__version__ = {version!r}\n\ndef save_works():\n    return {works}\n")
    return folder


def test_bisect_over_releases_names_the_first_that_breaks_the_stage(wheelhouse, tmp_path):
    repo = copy_fake_target(tmp_path / "target")
    export = repo / "tools" / "export_model.py"
    export.write_text(
        "import sys\nimport paddle\n\nif not paddle.save_works():\n    sys.exit(3)\n" + export.read_text()
    )
    argv = [sys.executable, "-m", "tipc", "bisect", "--config", CPU_CONFIG, "--mode", MODE, "--stage", EXPORT,
            "--paddle-good", "3.0.0", "--paddle-bad", "3.3.1", "--pip-option=--no-index",
            f"--pip-option=--find-links={wheelhouse}", "--work-dir", str(tmp_path / "work"), "--format", "json"]  # fmt: skip
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout)
    assert (found["first_bad"], found["last_good"]) == (BROKEN_FROM, "3.1.1")
    tried = {t["version"]: t["outcome"] for t in found["tried"]}
    assert tried == {"3.3.1": BAD, "3.0.0": GOOD, "3.1.1": GOOD, "3.2.0": BAD}  # halving: 3.1.0 never installed
    for version, outcome in tried.items():  # each release in a venv of its own, and its chain ran with it
        venv = tmp_path / "work" / "venvs" / version
        said = subprocess.run([venv / "bin" / "python", "-c", "import paddle; print(paddle.__version__)"],
                              capture_output=True, text=True, check=True)  # fmt: skip
        assert said.stdout.strip() == version
        assert (outcome == BAD) == ("failed" in {t["status"] for t in found["tried"] if t["version"] == version})
    assert not (repo / "test_tipc" / "output").exists()  # the user's results folder is left alone


def test_a_release_with_which_the_stage_passes_at_the_bad_end_is_said_first(wheelhouse, tmp_path):
    repo = copy_fake_target(tmp_path / "target")
    argv = [sys.executable, "-m", "tipc", "bisect", "--config", CPU_CONFIG, "--mode", MODE, "--stage", EXPORT,
            "--paddle-good", "3.0.0", "--paddle-bad", "3.1.0", "--paddle-versions", "3.0.0,3.1.0",
            "--pip-option=--no-index", f"--pip-option=--find-links={wheelhouse}"]  # fmt: skip
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"no culprit: --paddle-bad 3.1.0: {EXPORT} is passed, not failed" in done.stdout


@pytest.mark.parametrize(
    ("versions", "good", "bad", "expected"),
    [
        (RELEASES, "3.0.0", "3.3.1", list(RELEASES)),
        (RELEASES, "3.1.0", "3.2.0", ["3.1.0", "3.1.1", "3.2.0"]),
        (("3.3.1", "3.2.0rc0", "3.1.0", "2.6.2", "junk"), "3.0.0", "3.3.1", ["3.0.0", "3.1.0", "3.3.1"]),
        (("3.0.0", "3.1.0"), "3.0.0", "3.3.0rc1", ["3.0.0", "3.1.0", "3.3.0rc1"]),
    ],
    ids=["all", "inner", "pre-releases-and-junk-left-out-ends-added", "pre-release-end"],
)
def test_between_lists_the_releases_to_search_oldest_first(versions, good, bad, expected):
    assert between(versions, good, bad) == expected


@pytest.mark.parametrize(
    ("good", "bad", "said"),
    [("3.3.1", "3.0.0", "is not older than"), ("three", "3.0.0", "--paddle-good three: not a release number")],
)
def test_between_refuses_ends_out_of_order_or_unreadable(good, bad, said):
    with pytest.raises(UsageError, match=said):
        between(RELEASES, good, bad)


@pytest.mark.parametrize(
    "ends",
    [
        [],
        ["--paddle-good", "3.0.0"],
        ["--good", "HEAD~1", "--paddle-bad", "3.3.1"],
        ["--paddle-good", "3.0.0", "--bad", "HEAD"],
    ],
)
def test_one_pair_of_ends_commits_or_releases(ends, capsys):
    assert main(["bisect", "--config", CPU_CONFIG, "--mode", MODE, "--stage", EXPORT, *ends]) == 2
    assert "give --good and --bad (commits), or --paddle-good and --paddle-bad" in capsys.readouterr().err
