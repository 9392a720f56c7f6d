from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import config_text as template
from tipc.config import ConfigError, Field, TipcConfig
from tipc.config.locate import find_configs
from tipc.dialects.paddleocr.config import load_config, parse_config_text
from tipc.dialects.paddleocr.config.values import paired

PATH = "cfg.txt"
REPO = Path(__file__).resolve().parents[2]

# A complete config in the format, every trailing section included, one entry per physical line
# (1-based index = file line); list values where the pairing tests read them.
DEMO = dict(
    rule=template.SHORT_RULE,
    tail=(template.INFER_BENCHMARK, template.TRAIN_BENCHMARK, template.TO_STATIC),
    model_name="model_name:demo_rec",
    python="python:python3",
    epoch="Global.epoch_num:lite_train_lite_infer=2|whole_train_whole_infer=20",
    train_batch="Train.loader.batch_size_per_card:lite_train_lite_infer=8|whole_train_whole_infer=64",
    norm_train="norm_train:tools/train.py -c demo.yml -o",
    norm_export="norm_export:tools/export_model.py -c demo.yml -o",
    infer_model="infer_model:./inference/a|./inference/b",
    infer_export="infer_export:null|tools/export_model.py -c demo.yml -o",
    inference='inference:tools/infer/predict_rec.py --rec_image_shape="3,32,100"',
    cpu_threads="--cpu_threads:2",
    batch_size="--rec_batch_num:1|6",
)


def config_text(**edits) -> str:
    """The demo config with ``tests.support.config_text`` line edits (replace, drop, insert, upto, eol)."""
    return template.config_text(**DEMO, **edits)


BASE_LINES = tuple(config_text().splitlines())
TAIL_START = 52  # first trailing section header


def parse(**overrides) -> TipcConfig:
    return parse_config_text(config_text(**overrides), PATH)


