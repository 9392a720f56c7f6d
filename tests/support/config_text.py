"""The one TIPC config text the tests write or parse, in both formats.

The parser tests care about physical lines, the plan tests about roles and the
prepare tests about a file on disk; building all of them from one template laid
out by ``TipcConfig``'s roles keeps them describing the same format, and each
caller spells out only the lines it cares about. ``ptq_config_text`` does the same
for the KL quantization format, laid out by ``PtqConfig``'s roles.
"""

from __future__ import annotations

YML = "test_tipc/configs/rec/rec.yml"
# The run of `=` around a section name: PaddleOCR's configs write the long one, the parser takes any.
LONG_RULE = "==========================="
SHORT_RULE = "====="

# (section, ((role, line), ...)) in file order: a PP-OCRv3-rec-shaped config. A role of None is a
# separator the parser checks but keeps no field for.
BODY = (
    (
        "train_params",
        (
            ("model_name", "model_name:rec"),
            ("python", "python:python"),
            ("gpu_list", "gpu_list:0|0,1"),
            ("train_use_gpu", "Global.use_gpu:True|True"),
            ("autocast", "Global.auto_cast:fp32"),
            ("epoch", "Global.epoch_num:lite_train_lite_infer=3|whole_train_whole_infer=50"),
            ("save_model_dir", "Global.save_model_dir:./output/"),
            ("train_batch", "Train.loader.batch_size_per_card:lite_train_lite_infer=16|whole_train_whole_infer=128"),
            ("pretrained_model", "Global.pretrained_model:null"),
            ("train_model_name", "train_model_name:latest"),
            ("train_infer_img_dir", "train_infer_img_dir:./inference/rec_inference"),
            ("train_param1", "null:null"),
            (None, "##"),
            ("trainer", "trainer:norm_train"),
            (
                "norm_train",
                f"norm_train:tools/train.py -c {YML} -o Global.print_batch_step=1 Train.loader.shuffle=false",
            ),
            ("pact_train", "pact_train:null"),
            ("fpgm_train", "fpgm_train:null"),
            ("distill_train", "distill_train:null"),
            ("to_static_slot", "to_static_train:Global.to_static=true"),
            ("custom_train", "null:null"),
            (None, "##"),
        ),
    ),
    (
        "eval_params",
        (
            ("eval", "eval:null"),
            ("eval_param1", "null:null"),
            (None, "##"),
        ),
    ),
    (
        "infer_params",
        (
            ("save_inference_dir", "Global.save_inference_dir:./output/"),
            ("checkpoints", "Global.checkpoints:"),
            ("norm_export", f"norm_export:tools/export_model.py -c {YML} -o"),
            ("quant_export", "quant_export:null"),
            ("fpgm_export", "fpgm_export:null"),
            ("distill_export", "distill_export:null"),
            ("export1", "export1:null"),
            ("export2", "export2:null"),
            ("inference_dir", "inference_dir:Student"),
            ("infer_model", "infer_model:./inference/rec_infer"),
            ("infer_export", "infer_export:null"),
            ("infer_quant", "infer_quant:False"),
            ("inference", 'inference:tools/infer/predict_rec.py --rec_image_shape="3,48,320"'),
            ("infer_use_gpu", "--use_gpu:True|False"),
            ("enable_mkldnn", "--enable_mkldnn:False"),
            ("cpu_threads", "--cpu_threads:6"),
            ("batch_size", "--rec_batch_num:1"),
            ("use_tensorrt", "--use_tensorrt:False"),
            ("precision", "--precision:fp32"),
            ("model_dir", "--rec_model_dir:"),
            ("image_dir", "--image_dir:./inference/rec_inference"),
            ("save_log", "null:null"),
            ("benchmark", "--benchmark:True"),
            ("infer_param1", "null:null"),
        ),
    ),
)
ROLES = {role for _, lines in BODY for role, _ in lines if role}

