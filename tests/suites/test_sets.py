"""``--set KEY=VALUE`` as a config is read (``tipc.suites.sets``): the changed lines, what the plan then runs, and
the errors for a bad word or a key the config does not have."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.suites.test_front import clas_checkout
from tipc.errors import ConfigError, SettingsError
from tipc.plan.model import PlanOptions, StageKind
from tipc.suites import front
from tipc.suites.sets import parse_sets

REPO = Path(__file__).resolve().parents[2]
TINYREC = REPO / "test_configs" / "tinyrec" / "train_linux_cpu_normal_normal_infer_python_linux_cpu.txt"


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ((), ()),
        (("pretrain_weights=null",), (("pretrain_weights", "null"),)),
        (("Global.epoch_num=lite_train_lite_infer=1",), (("Global.epoch_num", "lite_train_lite_infer=1"),)),
        (("a=1", "b=", "a=2"), (("a", "2"), ("b", ""))),  # a later value of a key wins
    ],
    ids=["none", "plain", "value-with-equals", "later-wins"],
)
def test_set_words_are_key_value_pairs(words: tuple[str, ...], expected: tuple[tuple[str, str], ...]) -> None:
    assert parse_sets(words) == expected


@pytest.mark.parametrize("word", ["pretrain_weights", "=null", " =1", "a=b\nc"])
def test_a_word_that_is_no_key_value_pair_is_a_settings_error(word: str) -> None:
    with pytest.raises(SettingsError, match=r"--set .*: expected KEY=VALUE"):
        parse_sets((word,))


def plan(config: Path, repo: Path, *sets: str, mode: str = "lite_train_lite_infer"):
    options = PlanOptions(mode, repo=str(repo), python="py", sets=parse_sets(sets))  # type: ignore[arg-type]
    return front.plan_path(config, options)


def test_a_suite_line_is_set_by_its_last_word_and_every_line_of_the_key_changes(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    before = plan(config, tmp_path)
    after = plan(config, tmp_path, "DataLoader.Train.sampler.batch_size=4", "Global.pretrained_model=./pretrained/x")
    train_before, train_after = (next(s for s in p.stages() if s.kind is StageKind.TRAIN) for p in (before, after))
    batch = "DataLoader.Train.sampler.batch_size"
    assert f"{batch}=8" in train_before.argv and f"{batch}=4" in train_after.argv
    assert "Global.pretrained_model=./pretrained/x" in train_after.argv
    assert [n for n in after.notes if n.startswith("--set")] == [
        "--set DataLoader.Train.sampler.batch_size: line 9 reads '4' (the config says '8')",
        "--set Global.pretrained_model: line 10 reads './pretrained/x' (the config says 'null')",
        "--set Global.pretrained_model: line 29 reads './pretrained/x' (the config says '')",
    ]
    assert "batch_size:8\n" in config.read_text()  # the suite's file is not touched


def test_a_paddleocr_line_is_set_and_read_again_with_its_checks(tmp_path: Path) -> None:
    found = plan(TINYREC, tmp_path, "Global.epoch_num=7")
    train = next(s for s in found.stages() if s.kind is StageKind.TRAIN)
    assert "Global.epoch_num=7" in train.argv
    with pytest.raises(ConfigError) as error:
        plan(TINYREC, tmp_path, "gpu_list=0;x")
    assert (error.value.path, error.value.line) == (str(TINYREC), 4)


def test_a_set_value_gets_the_dialects_checks(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    with pytest.raises(ConfigError) as error:
        plan(config, tmp_path, "gpu_list=0,1,2,3,4,5,6,7,8")
    assert (error.value.path, error.value.line) == (str(config), 4)
    assert "gpu_list entry '0,1,2,3,4,5,6,7,8' is over 15 characters" in error.value.message


def test_a_key_no_line_has_names_the_config_and_its_nearest_keys(tmp_path: Path) -> None:
    config = clas_checkout(tmp_path)
    with pytest.raises(ConfigError) as error:
        plan(config, tmp_path, "Global.epoch=5")
    assert error.value.path == str(config)
    assert error.value.message.startswith("--set Global.epoch: no line of this config has that key")
    assert "nearest: Global.epochs" in error.value.message