def parse_error(text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse_config_text(text, PATH)
    assert caught.value.path == PATH
    return caught.value


def test_base_reads_every_role_at_its_line() -> None:
    config = parse()
    expected = {
        "model_name": ("model_name", "demo_rec", 2),
        "train_use_gpu": ("Global.use_gpu", "True|True", 5),
        "pretrained_model": ("Global.pretrained_model", "null", 10),
        "train_param1": ("null", "null", 13),
        "trainer": ("trainer", "norm_train", 15),
        "to_static_slot": ("to_static_train", "Global.to_static=true", 20),
        "custom_train": ("null", "null", 21),
        "eval": ("eval", "null", 24),
        "eval_param1": ("null", "null", 25),
        "checkpoints": ("Global.checkpoints", "", 29),
        "inference_dir": ("inference_dir", "Student", 36),
        "infer_model": ("infer_model", "./inference/a|./inference/b", 37),
        "inference": ("inference", 'tools/infer/predict_rec.py --rec_image_shape="3,32,100"', 40),
        "infer_use_gpu": ("--use_gpu", "True|False", 41),
        "model_dir": ("--rec_model_dir", "", 47),
        "infer_param1": ("null", "null", 51),
    }
    fields = {role: getattr(config, role) for role in expected}
    assert {role: (field.key, field.value, field.line) for role, field in fields.items()} == expected
    assert config.infer_benchmark == (Field("random_infer_input", "[{float32,[3,32,100]}]", 53),)
    assert config.train_benchmark is not None
    assert config.train_benchmark.profiler_options == Field("--profiler_options", "batch_range=[10,20];state=GPU", 58)
    assert config.train_benchmark.flags.line == 59
    assert config.to_static == Field("to_static_train", "Global.to_static=true", 61)
    assert config.notes == ()


@pytest.mark.parametrize(
    ("overrides", "role", "expected"),
    [
        ({"replace": {16: r"norm_train:tools/train.py -c C:\cfg\a.yml -o a:b"}}, "norm_train",
         Field("norm_train", r"tools/train.py -c C:\cfg\a.yml -o a:b", 16)),
        ({"replace": {37: "infer_model:http://127.0.0.1:8080/model"}}, "infer_model",
         Field("infer_model", "http://127.0.0.1:8080/model", 37)),
        ({"replace": {32: "fpgm_export: "}}, "fpgm_export", Field("fpgm_export", "", 32)),
        ({"replace": {32: "fpgm_export: null"}}, "fpgm_export", Field("fpgm_export", "null", 32)),
        ({"replace": {7: "  Global.epoch_num : 3  "}}, "epoch", Field("Global.epoch_num", "3", 7)),
        ({"replace": {37: "train_model:./inference/a"}}, "infer_model", Field("train_model", "./inference/a", 37)),
        ({"replace": {36: "##"}}, "inference_dir", Field("inference_dir", "", 36)),
        ({"replace": {23: "=====eval_params=====   "}}, "eval", Field("eval", "null", 24)),
        ({"insert": {1: "", 2: "  \t"}}, "python", Field("python", "python3", 5)),
        ({"eol": "\r\n"}, "inference", Field("inference", 'tools/infer/predict_rec.py --rec_image_shape="3,32,100"', 40)),
        ({"replace": {20: "null:null"}}, "to_static_slot", Field("null", "null", 20)),
    ],
    ids=[
        "colon-and-backslash-in-value", "url-in-value", "space-only-value", "space-before-null",
        "spaces-around-key-and-value", "free-infer-model-key", "placeholder-inference-dir",
        "header-trailing-spaces", "blank-lines-keep-physical-numbers", "crlf", "null-to-static-slot",
    ],
)  # fmt: skip
def test_value_forms(overrides: dict, role: str, expected: Field) -> None:
    assert getattr(parse(**overrides), role) == expected


def test_bom_and_crlf_parse_like_plain_text() -> None:
    assert parse_config_text("\ufeff" + config_text(eol="\r\n"), PATH) == parse()


def test_list_values_pair_by_position() -> None:
    config = parse(replace={5: "Global.use_gpu:True"})
    gpus, use_gpu = config.gpu_list.values(), config.train_use_gpu.values()
    assert [paired(use_gpu, i) for i, _ in enumerate(gpus)] == ["True", None]
    models, exports = config.infer_model.values(), config.infer_export.values()
    assert [paired(exports, i) for i, _ in enumerate(models)] == ["null", "tools/export_model.py -c demo.yml -o"]


@pytest.mark.parametrize(
    ("overrides", "infer_benchmark", "has_train_benchmark", "to_static"),
    [
        ({"upto": TAIL_START - 1}, (), False, None),
        ({"upto": TAIL_START + 1}, ("random_infer_input",), False, None),
        ({"upto": TAIL_START + 7}, ("random_infer_input",), True, None),
        ({"drop": tuple(range(TAIL_START, TAIL_START + 8))}, (), False, "to_static_train"),
    ],
    ids=["none", "infer-benchmark-only", "infer-and-train-benchmark", "to-static-only"],
)
def test_trailing_sections_are_optional(
    overrides: dict, infer_benchmark: tuple, has_train_benchmark: bool, to_static: str | None
) -> None:
    config = parse(**overrides)
    assert tuple(field.key for field in config.infer_benchmark) == infer_benchmark
    assert (config.train_benchmark is not None) == has_train_benchmark
    assert (config.to_static.key if config.to_static else None) == to_static
    assert config.notes == ()


def test_disable_to_static_section_is_ignored_with_a_note() -> None:
    config = parse(replace={60: "=====disable_to_static_train_benchmark=====", 61: "anything without a colon"})
    assert config.to_static is None
    assert config.notes == ("section 'disable_to_static_train_benchmark' (line 60) is not read",)


@pytest.mark.parametrize(
    ("overrides", "missing", "notes", "shifted"),
    [
        ({"drop": (17,)}, ("pact_train",),
         ("train_params: missing key 'pact_train' (role pact_train) after line 16; read as null",),
         ("fpgm_train", Field("fpgm_train", "null", 17))),
        ({"drop": (19,)}, ("distill_train",),
         ("train_params: missing key 'distill_train' (role distill_train) after line 18; read as null",),
         ("to_static_slot", Field("to_static_train", "Global.to_static=true", 19))),
        ({"drop": (34, 35)}, ("export1", "export2"),
         ("infer_params: missing key 'export1' (role export1) after line 33; read as null",
          "infer_params: missing key 'export2' (role export2) after line 33; read as null"),
         ("inference_dir", Field("inference_dir", "Student", 34))),
        ({"drop": (35,), "replace": {36: "##"}}, ("export2",),
         ("infer_params: missing key 'export2' (role export2) after line 34; read as null",),
         ("inference_dir", Field("inference_dir", "", 35))),
        ({"drop": (36,)}, ("inference_dir",),
         ("infer_params: missing key 'inference_dir' (role inference_dir) after line 35; read as null",),
         ("infer_model", Field("infer_model", "./inference/a|./inference/b", 36))),
        ({"drop": (20,)}, ("to_static_slot",),
         ("train_params: missing a line for role to_static_slot (free key, e.g. 'to_static_train') after line 19; read as null",),
         ("custom_train", Field("null", "null", 20))),
        ({"drop": (21,)}, ("custom_train",),
         ("train_params: missing a line for role custom_train (free key, e.g. 'null') after line 20; read as null",),
         ("to_static_slot", Field("to_static_train", "Global.to_static=true", 20))),
    ],
    ids=["pact", "distill", "export1-and-export2", "export2-with-placeholder-dir", "inference-dir",
         "to-static-slot", "custom-slot"],
)  # fmt: skip
def test_missing_optional_lines_read_as_null_by_key(
    overrides: dict, missing: tuple[str, ...], notes: tuple[str, ...], shifted: tuple[str, Field]
) -> None:
    config = parse(**overrides)
    assert all(getattr(config, role).value == "null" and getattr(config, role).line == 0 for role in missing)
    assert config.notes == notes
    role, field = shifted
    assert getattr(config, role) == field
    assert config.inference.key == "inference"  # nothing after the gap shifted


EXPECTED_ROLES = "expected key '{}' (role {}), found '{}'"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("", 0, "empty file: expected a TIPC config starting with the 'train_params' header"),
        (" \n\n\t\n", 0, "empty file: expected a TIPC config starting with the 'train_params' header"),
        ("=====train_params=====\nmodel_name:x\x00\n", 2, "binary content (NUL byte): expected a text config"),
        (config_text(drop=(1,)), 1, "expected section header 'train_params', found 'model_name'"),
        (config_text(replace={5: "Global.use_gpu True"}), 5, "expected 'key:value', found 'Global.use_gpu True' (no colon)"),
        (config_text(replace={13: "#"}), 13, "expected 'key:value', found '#' (no colon)"),
        (config_text(replace={13: ":null"}), 13, "expected 'key:value', found ':null' (empty key)"),
        (config_text(replace={15: "trainers:norm_train"}), 15, EXPECTED_ROLES.format("trainer", "trainer", "trainers")),
        (config_text(replace={17: "pact_trian:null"}), 17, EXPECTED_ROLES.format("pact_train", "pact_train", "pact_trian")),
        (config_text(drop=(16,)), 16, EXPECTED_ROLES.format("norm_train", "norm_train", "pact_train")),
        (config_text(drop=(38,)), 38, EXPECTED_ROLES.format("infer_export", "infer_export", "infer_quant")),
        (config_text(drop=(5,)), 10,
         "expected a line for role pretrained_model (free key, e.g. 'Global.pretrained_model'), found 'train_model_name'"),
        (config_text(insert={9: "null:null"}), 11,
         EXPECTED_ROLES.format("train_model_name", "train_model_name", "Global.pretrained_model")),
        (config_text(insert={21: "null:null"}), 22,
         "expected the end of section 'train_params' after a line for role custom_train (free key, e.g. 'null'), found 'null'"),
        (config_text(drop=(42,)), 51,
         "expected a line for role infer_param1 (free key, e.g. 'null'), found section header 'infer_benchmark_params'"),
        (config_text(insert={51: "--extra:1"}), 52,
         "expected the end of section 'infer_params' after a line for role infer_param1 (free key, e.g. 'null'), found '--extra'"),
        (config_text(insert={61: "null:null"}), 62,
         "expected the end of section 'to_static_train_benchmark_params' after a line for role to_static (free key, e.g. 'to_static_train'), found 'null'"),
        (config_text(replace={1: "=====kl_quant_params====="}), 1, "expected section header 'train_params', found 'kl_quant_params'"),
        (config_text(replace={23: "=====infer_params====="}), 23, "expected section header 'eval_params', found 'infer_params'"),
        (config_text(replace={52: "=====serving_params====="}), 52,
         "unknown section 'serving_params': expected one of infer_benchmark_params, train_benchmark_params, "
         "to_static_train_benchmark_params, disable_to_static_train_benchmark"),
        (config_text(replace={54: "=====eval_params====="}), 54, "section 'eval_params' appears twice (first at line 23)"),
    ],
    ids=[
        "empty", "blank-only", "nul", "no-first-header", "no-colon", "single-hash", "empty-key", "wrong-fixed-key",
        "typo-in-optional-key", "missing-required-fixed", "missing-infer-export", "missing-free-line",
        "extra-free-line", "extra-train-tail-line", "missing-flag-line", "extra-flag-line", "extra-to-static-line",
        "ptq-format", "sections-out-of-order", "unknown-section", "duplicate-section",
    ],
)  # fmt: skip
def test_bad_input_is_a_config_error(text: str, line: int, message: str) -> None:
    error = parse_error(text)
    assert (error.line, error.message) == (line, message)


