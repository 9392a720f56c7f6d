"""``tipc prepare`` for a PaddleClas config: the class lists and images its stages read, made offline."""

from __future__ import annotations

from pathlib import Path

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
