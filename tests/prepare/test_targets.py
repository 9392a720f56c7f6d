from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fake_checkout import (
    CLS_YML,
    CONFIG_REL,
    DET_DIR,
    DET_YML,
    REC_YML,
    YML_REL,
    checkout_plan,
    make_checkout,
)
from tipc.config.model import Field
from tipc.dialects.paddleocr.prepare.styles import ClsStyle, DetStyle, TextStyle
from tipc.dialects.paddleocr.prepare.targets import (
    ImageDir,
    LabelledSet,
    MissingModel,
    derive_seed,
    plan_prepare,
    yml_of_script,
)
from tipc.errors import ConfigError
from tipc.prepare.sizes import Sizes

LITE = Sizes(train=64, eval=32, infer=8)
MODE = "lite_train_lite_infer"
# PP-OCRv4_mobile_rec's yml reads train_list.txt; its config's command reads ic15_data.
V4_YML = (
    REC_YML.replace("data_dir: ./train_data/ic15_data/", "data_dir: ./train_data/")
    .replace("data_dir: ./train_data/ic15_data", "data_dir: ./train_data/")
    .replace("./train_data/ic15_data/rec_gt_train.txt", "./train_data/train_list.txt")
    .replace("./train_data/ic15_data/rec_gt_test.txt", "./train_data/val_list.txt")
)
V4_OVERRIDES = (
    "Train.dataset.data_dir=./train_data/ic15_data Train.dataset.label_file_list=[./train_data/ic15_data/rec_gt_train.txt] "
    "Eval.dataset.data_dir=./train_data/ic15_data Eval.dataset.label_file_list=[./train_data/ic15_data/rec_gt_test.txt]"
)
IC15 = "train_data/ic15_data"


def _job(root: Path, mode: str = MODE, sizes: Sizes = LITE, **checkout):
    config, plan = checkout_plan(make_checkout(root, **checkout), root, mode)
    return plan_prepare(config, plan, sizes, 0)


def _sets(root: Path, job) -> list[tuple[str, str, str, int]]:
    return [
        (t.role, t.data_dir.relative_to(root).as_posix(), t.label_file.relative_to(root).as_posix(), t.count)
        for t in job.targets
        if isinstance(t, LabelledSet)
    ]


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
    config, plan = checkout_plan(checkout / CONFIG_REL, checkout, MODE)
    job = plan_prepare(config, plan, LITE, 0)
    train, evaluation, images = job.targets
    assert _sets(checkout, job) == [
        ("train", IC15, f"{IC15}/rec_gt_train.txt", 64),
        ("eval", IC15, f"{IC15}/rec_gt_test.txt", 32),
    ]
    assert isinstance(images, ImageDir) and (images.dir, images.count) == (checkout / "inference/rec_inference", 8)
    # The fake dict holds a, b, c, Z, 7, 8 among CJK entries; the yml asks for height 48.
    assert train.style == evaluation.style == images.style == TextStyle("78abcZ", 48, 3, 8)
    assert job.missing_models == ()


