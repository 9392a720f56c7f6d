from __future__ import annotations

import pytest

from tipc.dialects.paddleocr.prepare.trainyml import DatasetSpec, height_from_shape, read_train_yml
from tipc.errors import ConfigError


def _yml(tmp_path, text):
    path = tmp_path / "model.yml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("shape", "height"),
    [
        ([3, 48, 320], 48),
        ([1, 32, 100], 32),
        ([48, 320, 3], 48),
        ([64, 256], 64),
        ([3, -1, -1], None),
        ("3,48,320", None),
        ([3, 48], 3),
        ([2, 2, 2], None),
    ],
    ids=["chw", "chw-grey", "hwc", "hw", "dynamic", "string", "two-ints-are-hw", "no-channel-axis"],
)
def test_height_from_shape(shape, height):
    assert height_from_shape(shape) == height


def test_reads_the_data_keys(tmp_path):
    path = _yml(
        tmp_path,
        """\
Global:
  character_dict_path: ppocr/utils/en_dict.txt
  max_text_length: &len 25
Architecture: {model_type: rec}
Train:
  dataset:
    data_dir: ./train_data/
    label_file_list: [./train_data/a.txt, ./train_data/b.txt]
    transforms:
    - DecodeImage: {img_mode: BGR}
    - RecConAug: {image_shape: [40, 320, 3]}
    - RecResizeImg: {image_shape: [3, 48, 320]}
Eval:
  dataset: {data_dir: ./val, label_file_list: ./val/gt.txt}
""",
    )
    yml = read_train_yml(path)
    assert yml.train == DatasetSpec("./train_data/", ("./train_data/a.txt", "./train_data/b.txt"))
    assert yml.eval == DatasetSpec("./val", ("./val/gt.txt",))
    assert (yml.model_type, yml.dict_path, yml.max_text_length, yml.image_height) == (
        "rec",
        "ppocr/utils/en_dict.txt",
        25,
        48,
    )


@pytest.mark.parametrize(
    ("text", "height"),
    [
        ("Global: {d2s_train_image_shape: [3, 40, -1]}\n", 40),
        ("Global: {}\n", 32),
        (
            "Global: {d2s_train_image_shape: [3, 40, -1]}\n"
            "Train: {dataset: {data_dir: d, label_file_list: [l],\n"
            "  transforms: [{SVTRRecResizeImg: {image_shape: [3, 64, 256]}}]}}\n",
            64,
        ),
    ],
    ids=["d2s-shape", "default", "resize-transform-wins"],
)
def test_image_height_sources(tmp_path, text, height):
    assert read_train_yml(_yml(tmp_path, text)).image_height == height


@pytest.mark.parametrize(
    ("text", "model_type"),
    [
        ("Architecture: {model_type: det}\n", "det"),
        (
            "Train: {dataset: {data_dir: d, label_file_list: [l], transforms: [DecodeImage: {}, DetLabelEncode: null]}}\n",
            "det",
        ),
        ("Global: {}\n", "rec"),
    ],
    ids=["declared", "det-transform", "undeclared-is-rec"],
)
def test_model_type(tmp_path, text, model_type):
    assert read_train_yml(_yml(tmp_path, text)).model_type == model_type


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("Train:\n  dataset:\n    data_dir: d\n    label_file_list: []\n", 4, "label_file_list: expected a non-empty"),
        ("Train:\n  dataset:\n    label_file_list: [a]\n", 2, "data_dir: expected a directory"),
        ("Global:\n  max_text_length: many\n", 2, "max_text_length: expected a positive integer"),
        ("Global: [unclosed\n", 2, "not valid YAML"),
        ("- a list\n", 0, "expected a mapping at the top level"),
    ],
    ids=["empty-label-list", "no-data-dir", "bad-max-len", "broken-yaml", "not-a-mapping"],
)
def test_bad_yml_names_file_and_line(tmp_path, text, line, message):
    path = _yml(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        read_train_yml(path)
    assert (info.value.path, info.value.line) == (str(path), line)
    assert message in info.value.message


@pytest.mark.parametrize(
    ("text", "train", "label_list", "transforms"),
    [
        (
            "Train: {dataset: {name: SimpleDataSet, data_dir: d, label_file_list: [l],\n"
            "  transforms: [DecodeImage: {}, DetLabelEncode: null]}}\n",
            DatasetSpec("d", ("l",), "SimpleDataSet"),
            (),
            ("DecodeImage", "DetLabelEncode"),
        ),
        ("Train: {dataset: {name: LMDBDataSetSR, data_dir: d}}\n", DatasetSpec("d", (), "LMDBDataSetSR"), (), ()),
        (
            "Global: {label_list: ['0', 180]}\nTrain: {dataset: {data_dir: d, label_file_list: [l]}}\n",
            DatasetSpec("d", ("l",)),
            ("0", "180"),
            (),
        ),
    ],
    ids=["named-with-transforms", "lmdb-without-label-files", "label-list"],
)
def test_what_tells_the_family(tmp_path, text, train, label_list, transforms):
    yml = read_train_yml(_yml(tmp_path, text))
    assert (yml.train, yml.label_list, yml.transforms) == (train, label_list, transforms)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Train: {dataset: {data_dir: d, label_file_list: }}\n", "label_file_list: expected a non-empty list"),
        ("Global: {label_list: []}\n", "label_list: expected a non-empty list of labels"),
        ("Global: {label_list: 0}\n", "label_list: expected a non-empty list of labels"),
    ],
    ids=["empty-label-file-list", "empty-label-list", "scalar-label-list"],
)
def test_bad_family_keys_are_named(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message):
        read_train_yml(_yml(tmp_path, text))
