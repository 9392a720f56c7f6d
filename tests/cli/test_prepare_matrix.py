"""``tipc prepare`` takes the same selection as the run: a directory, --tags; each config in turn."""

from __future__ import annotations

import pytest

from tests.support.fake_checkout import CONFIG_REL

EMPTY = "train_linux_dcu_normal_normal_infer_python_dcu.txt"


@pytest.fixture
def tipc(command):
    return command("prepare")


def test_a_directory_prepares_each_config_and_names_the_one_that_fails(checkout, tipc):
    folder = (checkout / CONFIG_REL).parent
    (folder / EMPTY).write_text("")
    code, out, err = tipc("--config", str(folder), "--mode", "lite_train_lite_infer", "--repo", str(checkout))
    assert code == 2
    headers = [line for line in out.splitlines() if line.startswith("prepare: train_")]
    assert headers == ["prepare: train_infer_python.txt", f"prepare: {EMPTY}"]  # named within the directory
    assert "train_data/ic15_data/rec_gt_train.txt" in out  # the good one was prepared all the same
    assert (
        err
        == f"tipc: error: {folder / EMPTY}: empty file: expected a TIPC config starting with the 'train_params' header\n"
    )


def test_tags_leave_a_config_out(checkout, tipc):
    folder = (checkout / CONFIG_REL).parent
    (folder / EMPTY).write_text("")
    code, out, _ = tipc(
        "--config", str(folder), "--tags", "linux_gpu", "--mode", "lite_train_lite_infer", "--repo", str(checkout)
    )
    assert code == 0 and "created" in out and "prepare: train_" not in out  # one config: no header
