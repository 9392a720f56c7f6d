"""--shard K/N: balanced parts, chains whole, the parts union to the whole, every shard computes the same split."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tipc.errors import SettingsError
from tipc.results.folder import ResultsDir
from tipc.results.records import RunInfo, StageRecord, Status
from tipc.schedule.policy import Shard
from tipc.schedule.shard import Sharding, Unit, fingerprint, partition, results_folder, seconds_by_part

from .plans import CONFIG_DIR, gpu_matrix, plan_of, variant


def lognormal(n: int, seed: int = 13) -> list[float]:
    rng = random.Random(seed)
    return [rng.lognormvariate(5, 1) for _ in range(n)]


def spread(parts, seconds):
    loads = seconds_by_part(parts, seconds)
    return max(loads) / (sum(loads) / len(loads))


@pytest.mark.parametrize(
    ("durations", "count", "within"),
    [
        ([10.0] * 16, 4, 1.0),
        ([5.0, 4.0, 3.0, 3.0, 3.0], 2, 1.0),  # LPT alone gives 10/8; a swap makes 9/9
        ([100.0, 1.0, 1.0, 1.0], 2, 100 / 51.5),  # one chain bigger than a fair share: it is a part alone
        ([float(d) for d in range(1, 41)], 8, 1.01),
        (lognormal(160), 8, 1.01),
    ],
    ids=["equal", "swap-beats-greedy", "giant-chain", "linear", "lognormal-160"],
)
def test_parts_are_balanced(durations, count, within):
    units = [Unit(f"c{i}", d) for i, d in enumerate(durations)]
    parts = partition(units, count)
    assert spread(parts, {u.key: u.seconds for u in units}) <= within + 1e-9


@pytest.mark.parametrize("count", [1, 2, 3, 8, 12], ids=lambda n: f"{n}-parts")
def test_parts_union_to_the_whole_once_each_in_the_given_order(count):
    units = [Unit(f"c{i:02}", float(i % 7 + 1)) for i in range(10)]
    parts = partition(units, count)
    keys = [k for part in parts for k in part]
    assert sorted(keys) == [u.key for u in units] and len(parts) == count
    assert all(list(part) == sorted(part) for part in parts)


def test_the_split_depends_only_on_its_inputs():
    units = [Unit(f"c{i}", float(i * 37 % 11 + 1)) for i in range(30)]
    assert partition(units, 4) == partition(list(units), 4)
    assert fingerprint(partition(units, 4)) == fingerprint(partition(units, 4)) != fingerprint(partition(units, 5))


def write_configs(repo: Path, count: int) -> list[Path]:
    """``count`` configs sharing the model ``m`` (one results folder), 4 chains each, one dropping a case."""
    paths = []
    for i in range(count):
        path = repo / CONFIG_DIR / f"c{i}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        text = gpu_matrix("m", f"{i}|{i},{i + 1}", "fp32|amp")
        path.write_text(text.replace("--precision:fp32", "--precision:fp32|fp16"))  # fp16 on CPU is dropped
        paths.append(path)
    return paths


def builder(repo: Path):
    from tipc.dialects.paddleocr.config import load_config
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions

    return lambda path: build_plan(
        load_config(str(path)), PlanOptions("lite_train_lite_infer", repo=str(repo), python="py", device="gpu")
    )


@pytest.mark.parametrize("count", [1, 2, 3, 5], ids=lambda n: f"{n}-shards")
def test_shards_run_every_chain_once_and_whole(tmp_path, count):
    configs = write_configs(tmp_path, 3)
    build = builder(tmp_path)
    whole = {p: build(p) for p in configs}
    shards = [Sharding(Shard(k, count), "g1", configs, build) for k in range(1, count + 1)]
    seen: dict[str, int] = {}
    for k, sharding in enumerate(shards, 1):
        for path in configs:
            part = sharding.restrict(whole[path])
            assert part.shard == f"{k}/{count}" and part.partition == shards[0].restrict(whole[path]).partition
            for chain in part.chains:
                assert chain == next(c for c in whole[path].chains if c.id == chain.id)  # whole, untouched
                seen[f"{path.name}::{chain.id}"] = seen.get(f"{path.name}::{chain.id}", 0) + 1
            assert all(s.id.startswith(tuple(c.id + "::" for c in part.chains)) for s in part.skipped)
    assert seen == {f"{p.name}::{c.id}": 1 for p in configs for c in whole[p].chains}


def test_cases_dropped_outside_any_chain_belong_to_shard_one(tmp_path):
    plan = plan_of(variant({"infer_model": "null"}), mode="whole_infer")  # no chain: nothing to infer with
    assert not plan.chains and [s.id for s in plan.skipped] == ["infer_model"]
    shards = [Sharding(Shard(k, 2), "g1", [tmp_path / "c.txt"], lambda _: plan) for k in (1, 2)]
    assert [[s.id for s in sh.restrict(plan).skipped] for sh in shards] == [["infer_model"], []]


def record(plan, stage_id: str, duration: float) -> StageRecord:
    stage = plan.stage(stage_id)
    return StageRecord(
        id=stage.id,
        kind=stage.kind.value,
        chain=stage.chain,
        status=Status.PASSED,
        config=plan.config_path,
        duration=duration,
        start=1.0,
    )


def test_recorded_durations_balance_and_the_notes_say_so(tmp_path):
    configs = write_configs(tmp_path, 2)
    build = builder(tmp_path)
    plans = [build(p) for p in configs]
    folder = ResultsDir(results_folder(plans[0]))
    folder.begin(RunInfo(model="m", mode="lite_train_lite_infer", config=str(configs[0]), run_id="R1"))
    slow = plans[0].chains[0]
    for plan in plans:
        for s in plan.stages():
            folder.append_record(record(plan, s.id, 100.0 if s.chain == slow.id and plan is plans[0] else 1.0))
    first, second = (Sharding(Shard(k, 2), "g1", configs, build) for k in (1, 2))
    parts = [sh.restrict(p) for sh in (first, second) for p in plans]
    alone = next(i for i, p in enumerate(parts) if slow in p.chains) // 2
    assert sum(len(p.chains) for p in parts[alone * 2 : alone * 2 + 2]) == 1  # the slow chain is a part alone
    assert "balanced by recorded durations" in parts[0].notes[-1]


def test_without_history_stage_counts_balance(tmp_path):
    configs = write_configs(tmp_path, 2)
    note = Sharding(Shard(1, 3), "g1", configs, builder(tmp_path)).restrict(builder(tmp_path)(configs[0])).notes[-1]
    assert note.startswith("shard 1/3: ") and "stages" in note and "nothing recorded yet" in note


def test_a_shard_re_run_later_runs_its_nights_split_whatever_the_history_says_now(tmp_path):
    configs = write_configs(tmp_path, 2)
    build = builder(tmp_path)
    plans = [build(p) for p in configs]
    that_night = [Sharding(Shard(1, 2), "night-1", configs, build).restrict(p) for p in plans]
    folder = ResultsDir(results_folder(plans[0]))  # since then a merge recorded new durations
    folder.begin(RunInfo(model="m", mode="lite_train_lite_infer", config=str(configs[0]), run_id="R1"))
    for plan in plans:
        for s in plan.stages():
            folder.append_record(record(plan, s.id, 100.0 if s.chain == plan.chains[-1].id else 1.0))
    again = [Sharding(Shard(1, 2), "night-1", configs, build).restrict(p) for p in plans]
    tonight = [Sharding(Shard(1, 2), "night-2", configs, build).restrict(p) for p in plans]
    assert [p.chains for p in again] == [p.chains for p in that_night]
    assert again[0].partition == that_night[0].partition != tonight[0].partition
    assert (results_folder(plans[0]) / "shards" / "night-1" / "split.json").is_file()
    with pytest.raises(SettingsError, match=r"run group night-1 was split into 2 parts .*re-run its shards as K/2"):
        Sharding(Shard(1, 3), "night-1", configs, build).restrict(plans[0])


def test_a_recorded_split_that_does_not_read_stops_the_shard(tmp_path):
    configs = write_configs(tmp_path, 1)
    build = builder(tmp_path)
    split = results_folder(build(configs[0])) / "shards" / "g" / "split.json"
    split.parent.mkdir(parents=True)
    split.write_text('{"parts": [[1]]}')
    with pytest.raises(SettingsError, match=r"split\.json: expected"):
        Sharding(Shard(1, 1), "g", configs, build).restrict(build(configs[0]))
