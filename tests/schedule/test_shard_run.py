"""``tipc run --shard K/N`` on the fake target, then ``tipc merge`` and ``tipc report`` over the shards."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tipc
from tests.support.processes import wait_for
from tipc.cli.main import main
from tipc.cluster.merge import merge_dirs
from tipc.errors import ResultsError
from tipc.history.keys import config_key
from tipc.history.store import HISTORY_FILE, History
from tipc.report.load import is_carried, load_runs, run_ids
from tipc.results.folder import read_records, read_run_info
from tipc.results.outcome import INFRA_EXIT, Outcome

from .plans import CONFIG_DIR, MODE, variant

SHARDS = 3


def configs(repo: Path) -> list[Path]:
    """Two configs of one model (one results folder): 4 + 2 CPU chains."""
    out = []
    for name, autocasts in (("a", "fp32|amp|o1|o2"), ("b", "o3|o4")):
        path = repo / CONFIG_DIR / f"{name}.txt"
        path.write_text(variant({"model_name": "sm", "Global.auto_cast": autocasts, "--benchmark": "False"}))
        out.append(path)
    return out


GROUP = "night-1"


def run_shard(paths: list[Path], shard: str, *extra: str, group: str = GROUP) -> int:
    args = [a for c in paths for a in ("--config", str(c))]
    options = ["--mode", MODE, "--python", sys.executable, "--no-report", "--shard", shard, "--run-group", group]
    return main(["run", *args, *options, *extra])


def shard_dir(mode_dir: Path, k: int, group: str = GROUP) -> Path:
    return mode_dir / "shards" / group / f"shard{k}"


@pytest.fixture
def sharded(fake_repo):
    paths = configs(fake_repo)
    codes = [run_shard(paths, f"{k}/{SHARDS}") for k in range(1, SHARDS + 1)]
    return fake_repo / "test_tipc" / "output" / "sm" / MODE, codes


def test_every_shard_writes_its_own_folder_and_together_they_ran_every_chain_once(sharded):
    mode_dir, codes = sharded
    assert codes == [0] * SHARDS
    infos = [read_run_info(shard_dir(mode_dir, k) / "run.json") for k in range(1, SHARDS + 1)]
    assert [i.shard for i in infos] == [f"{k}/{SHARDS}" for k in range(1, SHARDS + 1)]
    assert len({i.partition for i in infos}) == 1 and infos[0].partition
    per_shard = [read_records(shard_dir(mode_dir, k) / "results.jsonl") for k in range(1, SHARDS + 1)]
    ran = [(r.config, r.id) for rs in per_shard for r in rs]
    assert len(ran) == len(set(ran)) == 6 * 5  # 6 chains × (train, eval, export, 2 infer cases)
    chains = [{(r.config, r.chain) for r in rs} for rs in per_shard]
    assert all(a.isdisjoint(b) for i, a in enumerate(chains) for b in chains[i + 1 :])  # no chain split
    assert [len(c) for c in chains] == [2, 2, 2]  # balanced by stage counts: nothing recorded yet
    assert not (mode_dir / "results.jsonl").exists()  # the history every shard reads stays as it was


def test_merged_shards_are_one_run_in_one_report(sharded, tmp_path, capsys):
    mode_dir, _ = sharded
    assert main(["merge", str(mode_dir)]) == 0
    assert f"tipc merge: run group {GROUP}: 3 shard(s), 30 record(s)" in capsys.readouterr().out
    info = read_run_info(mode_dir / "run.json")
    assert info.notes[0].startswith(f"merged from 3 shard(s) of run group {GROUP}: shard 1/3 ") and info.shard == ""
    assert main(["report", str(mode_dir), "--out", str(tmp_path / "reports")]) == 0
    runs = load_runs([mode_dir])
    ids = run_ids(runs)
    records = [r for run in runs for r in run.records]
    assert len(records) == 30 and not [r for r in records if is_carried(r, ids)]
    summary = json.loads(History(mode_dir.parents[1] / HISTORY_FILE).reports("sm", MODE)[0].text)
    assert summary["counts"]["passed"] == 30
    legacy = (mode_dir / "results_python.log").read_text()
    assert [line.split(" (")[0] for line in legacy.splitlines() if line.startswith("#")] == [
        "# shard 1/3",
        "# shard 2/3",
        "# shard 3/3",
    ]


def test_the_next_split_balances_by_the_merged_durations(sharded, monkeypatch):
    mode_dir, _ = sharded
    merge_dirs([mode_dir])
    monkeypatch.setenv("TIPC_FAKE", "train:sleep=0.1")
    paths = sorted((mode_dir.parents[3] / CONFIG_DIR).glob("[ab].txt"))
    assert run_shard(paths, f"1/{SHARDS}", group="night-2") == 0
    note = read_run_info(shard_dir(mode_dir, 1, "night-2") / "run.json").notes
    assert any("balanced by recorded durations" in n for n in note)


def test_merge_refuses_shards_of_different_splits_and_names_a_missing_one(sharded):
    mode_dir, _ = sharded
    other = shard_dir(mode_dir, 2) / "run.json"
    other.write_text(other.read_text().replace('"partition": "', '"partition": "x'))
    with pytest.raises(ResultsError, match="partition is 'x"):
        merge_dirs([mode_dir])
    shutil.rmtree(shard_dir(mode_dir, 2))
    info = read_run_info(merge_dirs([mode_dir]) / "run.json")
    assert "incomplete: shard 2/3 did not report: their chains are not in these results" in info.notes


def test_a_shard_runs_under_pytest_too(pytester, pytester_repo):
    paths = configs(pytester_repo)
    args = [a for c in paths for a in ("--config", str(c))]
    result = pytester.runpytest(
        str(Path(tipc.__file__).parent),
        "-c",
        str(pytester.path / "tox.ini"),
        *args,
        "--mode",
        MODE,
        "--tipc-python",
        sys.executable,
        "--tipc-no-report",
        "-p",
        "no:cacheprovider",
        "--tipc-shard",
        "2/3",
        "--tipc-run-group",
        GROUP,
        "--collect-only",
        "-q",
    )
    chains = {line.split("::")[1] for line in result.outlines if line.count("::") == 2}
    assert len(chains) == 2  # of the six: the same part as tipc run's shard 2/3


def test_night_after_night_a_cancelled_shard_is_a_gap_until_it_is_re_run(sharded, capsys):
    mode_dir, _ = sharded  # night 1: three shards, never cleared
    assert main(["merge", str(mode_dir)]) == 0
    paths = sorted((mode_dir.parents[3] / CONFIG_DIR).glob("[ab].txt"))
    assert run_shard(paths, "1/2", group="night-2") == 0  # a smaller array; its task 2 was cancelled
    capsys.readouterr()
    assert main(["merge", str(mode_dir)]) == 1
    out, err = capsys.readouterr()
    assert "tipc merge: run group night-2: 1 shard(s)" in out
    assert "set aside (another night's, not merged): run group night-1: 3 part(s)" in out
    assert "incomplete: shard 2/2 of run group night-2 did not report" in err
    tonight = {read_run_info(shard_dir(mode_dir, 1, "night-2") / "run.json").run_id}
    assert {r.run_id for r in read_records(mode_dir / "results.jsonl")} == tonight  # none is last night's
    assert run_shard(paths, "2/2", group="night-2") == 0  # the re-run: that night's split, recorded
    assert main(["merge", str(mode_dir)]) == 0
    records = read_records(mode_dir / "results.jsonl")
    assert len(records) == 30 and len({(r.config, r.id) for r in records}) == 30
    infos = [read_run_info(shard_dir(mode_dir, k, "night-2") / "run.json") for k in (1, 2)]
    assert {r.run_id for r in records} == {i.run_id for i in infos} and infos[0].partition == infos[1].partition


def test_a_shard_with_no_chains_exits_0_with_a_note(fake_repo, capsys):
    paths = configs(fake_repo)
    assert run_shard(paths, "7/7") == 0  # six chains: the seventh part is empty
    out = capsys.readouterr()
    assert "shard 7/7 has no chains" in out.out + out.err


def test_an_empty_shard_passes_under_pytest_too(pytester, pytester_repo):
    args = [a for c in configs(pytester_repo) for a in ("--config", str(c))]
    result = pytester.runpytest(
        str(Path(tipc.__file__).parent),
        "-c",
        str(pytester.path / "tox.ini"),
        *args,
        *("--mode", MODE, "--tipc-python", sys.executable, "--tipc-no-report", "-p", "no:cacheprovider"),
        *("--tipc-shard", "7/7", "--tipc-run-group", GROUP),
    )
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*tipc: shard 7/7 has no chains: the matrix's 6 chain(s) went to the other parts*"])


def test_the_history_store_alone_carries_the_split_and_the_trends_to_the_next_night(sharded, tmp_path):
    mode_dir, _ = sharded
    assert main(["merge", str(mode_dir)]) == 0
    assert main(["report", str(mode_dir), "--out", str(tmp_path / "reports")]) == 0
    output = mode_dir.parents[1]
    cached = (output / HISTORY_FILE).read_bytes()
    shutil.rmtree(output)  # next night on a fresh CI runner: only the cached file comes back
    shutil.rmtree(tmp_path / "reports")  # and deleting old reports loses no history
    output.mkdir(parents=True)
    (output / HISTORY_FILE).write_bytes(cached)
    paths = sorted((mode_dir.parents[3] / CONFIG_DIR).glob("[ab].txt"))
    for k in range(1, SHARDS + 1):
        assert run_shard(paths, f"{k}/{SHARDS}", group="night-2") == 0
        notes = read_run_info(shard_dir(mode_dir, k, "night-2") / "run.json").notes
        assert any("balanced by recorded durations" in n for n in notes)
    assert main(["merge", str(mode_dir)]) == 0
    assert main(["report", str(mode_dir), "--out", str(tmp_path / "reports")]) == 0
    series = History(output / HISTORY_FILE).series("sm", MODE)
    per_config = {c: [e.run for e in series if e.config == c] for c in {e.config for e in series}}
    assert sorted(per_config) == [config_key(str(p)) for p in paths]  # one series per config, both nights in it
    assert all(len(runs) == 2 for runs in per_config.values())


def test_a_shard_the_scheduler_cancelled_lists_its_chains_as_not_run_and_the_night_is_incomplete(fake_repo, capsys):
    paths = configs(fake_repo)
    mode_dir = fake_repo / "test_tipc" / "output" / "sm" / MODE
    assert [run_shard(paths, f"{k}/{SHARDS}") for k in (1, 3)] == [0, 0]
    args = [a for c in paths for a in ("--config", str(c))]
    argv = [sys.executable, "-m", "tipc", "run", *args, "--mode", MODE, "--python", sys.executable, "--no-report",
            "--shard", f"2/{SHARDS}", "--run-group", GROUP]  # fmt: skip
    env = {**os.environ, "TIPC_FAKE": "train:sleep=60", "SLURM_JOB_ID": "77"}
    shard = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:  # scancel: Slurm sends SIGTERM while the shard's first train runs
        assert wait_for(lambda: any((shard_dir(mode_dir, 2) / ".tipc_stage").glob("*")), 60)
        time.sleep(0.5)
        shard.send_signal(signal.SIGTERM)
        assert shard.wait(timeout=30) == INFRA_EXIT
    finally:
        shard.kill()
    capsys.readouterr()
    assert main(["merge", str(mode_dir)]) == Outcome.INCOMPLETE.exit_status
    err = capsys.readouterr().err
    assert (
        f"tipc merge: incomplete: shard 2/{SHARDS} was stopped by the scheduler (job 77, scheduler slurm, signal SIGTERM, state unknown)"
        in err
    )
    cancelled = [r for r in read_records(mode_dir / "results.jsonl") if r.shard == f"2/{SHARDS}"]
    chains = sorted({r.chain for r in cancelled})
    assert len(chains) == 2 and f"chains not run to their end: {', '.join(chains)}" in err
    assert sorted(r.status.value for r in cancelled) == ["blocked"] * 9 + ["infra"]
    assert any(
        n.startswith(f"incomplete: shard 2/{SHARDS} was stopped") for n in read_run_info(mode_dir / "run.json").notes
    )


def test_a_plain_run_in_a_folder_a_sharded_night_used_reports_itself_and_reaches_the_history(sharded, tmp_path):
    mode_dir, _ = sharded
    assert main(["merge", str(mode_dir)]) == 0
    args = [a for c in sorted((mode_dir.parents[3] / CONFIG_DIR).glob("[ab].txt")) for a in ("--config", str(c))]
    reports = ["--report-dir", str(tmp_path / "reports")]
    assert main(["run", *args, "--mode", MODE, "--python", sys.executable, "--run-group", "plain", *reports]) == 0
    plain = read_run_info(mode_dir / "run.json")
    assert not plain.shard and plain.run_group == "plain"
    assert [run.info.run_id for run in load_runs([mode_dir])] == [plain.run_id]  # not last night's merged run
    series = History(mode_dir.parents[1] / HISTORY_FILE).series("sm", MODE)
    assert plain.run_id in {e.run for e in series}