@pytest.mark.parametrize(
    ("upto", "message"),
    [
        (1, "truncated config: it ends at line 1 (section header 'train_params'); expected key 'model_name' (role model_name) next"),
        (12, "truncated config: it ends at line 12 ('train_infer_img_dir'); expected a line for role train_param1 (free key, e.g. 'null') next"),
        (22, "truncated config: it ends at line 22 ('##'); expected section header 'eval_params' next"),
        (30, "truncated config: it ends at line 30 ('norm_export'); expected key 'quant_export' (role quant_export) next"),
        (45, "truncated config: it ends at line 45 ('--use_tensorrt'); expected a line for role precision (free key, e.g. '--precision') next"),
        (56, "truncated config: it ends at line 56 ('fp_items'); expected key 'epoch' (role epoch) next"),
        (60, "truncated config: it ends at line 60 (section header 'to_static_train_benchmark_params'); expected a line for role to_static (free key, e.g. 'to_static_train') next"),
    ],
    ids=["after-header", "train-free-run", "before-eval", "after-norm-export", "in-flags", "in-train-benchmark", "empty-to-static"],
)  # fmt: skip
def test_truncated_config_names_the_last_line_and_what_comes_next(upto: int, message: str) -> None:
    error = parse_error(config_text(upto=upto))
    assert (error.line, error.message) == (upto, message)