# The KL quantization format (docs/spec.md §1.7), shaped as PP-OCRv3_mobile_rec's: one section, 21 lines.
PTQ_SECTION = "kl_quant_params"
PTQ_BODY = (
    ("model_name", "model_name:rec_KL"),
    ("python", "python:python"),
    ("weights", "Global.pretrained_model:"),
    ("save_inference_dir", "Global.save_inference_dir:null"),
    ("infer_model", "infer_model:./inference/rec_infer/"),
    ("infer_export", f"infer_export:deploy/slim/quantization/quant_kl.py -c {YML} -o"),
    ("infer_quant", "infer_quant:True"),
    ("inference", 'inference:tools/infer/predict_rec.py --rec_image_shape="3,48,320"'),
    ("infer_use_gpu", "--use_gpu:False|True"),
    ("enable_mkldnn", "--enable_mkldnn:False"),
    ("cpu_threads", "--cpu_threads:6"),
    ("batch_size", "--rec_batch_num:1|6"),
    ("use_tensorrt", "--use_tensorrt:False"),
    ("precision", "--precision:int8"),
    ("model_dir", "--rec_model_dir:"),
    ("image_dir", "--image_dir:./inference/rec_inference"),
    ("save_log", "null:null"),
    ("benchmark", "--benchmark:True"),
    ("infer_param1", "null:null"),
    ("extra", "null:null"),
)
PTQ_ROLES = {role for role, _ in PTQ_BODY}

# The optional trailing sections, as (section, lines), for ``tail=``.
INFER_BENCHMARK = ("infer_benchmark_params", ("random_infer_input:[{float32,[3,32,100]}]",))
TRAIN_BENCHMARK = (
    "train_benchmark_params",
    (
        "batch_size:32",
        "fp_items:fp32|fp16",
        "epoch:1",
        "--profiler_options:batch_range=[10,20];state=GPU",
        "flags:FLAGS_a=1;FLAGS_b=2",
    ),
)
TO_STATIC = ("to_static_train_benchmark_params", ("to_static_train:Global.to_static=true",))


def config_text(
    *,
    rule: str = LONG_RULE,
    tail: tuple[tuple[str, tuple[str, ...]], ...] = (),
    replace: dict[int, str] | None = None,
    drop: tuple[int, ...] = (),
    insert: dict[int, str] | None = None,
    upto: int | None = None,
    eol: str = "\n",
    **roles: str,
) -> str:
    """The template with ``role="key:value"`` lines (an empty string removes the line), then ``tail``.

    The line edits address the physical lines (1-based) of that text, as parser errors do: line N
    replaced / dropped / followed by inserted text, everything after line ``upto`` cut.
    """
    return _render(BODY, roles, ROLES, rule, tail, replace, drop, insert, upto, eol)


def ptq_config_text(
    *,
    header: str = PTQ_SECTION,
    rule: str = LONG_RULE,
    tail: tuple[tuple[str, tuple[str, ...]], ...] = (),
    replace: dict[int, str] | None = None,
    drop: tuple[int, ...] = (),
    insert: dict[int, str] | None = None,
    upto: int | None = None,
    eol: str = "\n",
    **roles: str,
) -> str:
    """``config_text`` for the KL quantization format; ``header`` names its one section."""
    return _render(((header, PTQ_BODY),), roles, PTQ_ROLES, rule, tail, replace, drop, insert, upto, eol)


def _render(
    body: tuple[tuple[str, tuple[tuple[str | None, str], ...]], ...],
    roles: dict[str, str],
    known: set[str],
    rule: str,
    tail: tuple[tuple[str, tuple[str, ...]], ...],
    replace: dict[int, str] | None,
    drop: tuple[int, ...],
    insert: dict[int, str] | None,
    upto: int | None,
    eol: str,
) -> str:
    unknown = set(roles) - known
    assert not unknown, f"unknown roles {unknown}"
    sections = [(name, [roles.get(role, text) if role else text for role, text in lines]) for name, lines in body]
    lines = [line for name, texts in (*sections, *tail) for line in (f"{rule}{name}{rule}", *texts) if line]
    return _edit(lines, replace or {}, drop, insert or {}, upto, eol)


def _edit(
    lines: list[str], replace: dict[int, str], drop: tuple[int, ...], insert: dict[int, str], upto: int | None, eol: str
) -> str:
    out = []
    for number, line in enumerate(lines[:upto], start=1):
        if number not in drop:
            out.append(replace.get(number, line))
        if number in insert:
            out.extend(insert[number].split("\n"))
    return eol.join(out) + eol
