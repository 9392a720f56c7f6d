"""The paddle2onnx format: positional lines as each suite's test_paddle2onnx.sh reads them."""

from __future__ import annotations

import pytest

from tipc.config import ConfigError
from tipc.config.modes import Mode
from tipc.dialects.paddleocr.config import Paddle2OnnxConfig, parse_any_config_text
from tipc.dialects.paddleocr.config.formats import check_mode, config_modes, is_paddle2onnx_file

HEADER = "===========================paddle2onnx_params==========================="
OCR = [
    HEADER, "model_name:PP-OCRv3_mobile_rec", "python:python3.7", "2onnx: paddle2onnx", "--det_model_dir:",
    "--model_filename:inference.pdmodel", "--params_filename:inference.pdiparams", "--det_save_file:",
    "--rec_model_dir:./inference/rec_infer/", "--rec_save_file:./inference/rec_onnx/model.onnx",
    "--opset_version:10", "--enable_onnx_checker:True", 'inference:tools/infer/predict_rec.py --rec_image_shape="3,48,320"',
    "--use_gpu:True|False", "--det_model_dir:", "--rec_model_dir:", "--image_dir:./inference/rec_inference/",
]  # fmt: skip
SEG = [
    HEADER, "model_name:pp_liteseg", "python:python3.7", "2onnx: paddle2onnx", "--model_dir:./m/",
    "--model_filename:model.pdmodel", "--params_filename:model.pdiparams", "--save_file:./m/model.onnx",
    "--opset_version:11", "--enable_onnx_checker:True", "inference:deploy/python/infer_onnx.py",
    "--onnx_file:./m/model.onnx", "--img_path:demo.png",
]  # fmt: skip
CLAS = [
    HEADER, "model_name:ResNet50", "python:python3.7", "2onnx: paddle2onnx", "--model_dir:./deploy/models/r/",
    "--model_filename:inference.pdmodel", "--params_filename:inference.pdiparams",
    "--save_file:./deploy/models/r/inference.onnx", "--opset_version:10", "--enable_onnx_checker:True",
    "inference_model_url:https://example.org/r.tar", "inference:./python/predict_cls.py", "Global.use_onnx:True",
    "Global.inference_model_dir:./models/r", "Global.use_gpu:False", "-c:configs/inference_cls.yaml",
]  # fmt: skip


def parse(lines: list[str]) -> Paddle2OnnxConfig:
    config = parse_any_config_text("\n".join(lines) + "\n", "p.txt")
    assert isinstance(config, Paddle2OnnxConfig)
    return config


@pytest.mark.parametrize(
    ("lines", "layout", "role", "raw", "line"),
    [
        (OCR, "PaddleOCR", "convert", " paddle2onnx", 4),  # the bash keeps the space after the colon
        (OCR, "PaddleOCR", "use_gpu", "True|False", 14),
        (SEG, "PaddleSeg", "model_key", "./m/model.onnx", 12),
        (CLAS, "PaddleClas", "inference_config", "configs/inference_cls.yaml", 16),
        (CLAS, "PaddleClas", "model_url", "https", 11),  # cut at its second colon, as func_parser_value does
    ],
    ids=["ocr-convert", "ocr-use-gpu", "seg-model-key", "clas-config", "clas-url-cut"],
)
def test_lines_are_read_by_position_as_the_suites_script_reads_them(lines, layout, role, raw, line):
    config = parse(lines)
    assert (config.layout, config[role].raw, config[role].line) == (layout, raw, line)


def test_a_value_cut_at_a_colon_is_noted_where_the_bash_passes_it_on():
    lines = [*OCR]
    lines[16] = "--image_dir:C:/images"
    assert parse(lines).notes == (
        "line 17 ('--image_dir', role image_dir): the bash reads the value up to its second ':' only, 'C'; "
        "tipc passes it as the bash does",
    )
    assert parse(CLAS).notes == ()  # the URL line is never read


def test_a_blank_line_takes_no_position_and_pushes_the_last_one_past_the_lines_the_script_reads():
    with pytest.raises(ConfigError) as caught:
        parse([*OCR[:5], "", *OCR[5:]])  # PaddleOCR's awk reads 17 physical lines
    assert caught.value.line == 17 and caught.value.message.endswith(
        "found 15; expected a line for role image_dir next"
    )


@pytest.mark.parametrize(
    ("lines", "line", "message"),
    [
        (OCR[:-2], 15, "truncated PaddleOCR paddle2onnx config: test_paddle2onnx.sh reads 16 lines after the header "
         "from the first 17 lines, found 14; expected a line for role rec_model_key next"),
        ([HEADER, "model_name:x", "python:py", "2onnx:paddle2onnx"], 1, "a 'paddle2onnx_params' section in none of the "
         "suites' layouts: expected (non-blank lines counted) PaddleOCR: '--det_model_dir' on line 5, '--rec_model_dir' "
         "on line 9; PaddleClas: 'inference_model_url' on line 11; PaddleDetection: 'norm_export' on line 8, "
         "'infer_mode' on line 16; PaddleSeg: 'inference' on line 11, '--onnx_file' on line 12"),
        ([OCR[0], "model_name:", *OCR[2:]], 2, "expected a value for 'model_name' (role model_name), found an empty value"),
    ],
    ids=["truncated", "no-layout", "empty-model-name"],
)  # fmt: skip
def test_bad_configs_name_the_line_and_what_was_expected(lines, line, message):
    with pytest.raises(ConfigError) as caught:
        parse(lines)
    assert (caught.value.path, caught.value.line, caught.value.message) == ("p.txt", line, message)


def test_a_paddle2onnx_config_runs_in_paddle2onnx_infer_only():
    config = parse(OCR)
    assert config_modes(config) == (Mode.PADDLE2ONNX_INFER,)
    assert check_mode(config, "paddle2onnx_infer") is Mode.PADDLE2ONNX_INFER
    with pytest.raises(ConfigError) as caught:
        check_mode(config, "whole_infer")
    assert caught.value.message == (
        "mode 'whole_infer': a paddle2onnx config runs only in paddle2onnx_infer (test_paddle2onnx.sh runs nothing "
        "in other modes): expected --mode paddle2onnx_infer"
    )


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        ("\n".join(OCR) + "\n", True),
        ("\ufeff\n  \n" + "\n".join(CLAS) + "\n", True),  # a BOM and blank lines before the header
        ("===train_params===\nmodel_name:m\n", False),
        ("model_name:m\n" + "\n".join(SEG) + "\n", False),  # the header must come first
        ("", False),
        (HEADER + "\nno colon here\n", False),  # the header, then a line the format cannot read
    ],
)
def test_a_paddle2onnx_file_is_claimed_by_its_first_header_whichever_suite_it_lies_in(tmp_path, text, claimed):
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf-8")
    assert is_paddle2onnx_file(path) is claimed
