"""``tipc bisect`` on a target that is a real git repository with a history: the fake target, committed five
times, its export broken by one commit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tipc.triage.step import BAD, GOOD, SKIP, judge

MODE = "lite_train_lite_infer"
EXPORT = "norm_train-gpus_-1-fp32::export"
IDENTITY = {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.org", "GIT_COMMITTER_NAME": "Ann",
            "GIT_COMMITTER_EMAIL": "ann@example.org"}  # fmt: skip


def git(repo: Path, *args: str, **env: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **IDENTITY, **env})  # fmt: skip
    return done.stdout.strip()


def commit(repo: Path, subject: str, **env: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject, **env)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, list[str]]:
    """c0 … c4; c2 ("Speed up the export", by Bob) makes the export exit 3."""
    repo = copy_fake_target(tmp_path_factory.mktemp("bisect") / "target")
    git(repo, "init", "-q")
    shas = [commit(repo, "c0")]
    for n in (1, 2, 3, 4):
        script = repo / "tools" / ("export_model.py" if n == 2 else "eval.py")
        lines = script.read_text().splitlines()
        lines.insert(0 if n == 2 else len(lines), "import sys; sys.exit(3)" if n == 2 else f"# change {n}")
        script.write_text("\n".join(lines) + "\n")
        subject, who = ("Speed up the export", "Bob") if n == 2 else (f"c{n}", "Ann")
        shas.append(commit(repo, subject, GIT_AUTHOR_NAME=who, GIT_AUTHOR_EMAIL=f"{who.lower()}@example.org"))
    return repo, shas


def bisect(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "tipc", "bisect", "--config", CPU_CONFIG, "--mode", MODE, *args]
    return subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=600)


def test_bisect_names_the_commit_that_broke_the_stage_and_leaves_the_checkout_alone(history):
    repo, shas = history
    before = (git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain"), git(repo, "for-each-ref"))
    done = bisect(repo, "--stage", EXPORT, "--good", shas[0], "--bad", shas[4], "--format", "json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["first_bad"] == shas[2]
    assert found["culprit"]["subject"] == "Speed up the export"
    assert found["culprit"]["author"] == "Bob <bob@example.org>"
    assert {s["commit"]: s["outcome"] for s in found["steps"]}[shas[2]] == BAD
    assert any(command[:3] == ["git", "bisect", "run"] for command in found["commands"])
    assert (git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain"), git(repo, "for-each-ref")) == before
    assert git(repo, "worktree", "list").count("\n") == 0


def test_a_stage_that_does_not_fail_at_bad_is_said_before_any_search(history):
    repo, shas = history
    done = bisect(repo, "--stage", EXPORT, "--good", shas[0], "--bad", shas[1])
    assert done.returncode == 1
    assert f"--bad {shas[1][:12]}: {EXPORT} is passed, not failed" in done.stdout
    assert "first bad commit" not in done.stdout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--good", "no-such-rev", "--bad", "HEAD"), "--good no-such-rev: no such commit"),
        (("--good", "HEAD", "--bad", "HEAD~4"), "is not a descendant of --good"),
    ],
)
def test_revisions_that_cannot_be_searched_are_refused_by_name(history, args, said):
    repo, _ = history
    done = bisect(repo, "--stage", EXPORT, *args)
    assert done.returncode == 2
    assert said in done.stderr


@pytest.mark.parametrize(
    ("status", "outcome"),
    [("passed", GOOD), ("failed", BAD), ("timeout", BAD), ("hung", BAD), ("blocked", SKIP), ("skipped", SKIP),
     (None, SKIP)],
)  # fmt: skip
def test_a_stage_that_did_not_run_is_skipped_never_blamed(status, outcome):
    assert judge(status) == outcome


def test_a_git_question_that_fails_says_what_git_said(tmp_path):
    from tipc.errors import UsageError
    from tipc.triage.bisect import git as ask_git

    with pytest.raises(UsageError, match="not a git repository"):
        ask_git(tmp_path, "rev-parse", "HEAD")
