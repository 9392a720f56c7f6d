"""The KL quantization format (docs/spec.md §1.7): roles by line, telling the formats apart, errors by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.config_text import TRAIN_BENCHMARK, config_text, ptq_config_text
from tipc.config import ConfigError, TipcConfig
from tipc.config.modes import Mode
from tipc.dialects.paddleocr.config import PtqConfig, load_any_config, parse_any_config_text
from tipc.dialects.paddleocr.config.formats import PADDLEOCR_MODES, check_mode, config_modes

PATH = "ptq.txt"


def parse(**edits) -> PtqConfig:
    config = parse_any_config_text(ptq_config_text(**edits), PATH)
    assert isinstance(config, PtqConfig)
    return config


def parse_error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_any_config_text(text, PATH)
    assert caught.value.path == PATH
    return caught.value


def test_every_role_is_read_at_its_line():
    config = parse()
    expected = {
        "model_name": ("model_name", "rec_KL", 2),
        "python": ("python", "python", 3),
        "weights": ("Global.pretrained_model", "", 4),
        "save_inference_dir": ("Global.save_inference_dir", "null", 5),
        "infer_model": ("infer_model", "./inference/rec_infer/", 6),
        "infer_export": ("infer_export", "deploy/slim/quantization/quant_kl.py -c test_tipc/configs/rec/rec.yml -o", 7),
        "infer_quant": ("infer_quant", "True", 8),
        "inference": ("inference", 'tools/infer/predict_rec.py --rec_image_shape="3,48,320"', 9),
        "infer_use_gpu": ("--use_gpu", "False|True", 10),
        "enable_mkldnn": ("--enable_mkldnn", "False", 11),
        "cpu_threads": ("--cpu_threads", "6", 12),
        "batch_size": ("--rec_batch_num", "1|6", 13),
        "use_tensorrt": ("--use_tensorrt", "False", 14),
        "precision": ("--precision", "int8", 15),
        "model_dir": ("--rec_model_dir", "", 16),
        "image_dir": ("--image_dir", "./inference/rec_inference", 17),
        "save_log": ("null", "null", 18),
        "benchmark": ("--benchmark", "True", 19),
        "infer_param1": ("null", "null", 20),
        "extra": ("null", "null", 21),
    }
    assert {role: (f.key, f.value, f.line) for role in expected for f in [getattr(config, role)]} == expected
    assert (config.path, config.header_line, config.notes) == (PATH, 1, ())


HEADER_NOTE = (
    "line 1: header 'train_params' read as 'kl_quant_params' (a lone section with an 'infer_export' line is "
    "a KL quantization config; the bash never reads the header)"
)


@pytest.mark.parametrize(
    ("text", "kind", "notes"),
    [
        (ptq_config_text(), PtqConfig, ()),
        (ptq_config_text(header="train_params"), PtqConfig, (HEADER_NOTE,)),
        (ptq_config_text(eol="\r\n"), PtqConfig, ()),
        (config_text(), TipcConfig, ()),
    ],
    ids=["kl_quant_params-header", "train_params-header", "crlf", "train-format"],
)
def test_the_format_is_told_by_the_text(text, kind, notes):
    config = parse_any_config_text(text, PATH)
    assert type(config) is kind
    assert config.notes == notes


def test_a_train_config_cut_after_its_first_section_is_still_read_as_one():
    """No infer_export line in a lone train_params section: a truncated train config, named as such."""
    error = parse_error(config_text(upto=22))
    assert error.message.startswith(
        "truncated config: it ends at line 22 ('##'); expected section header 'eval_params'"
    )


@pytest.mark.parametrize(
    ("edits", "line", "message"),
    [
        ({"insert": {21: "null:null"}}, 22, "expected the end of section 'kl_quant_params' after a line for role extra (free key, e.g. 'null'), found 'null'"),
        ({"drop": (8,)}, 8, "expected key 'infer_quant' (role infer_quant), found 'inference'"),
        ({"replace": {7: "infer_exprot:q.py"}}, 7, "expected key 'infer_export' (role infer_export), found 'infer_exprot'"),
        ({"drop": (4,)}, 6, "expected a line for role infer_model (free key, e.g. 'infer_model'), found 'infer_export'"),
        ({"drop": (16,)}, 20, "truncated config: it ends at line 20 ('null'); expected a line for role extra (free key, e.g. 'null') next"),
        ({"upto": 17}, 17, "truncated config: it ends at line 17 ('--image_dir'); expected a line for role save_log (free key, e.g. 'null') next"),
        ({"model_name": "model_name:"}, 2, "expected a value for 'model_name' (role model_name), found an empty value"),
        ({"tail": (("infer_benchmark_params", ("random_infer_input:[{float32,[3,48,320]}]",)),)}, 22,
         "expected only the 'kl_quant_params' section, found section header 'infer_benchmark_params'"),
        ({"upto": 12}, 12, "truncated config: it ends at line 12 ('--cpu_threads'); expected a line for role batch_size (free key, e.g. '--rec_batch_num') next"),
    ],
    ids=["extra-line", "missing-fixed-line", "misspelt-fixed-key", "missing-free-line", "missing-flag-line",
         "unread-lines-missing", "empty-model-name", "second-section", "truncated"],
)  # fmt: skip
def test_errors_name_the_line_found_and_expected(edits, line, message):
    error = parse_error(ptq_config_text(**edits))
    assert (error.line, error.message) == (line, message)


def test_a_key_of_the_wrong_kind_is_read_with_a_warning():
    config = parse(weights="--pretrained_model:", image_dir="Global.image_dir:./x")
    assert config.notes == (
        "warning: line 4: found '--pretrained_model', a predictor flag (--flag), for role weights; "
        "expected a trainer override (Section.key) such as 'Global.pretrained_model'",
        "warning: line 17: found 'Global.image_dir', a trainer override (Section.key), for role image_dir; "
        "expected a predictor flag (--flag) such as '--image_dir'",
    )


@pytest.mark.parametrize("mode", list(PADDLEOCR_MODES), ids=str)
def test_a_ptq_config_runs_in_whole_infer_only(mode):
    config = parse()
    assert config_modes(config) == (Mode.WHOLE_INFER,)
    if mode is Mode.WHOLE_INFER:
        assert check_mode(config, mode) is mode
        return
    with pytest.raises(ConfigError) as caught:
        check_mode(config, mode)
    assert (caught.value.line, caught.value.message) == (
        1,
        f"mode '{mode}': a KL quantization config runs only in whole_infer (test_ptq_inference_python.sh "
        "runs nothing in other modes): expected --mode whole_infer",
    )


def test_a_train_config_runs_in_every_mode_but_paddle2onnx_infer():
    config = parse_any_config_text(config_text(tail=(TRAIN_BENCHMARK,)), PATH)
    assert config_modes(config) == PADDLEOCR_MODES
    assert [check_mode(config, mode) for mode in PADDLEOCR_MODES] == list(PADDLEOCR_MODES)
    with pytest.raises(ConfigError, match="mode 'paddle2onnx_infer' runs paddle2onnx configs"):
        check_mode(config, Mode.PADDLE2ONNX_INFER)


def test_benchmark_train_needs_the_train_benchmark_section():
    config = parse_any_config_text(config_text(), PATH)
    assert config_modes(config) == tuple(m for m in PADDLEOCR_MODES if m is not Mode.BENCHMARK_TRAIN)


@pytest.mark.parametrize(
    ("text", "kind"), [(ptq_config_text(), PtqConfig), (config_text(), TipcConfig)], ids=["ptq", "train"]
)
def test_load_any_config_reads_a_file_of_either_format(tmp_path: Path, text: str, kind: type) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    config = load_any_config(path)
    assert type(config) is kind
    assert config.path == str(path)
