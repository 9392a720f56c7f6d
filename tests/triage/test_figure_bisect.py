"""``tipc bisect --figure``: the fake target, committed four times in a git repository, one commit of which makes
its inference three times slower; the bisection judges each commit by the night's regression rule."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tests.triage.test_bisect import commit, git

MODE = "lite_train_lite_infer"
INFER = "norm_train-gpus_-1-fp32::infer[cpu-mkldnn_False-threads_1-fp32-bs1]"
SLOWER = ('slower = float(todo.get("slower") or 1)', 'slower = float(todo.get("slower") or 3)')


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, list[str]]:
    """c0 … c3; c2 ("Rework the predictor", by Bob) makes inference three times slower."""
    repo = copy_fake_target(tmp_path_factory.mktemp("figure") / "target")
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("test_tipc/output/\n__pycache__/\n")
    shas = [commit(repo, "c0")]
    for n in (1, 2, 3):
        if n == 2:
            script = repo / "tools" / "infer" / "predict_rec.py"
            assert SLOWER[0] in script.read_text()
            script.write_text(script.read_text().replace(*SLOWER))
        else:
            (repo / "README.md").write_text(f"change {n}\n")
        subject, who = ("Rework the predictor", "Bob") if n == 2 else (f"c{n}", "Ann")
        shas.append(commit(repo, subject, GIT_AUTHOR_NAME=who, GIT_AUTHOR_EMAIL=f"{who.lower()}@example.org"))
    return repo, shas


def bisect(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "tipc", "bisect", "--config", CPU_CONFIG, "--mode", MODE, "--stage", INFER, *args]
    return subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=600)


def test_a_regressed_figure_is_bisected_to_the_commit_that_slowed_it(history):
    repo, shas = history
    # The rule's settings are the night's: the fewest earlier values its rank test can judge (the default takes
    # longer).
    done = bisect(repo, "--figure", "inference_ms", "--trend-min-runs", "2", "--good", shas[0], "--bad", shas[3],
                  "--format", "json")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout)
    assert found["first_bad"] == shas[2]
    assert found["culprit"]["subject"] == "Rework the predictor"
    verdicts = {s["commit"]: (s["outcome"], s["status"]) for s in found["steps"]}
    assert verdicts[shas[0]] == ("good", ", ".join(["inference_ms 2", *["2"] * 6]))  # as many as the rule needs
    assert verdicts[shas[3]] == ("bad", "inference_ms 6, 6, 6")  # as many nights as a shift must show
    assert git(repo, "status", "--porcelain") == "" and git(repo, "rev-parse", "HEAD") == shas[3]


@pytest.mark.slow
def test_a_figure_that_did_not_regress_at_bad_names_no_commit(history):
    repo, shas = history
    done = bisect(repo, "--figure", "inference_ms", "--good", shas[0], "--bad", shas[1])
    assert done.returncode == 1
    assert f"no culprit: --bad {shas[1][:12]}: inference_ms of {INFER} did not regress" in done.stdout


def test_an_unknown_figure_is_refused_by_name(history):
    repo, shas = history
    done = bisect(repo, "--figure", "speed", "--good", shas[0], "--bad", shas[3])
    assert done.returncode == 2 and "--figure speed: expected one of ips, inference_ms" in done.stderr
