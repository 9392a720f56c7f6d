import pytest

from tipc.config.model import Field
from tipc.errors import ConfigError
from tipc.plan.fragments import (
    DROPPED,
    GAP,
    Fragment,
    always_param,
    assemble,
    config_text,
    literal,
    set_param,
    set_path,
)

FIELD = Field("Global.epoch_num", "3", 7)


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("Global.epoch_num", "3", Fragment("Global.epoch_num=3", ("Global.epoch_num=3",))),
        ("null", "3", DROPPED),
        ("Global.epoch_num", "null", DROPPED),
        ("Global.epoch_num", " ", DROPPED),
        ("Global.epoch_num", "", DROPPED),
        ("Global.epoch_num", None, DROPPED),
        ("--rec_image_shape", '"3,48,320"', Fragment('--rec_image_shape="3,48,320"', ("--rec_image_shape=3,48,320",))),
        ("-o", "a=1 b=2", Fragment("-o=a=1 b=2", ("-o=a=1", "b=2"))),
    ],
    ids=[
        "emitted",
        "null-key",
        "null-value",
        "space-value",
        "empty-value",
        "missing-partner",
        "quotes-resolved",
        "shell-split",
    ],
)
def test_set_param_follows_func_set_params(key, value, expected):
    assert set_param(key, value, "c.txt", FIELD) == expected


def test_set_path_keeps_one_token_even_with_spaces():
    assert set_path("Global.save_model_dir", "./out dir/S") == Fragment(
        "Global.save_model_dir=./out dir/S", ("Global.save_model_dir=./out dir/S",)
    )


def test_always_param_emits_a_null_value():
    assert always_param("--use_gpu", "null", "c.txt", FIELD).argv == ("--use_gpu=null",)


def test_unbalanced_quote_names_the_line():
    with pytest.raises(ConfigError) as err:
        config_text('tools/train.py -o "x', "c.txt", Field("norm_train", 'tools/train.py -o "x', 16))
    assert str(err.value).startswith("c.txt:16: norm_train: cannot split")


@pytest.mark.parametrize(
    "fragments, log, text",
    [
        ((literal("py"), DROPPED, GAP, literal("a")), None, "py    a"),
        ((literal("py"), literal("a")), "L.log", "py a > L.log 2>&1 "),
    ],
    ids=["gaps-and-dropped", "redirect-tail"],
)
def test_assemble_keeps_the_bash_whitespace(fragments, log, text):
    command = assemble(fragments, log)
    assert command.text == text
    assert command.argv == tuple(t for f in fragments for t in f.argv)