@pytest.mark.parametrize(
    ("checkout", "sets"),
    [
        ({}, [("train", IC15, f"{IC15}/rec_gt_train.txt", 64), ("eval", IC15, f"{IC15}/rec_gt_test.txt", 32)]),
        (
            {"yml": V4_YML},
            [
                ("train", "train_data", "train_data/train_list.txt", 64),
                ("eval", "train_data", "train_data/val_list.txt", 32),
            ],
        ),
        (
            {"yml": V4_YML, "train_overrides": V4_OVERRIDES},
            [("train", IC15, f"{IC15}/rec_gt_train.txt", 64), ("eval", IC15, f"{IC15}/rec_gt_test.txt", 32)],
        ),
        (
            {"train_overrides": "Train.dataset.label_file_list=./train_data/ic15_data/one.txt"},
            [("train", IC15, f"{IC15}/one.txt", 64), ("eval", IC15, f"{IC15}/rec_gt_test.txt", 32)],
        ),
        (
            {"train_overrides": "Train.dataset.label_file_list=[./d/a.txt,./d/b.txt] Train.dataset.data_dir=./d"},
            [
                ("train", "d", "d/a.txt", 32),
                ("train", "d", "d/b.txt", 32),
                ("eval", IC15, f"{IC15}/rec_gt_test.txt", 32),
            ],
        ),
        (
            {"train_overrides": "Train.dataset.label_file_list=[./x.txt] Train.dataset.label_file_list=[./y.txt]"},
            [("train", IC15, "y.txt", 64), ("eval", IC15, f"{IC15}/rec_gt_test.txt", 32)],
        ),
        (
            {"train_overrides": "Eval=null"},
            [("train", IC15, f"{IC15}/rec_gt_train.txt", 64)],
        ),
        (
            {
                "eval_script": f"tools/eval.py -c {YML_REL} -o Eval.dataset.label_file_list=[./train_data/ic15_data/eval_only.txt]"
            },
            [
                ("train", IC15, f"{IC15}/rec_gt_train.txt", 64),
                ("eval", IC15, f"{IC15}/rec_gt_test.txt", 32),
                ("eval", IC15, f"{IC15}/eval_only.txt", 32),
            ],
        ),
    ],
    ids=[
        "yml-paths",
        "yml-paths-without-overrides",
        "pp-ocrv4-overrides-win",
        "label-list-as-a-string",
        "two-label-files-share-the-count",
        "later-word-wins",
        "no-eval-section",
        "eval-stage-reads-its-own-overrides",
    ],
)
def test_paths_come_from_the_commands_the_plan_runs(tmp_path, checkout, sets):
    assert _sets(tmp_path, _job(tmp_path, **checkout)) == sets


def test_short_max_text_length_caps_the_text(tmp_path):
    job = _job(tmp_path, max_text_length=2)
    assert {(t.style.min_len, t.style.max_len) for t in job.targets if isinstance(t.style, TextStyle)} == {(2, 2)}


def test_an_override_of_the_dict_changes_the_charset(tmp_path):
    (tmp_path / "digits.txt").write_text("1\n2\n", encoding="utf-8")
    job = _job(tmp_path, train_overrides="Global.character_dict_path=digits.txt")
    assert {t.style.charset for t in job.targets if isinstance(t, LabelledSet)} == {"12"}


def test_detection_data_at_the_icdar2015_paths(tmp_path):
    images = f"{DET_DIR}/ch4_test_images/"
    job = _job(tmp_path, yml=DET_YML, infer_images=images)
    det = DET_DIR.removeprefix("./")
    assert _sets(tmp_path, job) == [
        ("train", det, f"{det}/train_icdar2015_label.txt", 64),
        ("eval", det, f"{det}/test_icdar2015_label.txt", 32),
    ]
    assert {t.style for t in job.targets} == {DetStyle("0123456789abcdefghijklmnopqrstuvwxyz", 3, 8)}
    assert job.targets[-1].dir == tmp_path / images


def test_direction_classifier_data_carries_its_labels(tmp_path):
    job = _job(tmp_path, yml=CLS_YML)
    assert _sets(tmp_path, job) == [
        ("train", "train_data/cls", "train_data/cls/train.txt", 64),
        ("eval", "train_data/cls", "train_data/cls/test.txt", 32),
    ]
    assert {t.style for t in job.targets} == {
        ClsStyle(TextStyle("0123456789abcdefghijklmnopqrstuvwxyz", 48, 3, 8), ("0", "180"))
    }


def test_whole_infer_makes_images_only_and_names_the_missing_model(checkout):
    config, plan = checkout_plan(checkout / CONFIG_REL, checkout, "whole_infer")
    job = plan_prepare(config, plan, Sizes(0, 0, 32), 0)
    assert [(type(t), t.count) for t in job.targets] == [(ImageDir, 32)]
    assert job.missing_models == (MissingModel("./inference/fake_rec_infer", 37, False),)


