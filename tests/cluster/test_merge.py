import argparse
import json

import pytest

from tipc.cli import merge_cmd
from tipc.cluster.merge import load_results_dir, merge, merge_dirs
from tipc.errors import ResultsError
from tipc.results.records import RunInfo, StageRecord, Status

MODEL, MODE = "tinyrec", "lite_train_lite_infer"
LINE = "\x1b[33m Run {} with command - tinyrec - {} - {} \x1b[0m\n"


def write_node(root, rank, host, start, stages, **info_changes):
    return write_part(root / f"node{rank}", rank, host, start, stages, **info_changes)


def write_part(d, rank, host, start, stages, chain="c", **info_changes):
    d.mkdir(parents=True, exist_ok=True)
    info = dict(
        model=MODEL,
        mode=MODE,
        config="cfg.txt",
        config_sha256="abc",
        tipc_version="0.1.0",
        paddle_version="3.3.1",
        device="cpu",
        host=host,
        node_rank=rank,
        nodes=("127.0.0.2", "127.0.0.3"),
        start=start,
        duration=10.0,
        notes=(f"note{rank}",),
        ended=True,
    )
    info.update(info_changes)
    (d / "run.json").write_text(RunInfo(**info).to_json())
    records = [
        StageRecord(
            id=f"{chain}::{name}",
            kind=name,
            chain=chain,
            status=status,
            start=start + offset,
            duration=1.0,
            node_rank=rank,
            host=host,
            model=MODEL,
            mode=MODE,
        )
        for name, status, offset in stages
    ]
    (d / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in records))
    (d / "results_python.log").write_text(
        "".join(
            LINE.format(
                "successfully" if s is Status.PASSED else "failed", f"python {n}.py  > x.log 2>&1 ", f"./{n}.log"
            )
            for n, s, _ in stages
        )
    )
    return d


@pytest.fixture
def two_nodes(tmp_path):
    mode_dir = tmp_path / MODEL / MODE
    write_node(mode_dir, 1, "127.0.0.3", 100.0, [("train", Status.PASSED, 0), ("export", Status.SKIPPED, 20)])
    write_node(
        mode_dir, 0, "127.0.0.2", 90.0, [("export", Status.PASSED, 30), ("train", Status.PASSED, 1)], duration=40.0
    )
    return mode_dir


def test_load_results_dir(two_nodes):
    info, records = load_results_dir(two_nodes / "node1")
    assert (info.host, info.node_rank) == ("127.0.0.3", 1)
    assert [(r.id, r.status) for r in records] == [("c::train", Status.PASSED), ("c::export", Status.SKIPPED)]


def test_merge_mode_dir_into_itself(two_nodes):
    out = merge_dirs([two_nodes])
    assert out == two_nodes.resolve()
    _, records = load_results_dir(out)
    assert [(r.node_rank, r.host, r.id) for r in records] == [
        (0, "127.0.0.2", "c::train"),
        (0, "127.0.0.2", "c::export"),
        (1, "127.0.0.3", "c::train"),
        (1, "127.0.0.3", "c::export"),
    ]
    info = RunInfo.from_dict(json.loads((out / "run.json").read_text()))
    # node 0 runs 90..130, node 1 100..110: the merged run spans both
    assert (info.start, info.duration, info.nodes, info.host) == (90.0, 40.0, ("127.0.0.2", "127.0.0.3"), "")
    assert info.notes[0].startswith("merged from 2 node(s): node 0 127.0.0.2 (")
    assert info.notes[1:] == ("node 0: note0", "node 1: note1")


def test_legacy_log_keeps_lines_byte_for_byte(two_nodes):
    out = merge_dirs([two_nodes / "node1", two_nodes / "node0"], two_nodes.parent / "merged")
    text = (out / "results_python.log").read_text()
    node0 = (two_nodes / "node0" / "results_python.log").read_text()
    node1 = (two_nodes / "node1" / "results_python.log").read_text()
    assert text == (
        f"# node 0 (127.0.0.2): {two_nodes / 'node0' / 'results_python.log'}\n{node0}"
        f"# node 1 (127.0.0.3): {two_nodes / 'node1' / 'results_python.log'}\n{node1}"
    )
    assert (
        "\x1b[33m Run successfully with command - tinyrec - python train.py  > x.log 2>&1  - ./train.log \x1b[0m"
        in text
    )


