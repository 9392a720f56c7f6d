"""``tipc prepare`` for a PaddleClas config: the class lists and images its stages read, made offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.suites.test_front import clas_checkout
from tipc.cli import main

YML = """\
Arch:
  name: ResNet18
  class_num: 1000
DataLoader:
  Train:
    dataset:
      name: ImageNetDataset
      image_root: ./dataset/ILSVRC2012/
      cls_label_path: ./dataset/ILSVRC2012/train_list.txt
  Eval:
    dataset:
      name: ImageNetDataset
      image_root: ./dataset/ILSVRC2012/
      cls_label_path: ./dataset/ILSVRC2012/val_list.txt
"""


def test_prepare_makes_the_lists_and_images_a_paddleclas_chain_reads(tmp_path: Path, monkeypatch, capsys) -> None:
    config = clas_checkout(tmp_path)
    config.write_text(
        config.read_text().replace("eval:null", "eval:tools/eval.py -c ppcls/configs/ImageNet/ResNet/ResNet18.yaml")
    )
    yml = tmp_path / "ppcls/configs/ImageNet/ResNet/ResNet18.yaml"
    yml.parent.mkdir(parents=True)
    yml.write_text(YML)
    monkeypatch.chdir(tmp_path)
    argv = [
        "prepare",
        "--config",
        str(config),
        "--mode",
        "lite_train_lite_infer",
        "--train-count",
        "6",
        "--eval-count",
        "3",
    ]
    assert main.main(argv) == 0
    train = (tmp_path / "dataset/ILSVRC2012/train_list.txt").read_text().splitlines()
    assert [line.split()[1] for line in train] == ["0", "1", "2", "3", "0", "1"]
    assert all((tmp_path / "dataset/ILSVRC2012" / line.split()[0]).is_file() for line in train)
    assert len((tmp_path / "dataset/ILSVRC2012/val_list.txt").read_text().splitlines()) == 3
    assert (tmp_path / "dataset/ILSVRC2012/val/ILSVRC2012_val_00000001.JPEG").is_file()  # read from deploy/
    capsys.readouterr()
    assert main.main(argv) == 0  # a second run keeps what is there
    assert "kept" in capsys.readouterr().out


SEG_CONFIG = (Path(__file__).parent / "test_front.py").read_text().split('CLAS_CONFIG = """\\\n')[1].split('"""')[0]


def seg_checkout(root: Path) -> Path:
    """A PaddleSeg-style checkout: a config whose yml takes its data sets from a _base_ file."""
    (root / "paddleseg").mkdir(parents=True)
    configs = root / "test_tipc" / "configs"
    (configs / "_base_").mkdir(parents=True)
    (configs / "_base_" / "cityscapes.yml").write_text(
        "train_dataset:\n  type: Cityscapes\n  dataset_root: test_tipc/data/cityscapes\n  mode: train\n"
        "val_dataset:\n  type: Dataset\n  dataset_root: test_tipc/data/pairs\n  val_path: test_tipc/data/pairs/val.txt\n"
    )
    (configs / "m").mkdir()
    (configs / "m" / "m.yml").write_text("_base_: '../_base_/cityscapes.yml'\nbatch_size: 2\n")
    text = SEG_CONFIG.replace("ResNet18", "m").replace(
        "norm_train:tools/train.py -c ppcls/configs/ImageNet/ResNet/m.yaml -o Global.seed=1234",
        "norm_train:tools/train.py --config test_tipc/configs/m/m.yml --do_eval",
    ).replace("-o Global.infer_imgs:../dataset/ILSVRC2012/val/ILSVRC2012_val_00000001.JPEG",
              "--image_path:./test_tipc/data/cityscapes/val.list").replace(
        "train_infer_img_dir:./dataset/ILSVRC2012/val", "train_infer_img_dir:./test_tipc/data/cityscapes/val.list")  # fmt: skip
    config = configs / "m" / "train_infer_python.txt"
    config.write_text(text)
    return config


def test_prepare_makes_the_image_label_pairs_a_paddleseg_chain_reads(tmp_path: Path, monkeypatch) -> None:
    config = seg_checkout(tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = ["prepare", "--config", str(config), "--mode", "lite_train_lite_infer", "--train-count", "3",
            "--eval-count", "2", "--infer-count", "2"]  # fmt: skip
    assert main.main(argv) == 0
    data = tmp_path / "test_tipc/data"
    assert len(list((data / "cityscapes/leftImg8bit/train/tipc").glob("*_leftImg8bit.png"))) == 3
    assert len(list((data / "cityscapes/gtFine/train/tipc").glob("*_gtFine_labelTrainIds.png"))) == 3
    pairs = (data / "pairs/val.txt").read_text().splitlines()
    assert len(pairs) == 2 and all((data / "pairs" / p).is_file() for line in pairs for p in line.split())
    listed = (data / "cityscapes/val.list").read_text().splitlines()
    assert len(listed) == 2 and all((data / "cityscapes" / name).is_file() for name in listed)


def det_checkout(tmp_path: Path, model_yml: str = "_BASE_: ['datasets/coco.yml']\n") -> Path:
    (tmp_path / "ppdet").mkdir()
    (tmp_path / "configs/datasets").mkdir(parents=True)
    (tmp_path / "configs/datasets/coco.yml").write_text(
        "metric: COCO\nnum_classes: 80\n"
        "TrainDataset:\n  !COCODataSet\n    image_dir: train2017\n    anno_path: annotations/train.json\n"
        "    dataset_dir: dataset/coco\n"
    )
    (tmp_path / "configs/m.yml").write_text(model_yml)
    config = tmp_path / "test_tipc/configs/m/m_train_infer_python.txt"
    config.parent.mkdir(parents=True)
    text = SEG_CONFIG.replace("norm_train:tools/train.py -c ppcls/configs/ImageNet/ResNet/ResNet18.yaml -o Global.seed=1234",
                              "norm_train:tools/train.py -c configs/m.yml -o").replace(
        "-o Global.infer_imgs:../dataset/ILSVRC2012/val/ILSVRC2012_val_00000001.JPEG", "--image_dir:./x").replace(
        "train_infer_img_dir:./dataset/ILSVRC2012/val", "train_infer_img_dir:./dataset/coco/test2017/")  # fmt: skip
    config.write_text(text)
    return config


def test_prepare_makes_the_coco_json_and_images_a_paddledetection_chain_reads(tmp_path: Path, monkeypatch) -> None:
    config = det_checkout(tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = ["prepare", "--config", str(config), "--mode", "lite_train_lite_infer", "--train-count", "4",
            "--infer-count", "2"]  # fmt: skip
    assert main.main(argv) == 0
    coco = json.loads((tmp_path / "dataset/coco/annotations/train.json").read_text())
    assert [a["image_id"] for a in coco["annotations"]] == [1, 2, 3, 4]
    # an 80-class model's eval maps each of its classes to a category: the json lists all 80
    assert [c["id"] for c in coco["categories"]] == list(range(1, 81))
    assert [a["category_id"] for a in coco["annotations"]] == [1, 2, 3, 1]
    assert all((tmp_path / "dataset/coco/train2017" / i["file_name"]).is_file() for i in coco["images"])
    assert len(list((tmp_path / "dataset/coco/test2017").glob("*.jpg"))) == 2


@pytest.mark.parametrize(
    ("model_yml", "categories", "used"),
    [
        ("_BASE_: ['datasets/coco.yml']\nnum_classes: 2\n", 2, [1, 2, 1, 2]),
        ("_BASE_: ['datasets/coco.yml']\nnum_classes: 1\n", 1, [1, 1, 1, 1]),
        ("_BASE_: ['datasets/coco.yml']\nnum_classes: 365\n", 365, [1, 2, 3, 1]),
    ],
    ids=["two-classes", "one-class", "objects365"],
)
def test_the_coco_categories_follow_the_models_num_classes(tmp_path, monkeypatch, model_yml, categories, used):
    config = det_checkout(tmp_path, model_yml)
    monkeypatch.chdir(tmp_path)
    assert main.main(["prepare", "--config", str(config), "--mode", "lite_train_lite_infer", "--train-count", "4"]) == 0
    coco = json.loads((tmp_path / "dataset/coco/annotations/train.json").read_text())
    assert (len(coco["categories"]), [a["category_id"] for a in coco["annotations"]]) == (categories, used)


@pytest.mark.parametrize("value", ["0", "-3", "many", "1e9", "true"])
def test_a_num_classes_tipc_cannot_make_data_for_is_an_error_naming_the_yml(tmp_path, monkeypatch, capsys, value):
    config = det_checkout(tmp_path, f"_BASE_: ['datasets/coco.yml']\nnum_classes: {value}\n")
    monkeypatch.chdir(tmp_path)
    assert main.main(["prepare", "--config", str(config), "--mode", "lite_train_lite_infer"]) == 2
    err = capsys.readouterr().err
    assert "configs/m.yml" in err and "num_classes" in err and "expected a whole number from 1 to 100000" in err


def test_paddleseg_labels_use_no_class_id_at_or_over_the_sets_num_classes(tmp_path, monkeypatch) -> None:
    from PIL import Image

    config = seg_checkout(tmp_path)
    yml = tmp_path / "test_tipc/configs/_base_/cityscapes.yml"
    yml.write_text(yml.read_text().replace("type: Cityscapes", "type: Cityscapes\n  num_classes: 2"))
    monkeypatch.chdir(tmp_path)
    assert main.main(["prepare", "--config", str(config), "--mode", "lite_train_lite_infer", "--train-count", "4"]) == 0
    labels = sorted((tmp_path / "test_tipc/data/cityscapes/gtFine/train/tipc").glob("*.png"))
    ids = {cls for path in labels for _, cls in Image.open(path).getcolors()}
    assert len(labels) == 4 and ids == {0, 1}
