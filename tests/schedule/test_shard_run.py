"""``tipc run --shard K/N`` on the fake target, then ``tipc merge`` and ``tipc report`` over the shards."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

import tipc
from tipc.cli.main import main
from tipc.cluster.merge import merge_dirs
from tipc.errors import ResultsError
from tipc.report.load import is_carried, load_runs, run_ids
from tipc.results.folder import read_records, read_run_info

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


def run_shard(paths: list[Path], shard: str, *extra: str) -> int:
    args = [a for c in paths for a in ("--config", str(c))]
    return main(["run", *args, "--mode", MODE, "--python", sys.executable, "--no-report", "--shard", shard, *extra])


@pytest.fixture
def sharded(fake_repo):
    paths = configs(fake_repo)
    codes = [run_shard(paths, f"{k}/{SHARDS}") for k in range(1, SHARDS + 1)]
    return fake_repo / "test_tipc" / "output" / "sm" / MODE, codes


def test_every_shard_writes_its_own_folder_and_together_they_ran_every_chain_once(sharded):
    mode_dir, codes = sharded
    assert codes == [0] * SHARDS
    infos = [read_run_info(mode_dir / f"shard{k}" / "run.json") for k in range(1, SHARDS + 1)]
    assert [i.shard for i in infos] == [f"{k}/{SHARDS}" for k in range(1, SHARDS + 1)]
    assert len({i.partition for i in infos}) == 1 and infos[0].partition
    per_shard = [read_records(mode_dir / f"shard{k}" / "results.jsonl") for k in range(1, SHARDS + 1)]
    ran = [(r.config, r.id) for rs in per_shard for r in rs]
    assert len(ran) == len(set(ran)) == 6 * 5  # 6 chains × (train, eval, export, 2 infer cases)
    chains = [{(r.config, r.chain) for r in rs} for rs in per_shard]
    assert all(a.isdisjoint(b) for i, a in enumerate(chains) for b in chains[i + 1 :])  # no chain split
    assert [len(c) for c in chains] == [2, 2, 2]  # balanced by stage counts: nothing recorded yet
    assert not (mode_dir / "results.jsonl").exists()  # the history every shard reads stays as it was


def test_merged_shards_are_one_run_in_one_report(sharded, tmp_path, capsys):
    mode_dir, _ = sharded
    assert main(["merge", str(mode_dir)]) == 0
    assert "tipc merge: 3 shard(s), 30 record(s)" in capsys.readouterr().out
    info = read_run_info(mode_dir / "run.json")
    assert info.notes[0].startswith("merged from 3 shard(s): shard 1/3 ") and info.shard == ""
    assert main(["report", str(mode_dir), "--out", str(tmp_path / "reports")]) == 0
    runs = load_runs([mode_dir])
    ids = run_ids(runs)
    records = [r for run in runs for r in run.records]
    assert len(records) == 30 and not [r for r in records if is_carried(r, ids)]
    summary = json.loads(next((tmp_path / "reports" / "sm" / MODE).glob("*/summary.json")).read_text())
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
    assert run_shard(paths, f"1/{SHARDS}") == 0
    note = read_run_info(mode_dir / "shard1" / "run.json").notes
    assert any("balanced by recorded durations" in n for n in note)


def test_merge_refuses_shards_of_different_splits_and_names_a_missing_one(sharded):
    mode_dir, _ = sharded
    other = mode_dir / "shard2" / "run.json"
    other.write_text(other.read_text().replace('"partition": "', '"partition": "x'))
    with pytest.raises(ResultsError, match="partition is 'x"):
        merge_dirs([mode_dir])
    shutil.rmtree(mode_dir / "shard2")
    info = read_run_info(merge_dirs([mode_dir]) / "run.json")
    assert "shard(s) 2/3 missing: their chains are not in these results" in info.notes


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
        "--collect-only",
        "-q",
    )
    chains = {line.split("::")[1] for line in result.outlines if line.count("::") == 2}
    assert len(chains) == 2  # of the six: the same part as tipc run's shard 2/3
