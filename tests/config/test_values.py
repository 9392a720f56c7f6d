from __future__ import annotations

import pytest

from tipc.config.model import Field, ModeValue
from tipc.dialects.paddleocr.config.values import mode_value, paired
from tipc.errors import ConfigError

PATH = "cfg.txt"
EPOCHS = "lite_train_lite_infer=3|whole_train_whole_infer=50"


@pytest.mark.parametrize(
    ("key", "value", "mode", "expected"),
    [
        ("Global.epoch_num", EPOCHS, "lite_train_lite_infer", ModeValue("3")),
        ("Global.epoch_num", EPOCHS, "whole_train_whole_infer", ModeValue("50")),
        ("Global.epoch_num", EPOCHS, "lite_train_whole_infer", ModeValue("3", "lite_train_lite_infer")),
        ("Global.epoch_num", EPOCHS, "whole_infer", ModeValue(None)),
        ("Global.epoch_num", EPOCHS + "|lite_train_whole_infer=7", "lite_train_whole_infer", ModeValue("7")),
        ("Global.epoch_num", "whole_train_whole_infer=50", "lite_train_whole_infer", ModeValue(None)),
        ("Global.epoch_num", "lite_train_lite_infer = 3 | whole_train_whole_infer=50", "lite_train_lite_infer", ModeValue("3")),
        ("Global.epoch_num", "benchmark_train=2|" + EPOCHS, "benchmark_train", ModeValue("2")),
        ("Global.epoch_num", "3", "lite_train_lite_infer", ModeValue("3")),
        ("Global.epoch_num", "3", "whole_train_whole_infer", ModeValue("3")),
        ("Global.epoch_num", "null", "lite_train_lite_infer", ModeValue(None)),
        ("Global.epoch_num", "", "lite_train_lite_infer", ModeValue(None)),
        ("null", EPOCHS, "lite_train_lite_infer", ModeValue(None)),
    ],
    ids=[
        "lite", "whole", "lite-whole-falls-back-to-lite", "mode-not-listed", "explicit-lite-whole",
        "no-fallback-partner", "spaces-around-items", "benchmark-item", "scalar-lite", "scalar-whole",
        "null", "empty", "null-key",
    ],
)  # fmt: skip
def test_mode_value(key: str, value: str, mode: str, expected: ModeValue) -> None:
    assert mode_value(Field(key, value, 7), mode, PATH) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("lite_train_lite_infer3|x", "malformed item 'lite_train_lite_infer3' in 'Global.epoch_num:lite_train_lite_infer3|x': expected mode=value"),
        ("3|5", "malformed item '3' in 'Global.epoch_num:3|5': expected mode=value"),
        ("lite_train_lite_infer=", "malformed item 'lite_train_lite_infer=' in 'Global.epoch_num:lite_train_lite_infer=': expected mode=value"),
        ("=3", "malformed item '=3' in 'Global.epoch_num:=3': expected mode=value"),
        ("lite_train_lite_infer=3||whole_train_whole_infer=5", "malformed item '' in 'Global.epoch_num:lite_train_lite_infer=3||whole_train_whole_infer=5': expected mode=value"),
        ("lite_train_lit_infer=3", "unknown mode 'lite_train_lit_infer' in 'Global.epoch_num:lite_train_lit_infer=3': expected one of lite_train_lite_infer, lite_train_whole_infer, whole_train_whole_infer, whole_infer, benchmark_train"),
        ("lite_train_lite_infer=3|lite_train_lite_infer=4", "mode 'lite_train_lite_infer' given twice in 'Global.epoch_num:lite_train_lite_infer=3|lite_train_lite_infer=4': expected each mode at most once"),
    ],
    ids=["no-equals", "bare-list", "empty-value", "empty-mode", "empty-item", "unknown-mode", "duplicate-mode"],
)  # fmt: skip
def test_mode_value_rejects_malformed_items(value: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        mode_value(Field("Global.epoch_num", value, 7), "lite_train_lite_infer", PATH)
    assert (caught.value.path, caught.value.line, caught.value.message) == (PATH, 7, message)


def test_mode_value_rejects_an_unknown_mode_argument() -> None:
    with pytest.raises(ValueError, match="unknown mode 'lite'"):
        mode_value(Field("Global.epoch_num", EPOCHS, 7), "lite", PATH)


@pytest.mark.parametrize(
    ("values", "index", "expected"),
    [(("a", "b"), 0, "a"), (("a", "b"), 1, "b"), (("a",), 1, None), ((), 0, None)],
    ids=["first", "second", "missing-partner", "empty-list"],
)
def test_paired(values: tuple[str, ...], index: int, expected: str | None) -> None:
    assert paired(values, index) == expected


def test_paired_rejects_a_negative_index() -> None:
    with pytest.raises(IndexError):
        paired(("a",), -1)
