"""The GitLab recipe (nightly/shards-gitlab.yml) for real under gitlab-ci-local, two nights in a row.

gitlab-ci-local's shell executor with ``--shell-isolation`` runs each job in a build folder of its own
(``.gitlab-ci-local/builds/<job>/``, refilled from the project's tracked files at every job), restores
the ``cache:`` from ``.gitlab-ci-local/cache/<key>/`` before the script and saves it after, and hands
the shards' artifacts to the merge job, as a GitLab runner does. The project is a small tipc checkout
(its recipes and an including ``.gitlab-ci.yml``); the target is the fake one, fetched at a commit
from a git repository of its own, as ``PADDLEOCR_REF`` pins PaddleOCR.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.fake_target import copy_fake_target
from tests.support.htmlq import parse
from tipc.history.store import HISTORY_FILE, History
from tipc.results.folder import read_records, read_run_info

pytestmark = pytest.mark.slow
CHECKOUT = Path(__file__).resolve().parents[2]
MODE = "lite_train_lite_infer"
CONFIGS = {  # two models: a results folder each, a chain each, one per shard
    "fake_rec": "configs/fake_rec/train_linux_cpu_normal_normal_infer_python_linux_cpu.txt",
    "fake_rec_amp": "configs/fake_rec/train_linux_cpu_normal_amp_infer_python_linux_cpu.txt",
}
OUTPUT = Path("PaddleOCR/test_tipc/output")
INCLUDING = """\
include:
  - local: nightly/shards-gitlab.yml
stages: [build, test, deploy]  # a project's own list keeps the recipe's stages
tipc-shard:
  parallel: 2
