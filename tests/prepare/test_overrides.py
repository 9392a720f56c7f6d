from __future__ import annotations

from pathlib import Path

import pytest

from tipc.config.yamldoc import Origin, read_yaml
from tipc.dialects.paddleocr.prepare.overrides import parse_override, with_overrides
from tipc.dialects.paddleocr.prepare.trainyml import parse_train_yml
from tipc.errors import ConfigError

YML = """\
Global:
  max_text_length: 25
Train:
  dataset:
    name: SimpleDataSet
    data_dir: ./train_data/
    label_file_list: [./train_data/train_list.txt]
Eval:
  dataset:
    data_dir: ./train_data/
    label_file_list: [./train_data/val_list.txt]
"""
ORIGIN = Origin("c.txt", 16, "-o … of stage s::train")


@pytest.fixture
def doc(tmp_path: Path):
    path = tmp_path / "m.yml"
    path.write_text(YML, encoding="utf-8")
    return read_yaml(path)


def _over(doc, *words):
    return with_overrides(doc, [parse_override(word, ORIGIN) for word in words])


@pytest.mark.parametrize(
    ("words", "keys", "value"),
    [
        ((), ("Train", "dataset", "data_dir"), "./train_data/"),
        (
            ("Train.dataset.data_dir=./train_data/ic15_data",),
            ("Train", "dataset", "data_dir"),
            "./train_data/ic15_data",
        ),
        (
            ("Train.dataset.label_file_list=[./a.txt, ./b.txt]",),
            ("Train", "dataset", "label_file_list"),
            ["./a.txt", "./b.txt"],
        ),
        (("Global.max_text_length=null",), ("Global", "max_text_length"), None),
        (("Global.max_text_length=",), ("Global", "max_text_length"), None),
        (("Global.max_text_length=3", "Global.max_text_length=4"), ("Global", "max_text_length"), 4),
        (("Global={max_text_length: 7}",), ("Global", "max_text_length"), 7),
        (("Train.loader.shuffle=false",), ("Train", "loader", "shuffle"), False),
        (("Eval=null",), ("Eval",), None),
    ],
    ids=[
        "none",
        "dotted-sets-one-value",
        "yaml-list",
        "yaml-null",
        "empty-is-null",
        "later-wins",
        "plain-key-updates-the-section",
        "missing-mapping-is-made",
        "plain-key-replaces-a-section",
    ],
)
def test_values_as_the_tools_see_them(doc, words, keys, value):
    assert _over(doc, *words).get(*keys) == value


def test_the_yml_is_not_changed(doc):
    _over(doc, "Train.dataset.data_dir=./x")
    assert doc.get("Train", "dataset", "data_dir") == "./train_data/"


def test_a_bad_value_from_an_override_is_blamed_on_the_config_line(doc):
    with pytest.raises(ConfigError) as info:
        parse_train_yml(_over(doc, "Train.dataset.label_file_list=5"))
    assert (info.value.path, info.value.line) == ("c.txt", 16)
    assert "label_file_list: expected a non-empty list of paths, found 5" in info.value.message
    assert "from -o … of stage s::train" in info.value.message and str(doc.path) in info.value.message


def test_only_what_an_override_set_is_blamed_on_it(doc):
    over = _over(doc, "Train.dataset.data_dir=./x")
    assert over.where("Train", "dataset", "data_dir") == ("c.txt", 16)
    assert over.where("Eval", "dataset", "data_dir") == (str(doc.path), 10)


def test_replacing_a_section_forgets_the_origins_inside_it(doc):
    other = Origin("c.txt", 30, "-o … of stage s::eval")
    over = with_overrides(
        doc, [parse_override("Eval.dataset.data_dir=./x", ORIGIN), parse_override("Eval={dataset: {}}", other)]
    )
    assert over.where("Eval", "dataset", "data_dir") == ("c.txt", 30)


@pytest.mark.parametrize(
    ("word", "message"),
    [
        ("Train.dataset.label_file_list=[unclosed", "value '[unclosed' is not YAML"),
        ("Global.max_text_length.deeper=1", "Global.max_text_length in"),
    ],
    ids=["not-yaml", "through-a-scalar"],
)
def test_override_errors_name_the_config_line(doc, word, message):
    with pytest.raises(ConfigError) as info:
        _over(doc, word)
    assert (info.value.path, info.value.line) == ("c.txt", 16)
    assert message in info.value.message
