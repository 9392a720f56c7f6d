"""A cell's state across real nights: the fake target, committed night after night in a git repository,
run with ``tipc run`` (the records and the report) and ``pytest tipc`` (the JUnit properties)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_run_cmd import tipc_run
from tests.support.fake_target import CPU_CONFIG
from tipc.history.summaries import RunSummary, StageSummary
from tipc.results.folder import RECORDS
from tipc.results.records import StageRecord, Status
from tipc.session.cells import nights_of, stamped
from tipc.triage.states import Night, Outcome

MODE = "lite_train_lite_infer"
EXPORT = "norm_train-gpus_-1-fp32::export"
TRAIN = "norm_train-gpus_-1-fp32::train"
IDENTITY = {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.org", "GIT_COMMITTER_NAME": "Ann",
            "GIT_COMMITTER_EMAIL": "ann@example.org"}  # fmt: skip


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **IDENTITY})  # fmt: skip
    return done.stdout.strip()


def init(repo: Path) -> None:
    """A git repository of the target, its outputs, reports and Python's bytecode caches left untracked as a
    suite's are (a night's stages write them; tracked, a bisection's checkouts would refuse to overwrite them)."""
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("test_tipc/output/\nreports/\n__pycache__/\n")


def commit(repo: Path, subject: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", subject)
    return git(repo, "rev-parse", "HEAD")


def break_export(repo: Path, broken: bool) -> None:
    script = repo / "tools" / "export_model.py"
    lines = [line for line in script.read_text().splitlines() if line != "import sys; sys.exit(3)"]
    script.write_text("\n".join((["import sys; sys.exit(3)"] if broken else []) + lines) + "\n")


def states(repo: Path) -> dict[str, tuple[str, str, int]]:
    folder = repo / "test_tipc" / "output" / "fake_rec" / MODE
    lines = (folder / RECORDS).read_text().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    return {r["id"]: (r["state"], r["state_since"], r["state_nights"]) for r in records}


def summary(run: str, commit: str, *stages: tuple[str, str, bool]) -> RunSummary:
    own = tuple(StageSummary(sid, 0, status, "", (), carried) for sid, status, carried in stages)
    return RunSummary("m", MODE, run, own, run_id=run, target_commit=commit)


def test_the_nights_of_a_cell_come_newest_first_and_carried_records_are_not_that_nights():
    found = nights_of(
        [
            summary("r1", "c1", ("s", "passed", False)),
            summary("r3", "c3", ("s", "failed", False)),
            summary("r2", "c2", ("s", "passed", True)),
            summary("r9", "c9", ("s", "passed", False)),  # a later night than the one judged: not its past
        ],
        before="r5",
    )
    assert found == {
        ("s", 0): (
            Night("r3", 0.0, "c3", Outcome.FAILED),
            Night("r2", 0.0, "c2", Outcome.NOT_RUN),
            Night("r1", 0.0, "c1", Outcome.PASSED),
        )
    }


@pytest.mark.parametrize(
    ("status", "attempts", "expected"),
    [
        (Status.FAILED, 1, ("still_failing", "r3", 2)),
        (Status.PASSED, 1, ("fixed", "", 0)),
        (Status.PASSED, 2, ("flaky", "", 0)),  # failed, then passed on a re-run in this run
        (Status.BLOCKED, 1, ("not_run", "", 0)),
        (Status.TIMEOUT, 1, ("still_failing", "r3", 2)),
    ],
)
def test_a_record_is_stamped_with_its_state(status, attempts, expected):
    nights = nights_of([summary("r3", "c3", ("s", "failed", False))], before="r4")
    attempt = {"status": "failed", "reason": "", "returncode": 1, "start": 0.0, "duration": 0.0}
    record = StageRecord("s", "train", "c", status, attempts=(attempt,) * attempts if attempts > 1 else ())
    done = stamped(record, "c4", nights)
    assert (done.state, done.state_since, done.state_nights) == expected


def test_a_failure_is_new_on_the_night_of_its_commit_and_still_failing_after_until_fixed(fake_repo, capsys):
    init(fake_repo)
    commit(fake_repo, "the target")
    assert tipc_run(fake_repo) == 0
    first = states(fake_repo)
    assert first[TRAIN][0] == first[EXPORT][0] == "passing"

    break_export(fake_repo, True)
    commit(fake_repo, "Speed up the export")
    assert tipc_run(fake_repo) == 1
    second = states(fake_repo)
    assert second[EXPORT] == ("new_failure", "", 0)
    assert second[TRAIN][0] == "passing"
    began = json.loads((fake_repo / "test_tipc" / "output" / "fake_rec" / MODE / "run.json").read_text())["run_id"]

    (fake_repo / "README.md").write_text("an unrelated change\n")
    commit(fake_repo, "Docs")
    capsys.readouterr()
    assert tipc_run(fake_repo) == 1
    assert states(fake_repo)[EXPORT] == ("still_failing", began, 2)
    (page,) = [line.removeprefix("tipc: report: ") for line in capsys.readouterr().out.splitlines()
               if line.startswith("tipc: report: ")]  # fmt: skip
    html = Path(page).read_text(encoding="utf-8")
    assert f"still failing: 2 nights, since {began}" in html
    index = (fake_repo / "reports" / "night" / "latest" / "index.html").read_text(encoding="utf-8")
    assert (
        f"still failing: 2 nights, since {began}" in index and 'data-stage="norm_train-gpus_-1-fp32::export"' in index
    )

    break_export(fake_repo, False)
    commit(fake_repo, "Fix the export")
    assert tipc_run(fake_repo) == 0
    assert states(fake_repo)[EXPORT][0] == "fixed"


def test_pytest_junit_properties_carry_the_state(fake_repo, tmp_path):
    init(fake_repo)
    commit(fake_repo, "the target")
    junit = tmp_path / "junit.xml"
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "tipc", f"--config={CPU_CONFIG}",
            "--mode", MODE, f"--junitxml={junit}", "--tipc-report-dir", str(tmp_path / "reports")]  # fmt: skip
    done = subprocess.run(argv, cwd=fake_repo, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    text = junit.read_text()
    assert '<property name="state" value="passing"' in text, text


def test_a_night_bisects_its_new_failure_within_its_budget(fake_repo, capsys):
    init(fake_repo)
    good = commit(fake_repo, "the target")
    assert tipc_run(fake_repo) == 0
    break_export(fake_repo, True)
    culprit = commit(fake_repo, "Speed up the export")
    (fake_repo / "README.md").write_text("an unrelated change\n")
    tonight = commit(fake_repo, "Docs")
    capsys.readouterr()
    assert tipc_run(fake_repo, "--bisect-budget", "1800")  # a cap: a busy machine may need it == 1
    out = capsys.readouterr()
    folder = fake_repo / "test_tipc" / "output" / "fake_rec" / MODE
    (found,) = json.loads((folder / "culprits.json").read_text())["culprits"]
    assert (found["stage"], found["good"], found["bad"], found["sha"]) == (EXPORT, good, tonight, culprit), found[
        "problem"
    ]
    assert found["subject"] == "Speed up the export" and found["author"] == "Ann <ann@example.org>"
    assert any(line.startswith("git bisect run ") for line in found["commands"])
    assert f"bisected {EXPORT} between {good[:12]} and {tonight[:12]}: {culprit[:12]} Speed up the export" in out.err
    (page,) = [
        line.removeprefix("tipc: report: ") for line in out.out.splitlines() if line.startswith("tipc: report: ")
    ]
    assert f'data-culprit="{culprit}"' in Path(page).read_text(encoding="utf-8")
    index = (fake_repo / "reports" / "night" / "latest" / "index.html").read_text(encoding="utf-8")
    assert f'data-culprit="{culprit}"' in index and "git bisect run" in index
    assert git(fake_repo, "rev-parse", "HEAD") == tonight and git(fake_repo, "status", "--porcelain") == ""


def test_without_a_good_night_or_budget_left_a_new_failure_says_why_it_has_no_culprit(fake_repo):
    init(fake_repo)
    break_export(fake_repo, True)
    commit(fake_repo, "the target, broken from its first night")
    assert tipc_run(fake_repo, "--bisect-budget", "60") == 1
    folder = fake_repo / "test_tipc" / "output" / "fake_rec" / MODE
    (found,) = json.loads((folder / "culprits.json").read_text())["culprits"]
    assert found["sha"] == "" and "no earlier night passed it" in found["problem"]
