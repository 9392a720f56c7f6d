"""A config's identity in the history: its suite and its path inside the suite, wherever it was checked
out; a store keyed the older way (a config's last two path parts) goes on under the new keys."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tipc.history.keys import config_key, is_key, legacy_key, path_in_suite, same_config, short_name, suite_of
from tipc.history.reports import record_run
from tipc.history.store import SCHEMA, History, ReportSummary, RunFigures, StageTime

MODE = "lite_train_lite_infer"


@pytest.mark.parametrize(
    ("path", "inside"),
    [
        ("/builds/r1/PaddleOCR/test_tipc/configs/m/c.txt", "configs/m/c.txt"),
        ("/scratch/job7/src/test_tipc/configs/m/c.txt", "configs/m/c.txt"),
        ("/x/PaddleSpeech/tests/test_tipc/configs/pwgan/c.txt", "configs/pwgan/c.txt"),
        ("/x/Det/test_tipc/configs/ppyoloe/ppyoloe+/c.txt", "configs/ppyoloe/ppyoloe+/c.txt"),
        ("/opt/tipc/test_configs/m/c.txt", "configs/m/c.txt"),
        ("/x/tests/fake_target/configs/m/c.txt", "configs/m/c.txt"),
        ("m/c.txt", "m/c.txt"),
        ("c.txt", "c.txt"),
    ],
    ids=[
        "ci-runner",
        "slurm-scratch",
        "nested-test-tipc",
        "deeper-than-two",
        "tipcs-own-copy",
        "configs-folder",
        "two-parts",
        "bare-name",
    ],
)
def test_the_path_inside_the_suite_names_no_checkout(path, inside):
    assert path_in_suite(path) == inside


def test_a_key_is_the_suite_and_the_path_inside_it_and_its_own_key(tmp_path):
    config = copy_fake_target(tmp_path / "target") / CPU_CONFIG
    key = config_key(str(config))
    assert key == f"{suite_of(str(config.parent))}:{path_in_suite(str(config))}"
    assert str(tmp_path) not in key and is_key(key) and not is_key(str(config))
    assert config_key(key) == key
    assert legacy_key(key) == short_name(str(config)) == "/".join(config.parts[-2:])


def test_a_moved_checkout_keeps_its_keys(tmp_path):
    first = copy_fake_target(tmp_path / "runner-1" / "build")
    moved = tmp_path / "runner-2" / "elsewhere"
    before = config_key(str(first / CPU_CONFIG))
    shutil.copytree(first, moved)
    assert config_key(str(moved / CPU_CONFIG)) == before


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("s:configs/m/c.txt", "s:configs/m/c.txt", True),
        ("s:configs/m/c.txt", "t:configs/m/c.txt", False),
        ("s:configs/m/c.txt", "/old/checkout/test_tipc/configs/m/c.txt", True),
        ("s:configs/m/c.txt", "m/c.txt", True),
        ("s:configs/m/c.txt", "s:configs/n/c.txt", False),
    ],
    ids=["same-key", "another-suite", "an-older-summarys-path", "an-older-stores-key", "another-config"],
)
def test_keys_match_each_other_and_what_older_files_named(one, other, same):
    assert same_config(one, other) is same


def schema_2_store(path, config: str) -> None:
    """A store as the tipc before suite keys left it: the same tables, configs by their last two parts."""
    old = legacy_key(config)
    history = History(path)
    history.record_run(
        "m", MODE, [RunFigures("20261201T013000Z-a", old, {("c::train", 0, "ips"): 10.0})],
        [StageTime(old, "c::train", 30.0, None, 1.0)], [ReportSummary("20261201T013000Z-a", old, "{}")],
    )  # fmt: skip
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")


def test_a_store_keyed_the_older_way_goes_on_under_the_new_keys(tmp_path):
    key = "s:configs/m/c.txt"
    path = tmp_path / "h.sqlite"
    schema_2_store(path, key)
    history = History(path)
    assert [e.config for e in history.series("m", MODE)] == ["m/c.txt"]  # read: migrated, not yet adopted
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (str(SCHEMA),)
    history.record_run(
        "m", MODE, [RunFigures("20261202T013000Z-b", key, {("c::train", 0, "ips"): 11.0})],
        [StageTime(key, "c::train", 31.0, None, 2.0)], [ReportSummary("20261202T013000Z-b", key, "{}")],
    )  # fmt: skip
    series = history.series("m", MODE)
    assert [(e.run, e.config, e.figures) for e in series] == [
        ("20261201T013000Z-a", key, {("c::train", 0, "ips"): 10.0}),
        ("20261202T013000Z-b", key, {("c::train", 0, "ips"): 11.0}),
    ]
    assert {r.config for r in history.reports("m", MODE)} == {key}
    assert set(history.measured(MODE)) == {(key, "c::train")}


def test_a_night_judged_without_writing_reads_the_older_rows_under_the_new_key(tmp_path):
    """``tipc merge`` and one shard's report judge a night without recording it: on the first night after
    the upgrade they see the history the recording report will adopt."""
    key = "s:configs/m/c.txt"
    path = tmp_path / "h.sqlite"
    schema_2_store(path, key)
    tonight = RunFigures("20261202T013000Z-b", key, {("c::train", 0, "ips"): 11.0})
    seen = record_run(path, tmp_path / "trends.jsonl", "m", MODE, [tonight], [], 30, pytest.fail, write=False)
    assert [(e.run, e.config) for e in seen] == [("20261201T013000Z-a", key), ("20261202T013000Z-b", key)]
    assert [e.config for e in History(path).series("m", MODE)] == ["m/c.txt"]  # nothing written
