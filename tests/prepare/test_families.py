from __future__ import annotations

from pathlib import Path

import pytest

from tipc.dialects.paddleocr.prepare.families import Family, Unsupported, classify
from tipc.dialects.paddleocr.prepare.trainyml import DatasetSpec, TrainYml


def _yml(model_type="rec", name="SimpleDataSet", transforms=(), labels=("a.txt",), label_list=()):
    spec = DatasetSpec("d", labels, name)
    return TrainYml(Path("m.yml"), model_type, spec, spec, None, None, 32, transforms=transforms, label_list=label_list)


@pytest.mark.parametrize(
    ("yml", "expected"),
    [
        (_yml(), Family.REC),
        (_yml(name="MultiScaleDataSet"), Family.REC),
        (_yml(name=""), Family.REC),
        (_yml("det", transforms=("DecodeImage", "DetLabelEncode")), Family.DET),
        (_yml("cls", transforms=("ClsLabelEncode",), label_list=("0", "180")), Family.CLS),
        (_yml("cls", transforms=("ClsLabelEncode",), label_list=("0", "90", "180", "270")), Family.CLS),
        (
            _yml(name="LMDBDataSet"),
            Unsupported("rec data set 'LMDBDataSet' (expected SimpleDataSet or MultiScaleDataSet)"),
        ),
        (_yml(labels=()), Unsupported("rec data set without label_file_list")),
        (
            _yml("det", transforms=("CTLabelEncode",)),
            Unsupported("det labels read by DetLabelEncode only (found CTLabelEncode)"),
        ),
        (_yml("det"), Unsupported("det labels read by DetLabelEncode only (found none)")),
        (
            _yml("cls", transforms=("ClsLabelEncode",), label_list=("0", "45")),
            Unsupported("cls labels ['0', '45'] (expected angles that are multiples of 90)"),
        ),
        (_yml("table", name="PubTabDataSet"), Unsupported("model_type 'table' (dataset PubTabDataSet)")),
        (_yml("kie"), Unsupported("model_type 'kie' (dataset SimpleDataSet)")),
        (_yml("sr", name=""), Unsupported("model_type 'sr'")),
    ],
    ids=[
        "rec",
        "rec-multiscale",
        "rec-unnamed",
        "det",
        "cls",
        "cls-four-angles",
        "rec-lmdb",
        "rec-no-label-files",
        "det-total-text",
        "det-no-encoder",
        "cls-odd-angle",
        "table",
        "kie",
        "sr",
    ],
)
def test_classify(yml, expected):
    assert classify(yml) == expected