def test_differing_versions_become_notes(tmp_path):
    write_node(tmp_path, 0, "127.0.0.2", 0.0, [])
    write_node(tmp_path, 1, "127.0.0.3", 0.0, [], paddle_version="3.2.0")
    info = RunInfo.from_dict(json.loads((merge_dirs([tmp_path]) / "run.json").read_text()))
    assert "nodes differ in paddle_version: node 0 '3.3.1', node 1 '3.2.0'" in info.notes


@pytest.mark.parametrize(
    "setup, fragment",
    [
        (lambda d: (d / "node1" / "run.json").unlink(), "run.json: missing"),
        (lambda d: (d / "node1" / "results_python.log").unlink(), "results_python.log: missing"),
        (lambda d: (d / "node1" / "results.jsonl").write_text('{"id": 1}\n'), "results.jsonl:1: not a stage record"),
        (
            lambda d: write_node(d.parent / "other", 1, "127.0.0.3", 0.0, [], model="othermodel"),
            "model is 'othermodel'",
        ),
        (
            lambda d: write_node(d.parent / "other", 1, "127.0.0.3", 0.0, [], config_sha256="zzz"),
            "config_sha256 is 'zzz'",
        ),
        (lambda d: write_node(d.parent / "other", 0, "127.0.0.4", 0.0, []), "node_rank 0 again"),
    ],
    ids=["missing-run-json", "missing-legacy-log", "bad-record", "other-model", "other-config", "same-rank"],
)
def test_merge_errors(two_nodes, setup, fragment):
    setup(two_nodes)
    extra = [two_nodes.parent / "other" / "node1", two_nodes.parent / "other" / "node0"]
    dirs = [two_nodes / "node0", two_nodes / "node1"] + [d for d in extra if d.exists()]
    with pytest.raises(ResultsError) as err:
        merge_dirs(dirs, two_nodes.parent / "out")
    assert fragment in str(err.value)


def test_record_from_another_node_is_refused(two_nodes):
    stray = StageRecord(id="x", kind="train", chain="c", status=Status.PASSED, node_rank=0, model=MODEL, mode=MODE)
    with open(two_nodes / "node1" / "results.jsonl", "a") as f:
        f.write(stray.to_json() + "\n")
    with pytest.raises(
        ResultsError, match=r"node1/results.jsonl:3: record 'x' is tinyrec/lite_train_lite_infer node 0"
    ):
        merge_dirs([two_nodes])


def test_out_must_not_be_a_node_dir(two_nodes):
    with pytest.raises(ResultsError, match="is one of the node directories"):
        merge_dirs([two_nodes], two_nodes / "node0")


def test_cli(two_nodes, tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="tipc merge")
    merge_cmd.add_arguments(parser)
    assert merge_cmd.run(parser.parse_args([str(two_nodes), "--out", str(tmp_path / "m")])) == 0
    assert capsys.readouterr().out == (
        f"tipc merge: no run group (parts of any night look alike): 2 node(s), 4 record(s) -> {tmp_path / 'm'}\n"
    )


def test_merging_again_reads_the_nodes_not_the_last_merge(two_nodes):
    merge_dirs([two_nodes])
    merge_dirs([two_nodes])
    _, records = load_results_dir(two_nodes)
    assert len(records) == 4


TRAIN = [("train", Status.PASSED, 0)]


def write_shard(mode_dir, group, label, start):
    index = label.partition("/")[0]
    d = mode_dir / "shards" / group / f"shard{index}"
    return write_part(d, 0, "h", start, TRAIN, f"c{index}", shard=label, partition=f"split-{group}", run_group=group)


def merge_cli(*args):
    parser = argparse.ArgumentParser(prog="tipc merge")
    merge_cmd.add_arguments(parser)
    return merge_cmd.run(parser.parse_args([str(a) for a in args]))


def test_a_node_of_last_night_is_set_aside_and_tonights_missing_node_is_a_gap(tmp_path, capsys):
    mode_dir = tmp_path / MODEL / MODE
    write_node(mode_dir, 1, "127.0.0.3", 100.0, TRAIN, run_group="slurm-1")  # last night's, never replaced
    write_node(mode_dir, 0, "127.0.0.2", 200.0, TRAIN, run_group="slurm-2")  # tonight node 1 never started
    assert merge_cli(mode_dir) == 1
    out, err = capsys.readouterr()
    assert "tipc merge: run group slurm-2: 1 node(s), 1 record(s)" in out
    assert f"set aside (another night's, not merged): run group slurm-1: 1 part(s) ({mode_dir / 'node1'})" in out
    assert "incomplete: node 1 (127.0.0.3) of run group slurm-2 did not report" in err
    info, records = load_results_dir(mode_dir)
    assert [r.node_rank for r in records] == [0] and info.run_group == "slurm-2"
    assert any(n.startswith("incomplete: node 1 (127.0.0.3) did not report") for n in info.notes)


