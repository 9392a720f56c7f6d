from __future__ import annotations

import pytest

from tests.support.fake_checkout import CONFIG_REL, make_checkout
from tipc.config import load_config
from tipc.config.model import Field
from tipc.errors import ConfigError
from tipc.prepare.sizes import Sizes
from tipc.prepare.targets import ImageDir, MissingModel, RecDataset, derive_seed, plan_prepare, yml_of_script

LITE = Sizes(train=64, eval=32, infer=8)


@pytest.mark.parametrize(
    ("value", "yml"),
    [
        ("tools/train.py -c configs/rec/a.yml -o Global.x=1", "configs/rec/a.yml"),
        ("tools/train.py --config 'dir with space/a.yml'", "dir with space/a.yml"),
        ("tools/train.py -o A=1", None),
        ("null", None),
    ],
    ids=["short-flag", "long-flag-quoted", "no-flag", "null"],
)
def test_yml_of_script(value, yml):
    assert yml_of_script(Field("norm_train", value, 3), "c.txt") == yml


def test_unbalanced_quote_names_the_line():
    with pytest.raises(ConfigError) as info:
        yml_of_script(Field("norm_train", "tools/train.py -c 'a.yml", 16), "c.txt")
    assert (info.value.path, info.value.line) == ("c.txt", 16)


def test_seeds_differ_per_data_set():
    assert len({derive_seed(0, "train", "a"), derive_seed(0, "eval", "a"), derive_seed(1, "train", "a")}) == 3


def test_lite_plan_follows_the_paddleocr_layout(checkout):
    job = plan_prepare(load_config(checkout / CONFIG_REL), checkout, "lite_train_lite_infer", LITE, 0)
    train, evaluation, images = job.targets
    data_dir = checkout / "train_data/ic15_data"
    assert isinstance(train, RecDataset) and isinstance(evaluation, RecDataset) and isinstance(images, ImageDir)
    assert (train.role, train.data_dir, train.label_file, train.count) == (
        "train",
        data_dir,
        data_dir / "rec_gt_train.txt",
        64,
    )
    assert (evaluation.role, evaluation.data_dir, evaluation.label_file, evaluation.count) == (
        "eval",
        data_dir,
        data_dir / "rec_gt_test.txt",
        32,
    )
    assert (images.dir, images.count) == (checkout / "inference/rec_inference", 8)
    # The fake dict holds a, b, c, Z, 7, 8 among CJK entries; the yml asks for height 48.
    assert (train.style.charset, train.style.image_height, train.style.max_len) == ("78abcZ", 48, 8)
    assert job.missing_models == ()


def test_short_max_text_length_caps_the_text(tmp_path):
    config = make_checkout(tmp_path, max_text_length=2)
    job = plan_prepare(load_config(config), tmp_path, "lite_train_lite_infer", LITE, 0)
    assert {(t.style.min_len, t.style.max_len) for t in job.targets} == {(2, 2)}


def test_whole_infer_makes_images_only_and_names_the_missing_model(checkout):
    job = plan_prepare(load_config(checkout / CONFIG_REL), checkout, "whole_infer", Sizes(0, 0, 32), 0)
    assert [(type(t), t.count) for t in job.targets] == [(ImageDir, 32)]
    assert job.missing_models == (MissingModel("./inference/fake_rec_infer", 37, False),)


def test_whole_infer_with_the_model_present_misses_nothing(checkout):
    (checkout / "inference/fake_rec_infer").mkdir(parents=True)
    job = plan_prepare(load_config(checkout / CONFIG_REL), checkout, "whole_infer", Sizes(0, 0, 32), 0)
    assert job.missing_models == ()


def test_detection_yml_is_refused_clearly(tmp_path):
    config = make_checkout(tmp_path, model_type="det")
    with pytest.raises(ConfigError) as info:
        plan_prepare(load_config(config), tmp_path, "lite_train_lite_infer", LITE, 0)
    assert "prepare: detection datasets are not supported offline yet" in str(info.value)
    assert info.value.path.endswith("fake_rec.yml") and info.value.line == 8


def test_missing_yml_names_the_trainer_line(checkout):
    (checkout / "test_tipc/configs/fake_rec/fake_rec.yml").unlink()
    with pytest.raises(ConfigError) as info:
        plan_prepare(load_config(checkout / CONFIG_REL), checkout, "lite_train_lite_infer", LITE, 0)
    assert info.value.line == 16
    assert "training yml 'test_tipc/configs/fake_rec/fake_rec.yml' not found" in str(info.value)


def test_zero_counts_make_no_data_set(checkout):
    job = plan_prepare(load_config(checkout / CONFIG_REL), checkout, "lite_train_lite_infer", Sizes(0, 0, 0), 0)
    assert job.targets == ()