def test_whole_infer_of_a_detector_makes_scenes(tmp_path):
    job = _job(
        tmp_path, "whole_infer", Sizes(0, 0, 4), yml=DET_YML, infer_images="./inference/ch_det_data_50/all-sum-510/"
    )
    assert [(t.dir, t.count, type(t.style)) for t in job.targets] == [
        (tmp_path / "inference/ch_det_data_50/all-sum-510", 4, DetStyle)
    ]


def test_whole_infer_with_the_model_present_misses_nothing(checkout):
    (checkout / "inference/fake_rec_infer").mkdir(parents=True)
    config, plan = checkout_plan(checkout / CONFIG_REL, checkout, "whole_infer")
    assert plan_prepare(config, plan, Sizes(0, 0, 32), 0).missing_models == ()


def test_other_families_are_refused_with_the_paths_and_the_online_route(tmp_path):
    table = REC_YML.replace("name: SimpleDataSet", "name: PubTabDataSet")
    with pytest.raises(ConfigError) as info:
        _job(tmp_path, yml=table, model_type="table")
    assert (info.value.path, info.value.line) == (str(tmp_path / YML_REL), 8)
    message = info.value.message
    assert message.startswith(
        "prepare: model_type 'table' (dataset PubTabDataSet): tipc makes offline data for rec, det"
    )
    assert "Train.dataset data_dir ./train_data/ic15_data/ with ./train_data/ic15_data/rec_gt_train.txt" in message
    assert "images ./inference/rec_inference" in message
    assert f"bash test_tipc/prepare.sh {CONFIG_REL} lite_train_lite_infer (in {tmp_path})" in message


def test_a_refusal_caused_by_an_override_names_the_config_line(tmp_path):
    with pytest.raises(ConfigError) as info:
        _job(tmp_path, train_overrides="Architecture.model_type=e2e")
    assert (info.value.path, info.value.line) == (str(tmp_path / CONFIG_REL), 16)
    assert "model_type 'e2e'" in info.value.message


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ("Train.dataset.label_file_list=[unclosed", "is not YAML"),
        ("Train.dataset.label_file_list=7", "label_file_list: expected a non-empty list of paths, found 7"),
    ],
    ids=["not-yaml", "not-a-list"],
)
def test_bad_overrides_name_the_config_line(tmp_path, overrides, message):
    with pytest.raises(ConfigError) as info:
        _job(tmp_path, train_overrides=overrides)
    assert (info.value.path, info.value.line) == (str(tmp_path / CONFIG_REL), 16)
    assert message in info.value.message


def test_one_label_file_under_two_data_dirs_is_refused(tmp_path):
    with pytest.raises(ConfigError) as info:
        _job(tmp_path, eval_script=f"tools/eval.py -c {YML_REL} -o Eval.dataset.data_dir=./elsewhere")
    assert (info.value.path, info.value.line) == (str(tmp_path / CONFIG_REL), 24)
    assert "expected one data_dir per label file" in info.value.message


def test_a_single_image_file_is_refused(tmp_path):
    with pytest.raises(ConfigError) as info:
        _job(tmp_path, infer_images="./doc/imgs/one.jpg")
    assert info.value.line == 12 and "is a single file" in info.value.message


def test_missing_yml_names_the_trainer_line(checkout):
    (checkout / YML_REL).unlink()
    config, plan = checkout_plan(checkout / CONFIG_REL, checkout, MODE)
    with pytest.raises(ConfigError) as info:
        plan_prepare(config, plan, LITE, 0)
    assert info.value.line == 16
    assert f"training yml '{YML_REL}' not found" in str(info.value)


def test_zero_counts_make_no_data_set(checkout):
    config, plan = checkout_plan(checkout / CONFIG_REL, checkout, MODE)
    assert plan_prepare(config, plan, Sizes(0, 0, 0), 0).targets == ()