@pytest.mark.parametrize("line", [2, 3, 4, 15], ids=["model_name", "python", "gpu_list", "trainer"])
def test_required_values_must_not_be_empty(line: int) -> None:
    key = BASE_LINES[line - 1].split(":")[0]
    error = parse_error(config_text(replace={line: f"{key}: "}))
    assert (error.line, error.message) == (line, f"expected a value for '{key}' (role {key}), found an empty value")


@pytest.mark.parametrize(
    ("line", "value", "message"),
    [
        (7, "Global.epoch_num:lite_train_lite_infer3|x",
         "malformed item 'lite_train_lite_infer3' in 'Global.epoch_num:lite_train_lite_infer3|x': expected mode=value"),
        (9, "Train.loader.batch_size_per_card:lite=8",
         "unknown mode 'lite' in 'Train.loader.batch_size_per_card:lite=8': expected one of lite_train_lite_infer, "
         "lite_train_whole_infer, whole_train_whole_infer, whole_infer, benchmark_train"),
    ],
    ids=["epoch-item-without-equals", "batch-unknown-mode"],
)  # fmt: skip
def test_mode_values_are_checked_at_load(line: int, value: str, message: str) -> None:
    error = parse_error(config_text(replace={line: value}))
    assert (error.line, error.message) == (line, message)


