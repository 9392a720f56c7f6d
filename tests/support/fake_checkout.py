"""A fake PaddleOCR checkout: only the files and yml keys ``tipc prepare`` reads.

``make_checkout`` writes a recognition model by default; ``yml=DET_YML`` a detection one
(ICDAR2015 paths, as det_mv3_db.yml), ``yml=CLS_YML`` a direction classifier.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.config_text import config_text
from tipc.config.model import TipcConfig
from tipc.config.modes import parse_mode
from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import Plan, PlanOptions

CONFIG_REL = "test_tipc/configs/fake_rec/train_infer_python.txt"
YML_REL = "test_tipc/configs/fake_rec/fake_rec.yml"
DICT_REL = "ppocr/utils/ppocr_keys_v1.txt"
# A few CJK entries (no glyph in the bundled font) around the Latin ones.
DICT_ENTRIES = ("中", "文", "a", "b", "c", "Z", "7", "8", " ", "字", "!")

REC_YML = """\
Global:
  use_gpu: false
  epoch_num: 2
  character_dict_path: {dict_path}
  max_text_length: &max_text_length {max_text_length}
  d2s_train_image_shape: [3, 40, -1]
Architecture:
  model_type: {model_type}
  algorithm: CTC
Train:
  dataset:
    name: SimpleDataSet
    data_dir: ./train_data/ic15_data/
    label_file_list:
    - ./train_data/ic15_data/rec_gt_train.txt
    transforms:
    - DecodeImage:
        img_mode: BGR
    - CTCLabelEncode:
    - RecResizeImg:
        image_shape: [3, 48, 320]
Eval:
  dataset:
    name: SimpleDataSet
    data_dir: ./train_data/ic15_data
    label_file_list:
    - ./train_data/ic15_data/rec_gt_test.txt
"""


DET_DIR = "./train_data/icdar2015/text_localization"
DET_YML = f"""\
Global:
  use_gpu: false
  pretrained_model: ./pretrain_models/MobileNetV3_large_x0_5_pretrained
Architecture:
  model_type: det
  algorithm: DB
Train:
  dataset:
    name: SimpleDataSet
    data_dir: {DET_DIR}/
    label_file_list:
    - {DET_DIR}/train_icdar2015_label.txt
    transforms:
    - DecodeImage:
        img_mode: BGR
    - DetLabelEncode:
    - EastRandomCropData:
        size: [640, 640]
Eval:
  dataset:
    name: SimpleDataSet
    data_dir: {DET_DIR}/
    label_file_list:
    - {DET_DIR}/test_icdar2015_label.txt
    transforms:
    - DecodeImage:
        img_mode: BGR
    - DetLabelEncode:
    - DetResizeForTest:
        image_shape: [736, 1280]
"""

CLS_YML = """\
Global:
  label_list: ['0', '180']
Architecture:
  model_type: cls
Train:
  dataset:
    name: SimpleDataSet
    data_dir: ./train_data/cls
    label_file_list: [./train_data/cls/train.txt]
    transforms:
    - DecodeImage:
        img_mode: BGR
    - ClsLabelEncode:
    - ClsResizeImg:
        image_shape: [3, 48, 192]
Eval:
  dataset:
    name: SimpleDataSet
    data_dir: ./train_data/cls
    label_file_list: [./train_data/cls/test.txt]
"""


def make_checkout(
    root: Path,
    *,
    yml: str = REC_YML,
    model_type: str = "rec",
    max_text_length: int = 25,
    dict_path: str = DICT_REL,
    infer_model: str = "./inference/fake_rec_infer",
    train_overrides: str = "",
    eval_script: str = "null",
    infer_images: str = "./inference/rec_inference",
) -> Path:
    """Write the fake checkout under ``root``; return the config path.

    ``train_overrides`` are appended to the trainer's ``-o`` words; ``eval_script`` is the eval
    line's script (null: no eval stage); ``infer_images`` the predictor's image dir in every mode.
    """
    (root / DICT_REL).parent.mkdir(parents=True, exist_ok=True)
    (root / DICT_REL).write_text("\n".join(DICT_ENTRIES) + "\n", encoding="utf-8")
    yml_path = root / YML_REL
    yml_path.parent.mkdir(parents=True, exist_ok=True)
    yml_path.write_text(
        yml.format(dict_path=dict_path, max_text_length=max_text_length, model_type=model_type), encoding="utf-8"
    )
    config = root / CONFIG_REL
    config.write_text(
        config_text(  # a CPU-only rec config whose train and export read the yml above
            model_name="model_name:fake_rec",
            gpu_list="gpu_list:-1",
            train_use_gpu="Global.use_gpu:False",
            epoch="Global.epoch_num:lite_train_lite_infer=1|whole_train_whole_infer=4",
            train_batch="Train.loader.batch_size_per_card:lite_train_lite_infer=8|whole_train_whole_infer=32",
            train_infer_img_dir=f"train_infer_img_dir:{infer_images}",
            norm_train=f"norm_train:tools/train.py -c {YML_REL} -o Global.print_batch_step=1 {train_overrides}".rstrip(),
            eval=f"eval:{eval_script}",
            image_dir=f"--image_dir:{infer_images}",
            to_static_slot="null:null",
            norm_export=f"norm_export:tools/export_model.py -c {YML_REL} -o",
            inference_dir="inference_dir:null",
            infer_model=f"infer_model:{infer_model}",
            inference="inference:tools/infer/predict_rec.py",
            infer_use_gpu="--use_gpu:False",
            cpu_threads="--cpu_threads:2",
            benchmark="--benchmark:False",
        ),
        encoding="utf-8",
    )
    return config


def checkout_plan(config: Path, repo: Path, mode: str) -> tuple[TipcConfig, Plan]:
    """The config and the plan ``tipc prepare`` reads it with (default options)."""
    loaded = load_config(config)
    return loaded, build_plan(loaded, PlanOptions(mode=parse_mode(mode, "--mode"), repo=str(repo)))