def test_a_changed_array_size_merges_tonights_shards_only(tmp_path, capsys):
    mode_dir = tmp_path / MODEL / MODE
    for k in (1, 2, 3):
        write_shard(mode_dir, "slurm-10", f"{k}/3", 100.0 + k)
    for k in (1, 2):
        write_shard(mode_dir, "slurm-11", f"{k}/2", 200.0 + k)
    assert merge_cli(mode_dir) == 0
    out = capsys.readouterr().out
    assert "tipc merge: run group slurm-11: 2 shard(s), 2 record(s)" in out
    assert "set aside (another night's, not merged): run group slurm-10: 3 part(s)" in out
    info, records = load_results_dir(mode_dir)
    assert {r.start for r in records} == {201.0, 202.0} and info.partition == "split-slurm-11"


def test_a_shard_that_did_not_report_tonight_is_a_gap_whatever_last_night_left(tmp_path, capsys):
    mode_dir = tmp_path / MODEL / MODE
    for k in (1, 2):
        write_shard(mode_dir, "gitlab-7", f"{k}/2", 100.0 + k)
    write_shard(mode_dir, "gitlab-8", "1/2", 200.0)  # shard 2 was cancelled
    assert merge_cli(mode_dir) == 1
    assert "incomplete: shard 2/2 of run group gitlab-8 did not report" in capsys.readouterr().err
    _, records = load_results_dir(mode_dir)
    assert [r.start for r in records] == [200.0]  # none of last night's records


def test_sharded_and_multi_node_runs_of_one_model_both_merge(tmp_path, capsys):
    mode_dir = tmp_path / MODEL / MODE
    write_node(mode_dir, 0, "127.0.0.2", 100.0, TRAIN, run_group="slurm-5")
    write_node(mode_dir, 1, "127.0.0.3", 100.0, TRAIN, run_group="slurm-5")
    for k in (1, 2):
        write_shard(mode_dir, "slurm-6", f"{k}/2", 150.0 + k)
    assert merge_cli(mode_dir, "--run-group", "slurm-5", "--out", tmp_path / "fleet") == 0
    assert merge_cli(mode_dir, "--out", tmp_path / "sharded") == 0  # the newest group: the shards
    out = capsys.readouterr().out
    assert "run group slurm-5: 2 node(s), 2 record(s)" in out and "run group slurm-6: 2 shard(s), 2 record(s)" in out
    assert [r.node_rank for r in load_results_dir(tmp_path / "fleet")[1]] == [0, 1]
    assert [r.start for r in load_results_dir(tmp_path / "sharded")[1]] == [151.0, 152.0]


def test_a_group_with_no_part_here_is_an_error(two_nodes):
    with pytest.raises(ResultsError, match="no part of run group nope here; found run group"):
        merge([two_nodes], None, "nope")


def test_a_shard_whose_run_json_does_not_read_is_named_not_counted_as_missing(tmp_path, capsys):
    mode_dir = tmp_path / MODEL / MODE
    write_shard(mode_dir, "slurm-3", "1/2", 100.0)
    bad = write_shard(mode_dir, "slurm-3", "2/2", 101.0)
    (bad / "run.json").write_text((bad / "run.json").read_text().replace('"2/2"', '"two of 2"'))
    with pytest.raises(ResultsError, match=r"shard2/run.json: not a tipc run.json \(field 'shard' is "):
        merge([mode_dir])


def test_a_record_copied_into_a_second_shard_is_named(tmp_path):
    mode_dir = tmp_path / MODEL / MODE
    first = write_shard(mode_dir, "slurm-4", "1/2", 100.0)
    second = write_shard(mode_dir, "slurm-4", "2/2", 101.0)
    copied = (first / "results.jsonl").read_text()
    (second / "results.jsonl").write_text((second / "results.jsonl").read_text() + copied)
    with pytest.raises(ResultsError, match=r"shard2/results.jsonl:2: record 'c1::train' of node 0 is also in "
                       r".*shard1/results.jsonl:1; each stage is recorded by one part"):  # fmt: skip
        merge([mode_dir])