"""


def _missing() -> str:
    for tool in ("gitlab-ci-local", "rsync", "git"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (npm install -g gitlab-ci-local@4.65.1; apt-get install rsync)"
    return ""


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _repo(path: Path) -> str:
    """A committed git repository of what ``path`` holds; its commit."""
    _git(path, "init", "-q", "-b", "main")
    _git(path, "add", "-A")
    _git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "tonight")
    return _git(path, "rev-parse", "HEAD")


@pytest.fixture
def project(tmp_path):
    why = _missing()
    if why:
        pytest.skip(why)
    target = copy_fake_target(tmp_path / "target")
    ref = _repo(target)
    project = tmp_path / "tipc"
    shutil.copytree(CHECKOUT / "nightly", project / "nightly")
    (project / ".gitlab-ci.yml").write_text(INCLUDING)
    (project / "configs.txt").write_text("".join(f"{c}\n" for c in CONFIGS.values()))
    (project / ".gitignore").write_text(".gitlab-ci-local/\n")
    _repo(project)
    variables = {
        "PADDLEOCR_URL": target.as_uri(),
        "PADDLEOCR_REF": ref,  # a commit, not a branch
        "TIPC_CONFIGS": "configs.txt",
        "TIPC_PYTHON": sys.executable,  # the runner's own tipc: no `make install`
        "TIPC_STAGE_PYTHON": sys.executable,
        "TIPC_JOBS": "1",
    }
    return project, variables


def _night(project: Path, variables: dict[str, str], *extra: str) -> tuple[subprocess.CompletedProcess[str], float]:
    # --no-artifacts-to-source: as on GitLab, artifacts reach later jobs only, never the checkout
    argv = ["gitlab-ci-local", "--shell-isolation", "--no-artifacts-to-source", "--no-color", *extra]
    for name, value in variables.items():
        argv += ["--variable", f"{name}={value}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIPC_", "CI_", "GITLAB_", "SLURM_"))}
    started = time.monotonic()
    done = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=540)
    return done, time.monotonic() - started


def test_two_nights_of_the_gitlab_recipe_the_second_with_trends(project):
    project, variables = project
    pushed, _ = _night(project, variables, "--list")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert "tipc-" not in pushed.stdout  # a push runs none of the nightly's jobs
    listed, _ = _night(project, {**variables, "TIPC_NIGHTLY": "1"}, "--list")
    jobs = re.findall(r"^(tipc-[\w-]+)\S*(?: \[\d/\d\])?\s+(\w+)\s+(\w+)", listed.stdout, re.M)
    assert jobs == [("tipc-shard", "test", "on_success")] * 2 + [("tipc-merge", "deploy", "always")], listed.stdout

    # night 1 started by hand (TIPC_NIGHTLY=1), night 2 by the schedule
    nights = [
        ({**variables, "TIPC_NIGHTLY": "1"}, ()),
        ({**variables, "CI_PIPELINE_SOURCE": "schedule"}, ("--ignore-predefined-vars", "CI_PIPELINE_SOURCE")),
    ]
    builds = project / ".gitlab-ci-local" / "builds"
    downloaded = project / ".gitlab-ci-local" / "artifacts" / "tipc-merge"  # what the merge job hands on
    groups, merged_runs = [], []
    for night, (nightly, extra) in enumerate(nights, 1):
        done, took = _night(project, nightly, *extra)
        log = done.stdout + done.stderr
        (project.parent / f"night{night}.log").write_text(log)
        assert done.returncode == 0, f"night {night}:\n{log[-6000:]}"
        print(f"night {night}: {took:.1f} s")
        assert re.search(r"PASS +tipc-shard: \[1/2\]", log) and re.search(r"PASS +tipc-shard: \[2/2\]", log)
        assert re.search(r"PASS +tipc-merge", log), log[-3000:]
        group = read_run_info(builds / "tipc-merge" / OUTPUT / "fake_rec" / MODE / "run.json").run_group
        groups.append(group)
        for model in CONFIGS:
            mode_dir = downloaded / OUTPUT / model / MODE
            assert f"tipc merge: run group {group}: 2 shard(s)" in log, log[-6000:]
            records = read_records(mode_dir / "results.jsonl")
            assert records and {r.status.name for r in records} <= {"PASSED", "SKIPPED"}
            assert sorted(p.name for p in (mode_dir / "shards").iterdir()) == [group]  # tonight's parts only
            assert {read_run_info(mode_dir / "run.json").run_group} == {group}
            assert all(Path(r.log).is_file() for r in records if r.log)  # the records' logs came along
            shard_runs = {read_run_info(p).run_id for p in (mode_dir / "shards" / group).glob("shard*/run.json")}
            assert len(shard_runs) == 2 and {r.run_id for r in records} <= shard_runs  # none of last night's records
        merged_runs.append(read_run_info(downloaded / OUTPUT / "fake_rec" / MODE / "run.json").run_id)
    assert groups[0] != groups[1] and all(g.startswith("gitlab-") for g in groups)
    assert not (downloaded / OUTPUT / HISTORY_FILE).exists()  # the cache's, nobody else's

    # The history file went through the cache: night 2's report shows both nights.
    cache = project / ".gitlab-ci-local" / "cache" / "tipc-history" / OUTPUT / HISTORY_FILE
    assert sorted(p.name for p in cache.parent.iterdir()) == [HISTORY_FILE]  # exactly that file
    for model in CONFIGS:
        assert len({e.run for e in History(cache).series(model, MODE)}) == 2
        report = downloaded / "nightly-reports" / model / MODE / "latest"
        doc = parse((report / "index.html").read_text(encoding="utf-8"))
        rows = doc.find(id="trend-table").find("tbody").find_all("tr")
        assert rows and all(len(tr.find("polyline").attrs["points"].split()) == 2 for tr in rows)
        links = [a.attrs["href"] for a in doc.find_all("a") if a.attrs.get("href", "").endswith(".log")]
        assert links and all((report / href).resolve().is_file() for href in links)  # as downloaded
        # the merge job's tree held no report of night 1: the baseline came from the cached store
        assert merged_runs[0] in doc.find(id="comparison").find("h2").text
        assert [e.text for e in doc.find(id="history").find_all("span", cls="run")] == [merged_runs[0]]


def test_a_night_whose_stages_failed_still_saves_its_history(project):
    project, variables = project
    done, _ = _night(project, {**variables, "TIPC_NIGHTLY": "1", "TIPC_FAKE": "export:fail"})
    log = done.stdout + done.stderr
    assert done.returncode != 0, log[-3000:]  # every shard's export failed: the pipeline fails
    assert "tipc merge: run group gitlab-" in log and "the night failed" in log, log[-6000:]
    cache = project / ".gitlab-ci-local" / "cache" / "tipc-history" / OUTPUT / HISTORY_FILE
    assert cache.is_file(), log[-3000:]  # the failed merge job pushed the cache all the same
    merged = read_run_info(
        project / ".gitlab-ci-local" / "builds" / "tipc-merge" / OUTPUT / "fake_rec" / MODE / "run.json"
    )
    for model in CONFIGS:
        assert {e.run for e in History(cache).series(model, MODE)} == {merged.run_id}
