"""What a night records of what it tested, and which earlier night it compared with, wherever the
checkout lives."""

from __future__ import annotations

import shutil
import socket
import subprocess
from pathlib import Path

from tests.cli.test_run_cmd import tipc_run
from tipc.history.provenance import TargetCommit, target_commit
from tipc.results.folder import RUN_INFO, read_run_info
from tipc.run.probe import ask_interpreter
from tipc.version import VERSION

MODE = "lite_train_lite_infer"


def git(repo, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def committed(repo):
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "the target")
    return git(repo, "rev-parse", "HEAD")


def test_the_target_commit_and_whether_it_was_dirty(tmp_path):
    assert target_commit(tmp_path) == TargetCommit()  # no git checkout: none, and no error
    (tmp_path / "train.py").write_text("print(1)\n")
    sha = committed(tmp_path)
    (tmp_path / "output.log").write_text("untracked outputs do not make it dirty\n")
    assert target_commit(tmp_path) == TargetCommit(sha, False)
    (tmp_path / "train.py").write_text("print(2)\n")
    assert target_commit(tmp_path) == TargetCommit(sha, True)


def test_a_moved_checkout_still_compares_with_its_earlier_night(fake_repo, tmp_path, capsys):
    sha = committed(fake_repo)
    assert tipc_run(fake_repo) == 0
    results = fake_repo / "test_tipc" / "output" / "fake_rec" / MODE
    first = read_run_info(results / RUN_INFO)
    assert (first.target_commit, first.target_dirty, first.compared_with) == (sha, False, "")
    moved = tmp_path / "another-runner" / "build"
    moved.parent.mkdir()
    shutil.move(fake_repo, moved)  # a new CI runner: the checkout, its history and reports elsewhere
    capsys.readouterr()
    assert tipc_run(moved) == 0
    (page,) = [line.removeprefix("tipc: report: ") for line in capsys.readouterr().out.splitlines()
               if line.startswith("tipc: report: ")]  # fmt: skip
    html = Path(page).read_text(encoding="utf-8")
    assert '<section id="comparison">' in html and f"Compared with {first.run_id}" in html
    second = read_run_info(moved / "test_tipc" / "output" / "fake_rec" / MODE / RUN_INFO)
    assert second.compared_with == first.run_id and second.target_commit == sha


def test_a_run_records_what_it_tested_and_where(fake_repo):
    """Paddle's version as the stage interpreter reports it (tipc imports no paddle), tipc's, the
    device and the node, beside the target's commit."""
    sha = committed(fake_repo)
    (fake_repo / "README.md").write_text("changed after the commit\n")
    git(fake_repo, "add", "README.md")
    assert tipc_run(fake_repo) == 0
    info = read_run_info(fake_repo / "test_tipc" / "output" / "fake_rec" / MODE / RUN_INFO)
    asked = ask_interpreter(info.python)
    assert (info.target_commit, info.target_dirty) == (sha, True)
    assert (info.paddle_version, info.python_version) == (asked.paddle_version, asked.python_version)
    assert (info.tipc_version, info.device, info.host, info.node_rank) == (VERSION, "cpu", socket.gethostname(), 0)