def test_error_renders_path_and_line() -> None:
    assert str(parse_error(config_text(replace={15: "trainers:norm_train"}))) == (
        "cfg.txt:15: expected key 'trainer' (role trainer), found 'trainers'"
    )


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (None, 0, "no such file: expected a TIPC config file"),
        ("dir", 0, "is a directory: expected a TIPC config file"),
        (b"", 0, "empty file: expected a TIPC config starting with the 'train_params' header"),
        (b"=====train_params=====\n\x89PNG\x00\x01", 2, "binary content (NUL byte): expected a text config"),
        (b"=====train_params=====\nmodel_name:\xff\n", 2, "not UTF-8 text (byte 0xff): expected a text config"),
    ],
    ids=["missing", "directory", "empty", "binary", "not-utf8"],
)
def test_load_config_file_errors(tmp_path: Path, content: bytes | str | None, line: int, message: str) -> None:
    target = tmp_path / "c.txt"
    if content == "dir":
        target.mkdir()
    elif content is not None:
        target.write_bytes(content)  # type: ignore[arg-type]
    with pytest.raises(ConfigError) as caught:
        load_config(target)
    assert (caught.value.path, caught.value.line, caught.value.message) == (str(target), line, message)


def test_load_config_reads_bom_and_crlf_bytes(tmp_path: Path) -> None:
    target = tmp_path / "c.txt"
    target.write_bytes(b"\xef\xbb\xbf" + config_text(eol="\r\n").encode())
    config = load_config(target)
    assert config.path == str(target)
    assert config == parse_config_text(config_text(), str(target))


SHIPPED = {
    "PP-OCRv3_mobile_rec/train_infer_python.txt": {"model_name": "PP-OCRv3_mobile_rec", "trainer": "norm_train", "autocast": "fp32"},
    "PP-OCRv3_mobile_rec/train_linux_gpu_normal_amp_infer_python_linux_gpu_cpu.txt": {"autocast": "amp", "batch_size": "6"},
    "PP-OCRv3_mobile_rec/train_linux_gpu_fleet_normal_infer_python_linux_gpu_cpu.txt": {
        "gpu_list": "127.0.0.2,127.0.0.3;0,1", "infer_use_gpu": "False"},
    "PP-OCRv3_mobile_rec/train_pact_infer_python.txt": {
        "model_name": "PP-OCRv3_mobile_rec_PACT", "trainer": "pact_train", "norm_export": "null", "infer_quant": "True"},
    "ch_PP-OCRv3_det/train_infer_python.txt": {"model_name": "ch_PP-OCRv3_det", "inference": "tools/infer/predict_det.py"},
    "rec_mv3_none_bilstm_ctc_v2_0/train_infer_python.txt": {
        "eval": "tools/eval.py -c test_tipc/configs/rec_mv3_none_bilstm_ctc_v2.0/rec_icdar15_train.yml -o",
        "inference_dir": "", "save_log": "./test/output/"},
}  # fmt: skip


def test_every_shipped_config_is_listed_here() -> None:
    shipped = {path.relative_to(REPO / "test_configs").as_posix() for path in find_configs(REPO / "test_configs")}
    assert set(SHIPPED) <= shipped


@pytest.mark.parametrize(("name", "values"), SHIPPED.items(), ids=list(SHIPPED))
def test_shipped_configs_parse_without_notes(name: str, values: dict[str, str]) -> None:
    config = load_config(REPO / "test_configs" / name)
    assert config.notes == ()
    assert config.python.value == "python3"
    assert {role: getattr(config, role).value for role in values} == values
    ips = config.gpu_list.value.split(";")[0] if ";" in config.gpu_list.value else ""
    assert all(ip.startswith("127.") for ip in filter(None, ips.split(",")))
