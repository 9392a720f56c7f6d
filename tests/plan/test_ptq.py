"""PTQ plans against the commands of ``test_ptq_inference_python.sh`` (docs/spec.md §1.7, §3.6, §4.3).

Every expected command below is written from the script's own templates, not from tipc's output:

* export: ``${python} ${infer_export[k]} ${set_export_weight} ${set_save_infer_key} > ${LOG_PATH}/${MODE}_export_${k}.log 2>&1 ``
  with ``set_export_weight = <line 4 key>=<model>`` and ``set_save_infer_key = <line 5 key>=<model>_klquant``;
* CPU infer: ``${python} ${script} ${use_gpu_key}=${use_gpu} ${mkldnn} ${threads} ${model_dir} ${batch}
  ${params0} ${image_dir} ${benchmark} ${precision} ${params1} > ${log} 2>&1 ``;
* GPU infer: ``${python} ${script} ${use_gpu_key}=${use_gpu} ${trt} ${precision} ${model_dir} ${batch}
  ${image_dir} ${benchmark} ${params1} ${params0} > ${log} 2>&1 ``;

where a dropped ``func_set_params`` is one space, and ``params0``, ``benchmark``, ``params1`` always are:
the script reads 17 lines, so their keys and values are empty. ``is_quant`` is always ``True``; the CPU
loops nest mkldnn → threads → batch → precision, the GPU loops trt → precision → batch; log names have
no ``gpus_`` segment. A gated test in ``test_zoo.py`` also runs the script itself on the real configs.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.support.config_text import YML
from tests.support.plan_factory import make_ptq_plan
from tipc.config import ConfigError
from tipc.config.bounds import MAX_STAGES
from tipc.dialects.paddleocr.config import load_any_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.dialects.paddleocr.plan.ptq import ptq_gpu_skip_rule
from tipc.dialects.paddleocr.plan.sweep import NO_GPU, gpu_skip_rule
from tipc.plan import PlanOptions, StageKind

L = "./test_tipc/output/rec_KL/whole_infer"
PY = "python3.7"
SCRIPT = 'tools/infer/predict_rec.py --rec_image_shape="3,48,320"'
QUANTIZED = "./inference/rec_infer/_klquant"
EXPORT = (
    f"{PY} deploy/slim/quantization/quant_kl.py -c {YML} -o Global.pretrained_model=./inference/rec_infer/ "
    f"Global.save_inference_dir={QUANTIZED} > {L}/whole_infer_export_0.log 2>&1 "
)


def cpu(batch: str, precision: str = "int8", mkldnn: str = "False", model: str = QUANTIZED) -> tuple[str, str]:
    log = f"{L}/python_infer_cpu_usemkldnn_{mkldnn}_threads_6_precision_{precision}_batchsize_{batch}.log"
    command = (
        f"{PY} {SCRIPT} --use_gpu=False --enable_mkldnn={mkldnn} --cpu_threads=6 --rec_model_dir={model} "
        f"--rec_batch_num={batch}   --image_dir=./inference/rec_inference   --precision={precision}   > {log} 2>&1 "
    )
    return command, log


def gpu(batch: str, precision: str = "int8", trt: str = "False", model: str = QUANTIZED) -> tuple[str, str]:
    log = f"{L}/python_infer_gpu_usetrt_{trt}_precision_{precision}_batchsize_{batch}.log"
    command = (
        f"{PY} {SCRIPT} --use_gpu=True --use_tensorrt={trt} --precision={precision} --rec_model_dir={model} "
        f"--rec_batch_num={batch} --image_dir=./inference/rec_inference       > {log} 2>&1 "
    )
    return command, log


def legacy(plan) -> list[tuple[str, str]]:
    return [(s.legacy_command, s.legacy_log) for s in plan.stages()]


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ({}, [(EXPORT, f"{L}/whole_infer_export_0.log"), cpu("1"), cpu("6"), gpu("1"), gpu("6")]),
        (
            {"infer_use_gpu": "--use_gpu:True|False", "batch_size": "--rec_batch_num:1"},
            [(EXPORT, f"{L}/whole_infer_export_0.log"), gpu("1"), cpu("1")],
        ),
        (
            {"precision": "--precision:fp32|int8", "batch_size": "--rec_batch_num:1"},
            [(EXPORT, f"{L}/whole_infer_export_0.log"), cpu("1"), gpu("1")],
        ),
        (
            {"use_tensorrt": "--use_tensorrt:False|True", "batch_size": "--rec_batch_num:1"},
            [(EXPORT, f"{L}/whole_infer_export_0.log"), cpu("1"), gpu("1"), gpu("1", trt="True")],
        ),
        (
            {"enable_mkldnn": "--enable_mkldnn:True|False", "precision": "--precision:fp16|int8", "batch_size": "--rec_batch_num:1"},
            [(EXPORT, f"{L}/whole_infer_export_0.log"), cpu("1", mkldnn="True"), cpu("1"), gpu("1")],
        ),
        (
            {"infer_export": "infer_export:null", "batch_size": "--rec_batch_num:1"},
            [cpu("1", model="./inference/rec_infer/"), gpu("1", model="./inference/rec_infer/")],
        ),
    ],
    ids=["template", "gpu-first", "fp32-dropped", "trt-list", "mkldnn-fp16", "no-quantizer"],
)  # fmt: skip
def test_commands_are_the_scripts(lines, expected):
    assert legacy(make_ptq_plan(**lines)) == expected


def test_argv_is_what_the_scripts_eval_runs():
    """The bash evals each command string: its words before the redirect are the child's argv."""
    for stage in make_ptq_plan().stages():
        assert stage.argv == tuple(shlex.split(stage.legacy_command.rpartition(" > ")[0])), stage.id


def test_the_quantization_is_an_export_stage_and_infer_needs_it():
    plan = make_ptq_plan(batch_size="--rec_batch_num:1")
    export, *infer = plan.stages()
    assert (export.id, export.kind, export.outputs) == (
        "infer_model_0::export",
        StageKind.EXPORT,
        (f"{QUANTIZED}/inference.pdiparams",),
    )
    assert [(s.id, s.kind, s.requires) for s in infer] == [
        ("infer_model_0::infer[cpu-mkldnn_False-threads_6-int8-bs1]", StageKind.INFER, (export.id,)),
        ("infer_model_0::infer[gpu-trt_False-int8-bs1]", StageKind.INFER, (export.id,)),
    ]
    assert [(c.id, c.trainer, c.save_dir) for c in plan.chains] == [("infer_model_0", "", "")]


@pytest.mark.parametrize(
    ("trt", "precision", "ptq", "train"),
    [
        ("False", "int8", None, "fp16/int8 on GPU needs TensorRT (use_tensorrt=False, precision=int8)"),
        ("True", "int8", None, None),
        ("False", "fp32", "quantized model on GPU needs precision int8 (precision=fp32)", None),
        ("True", "fp16", "quantized model on GPU needs precision int8 (precision=fp16)", None),
        ("False", "int8_x", "quantized model on GPU needs precision int8 (precision=int8_x)",
         "fp16/int8 on GPU needs TensorRT (use_tensorrt=False, precision=int8_x)"),
    ],
    ids=["int8-without-trt", "int8-with-trt", "fp32", "fp16-with-trt", "exact-match-only"],
)  # fmt: skip
def test_the_gpu_rule_is_the_scripts_not_the_train_scripts(trt, precision, ptq, train):
    assert ptq_gpu_skip_rule(trt, precision, True) == ptq
    assert gpu_skip_rule(trt, precision, True) == train


def test_dropped_cells_are_listed_with_their_rule():
    plan = make_ptq_plan(precision="--precision:fp32|int8", batch_size="--rec_batch_num:1")
    assert [(s.id, s.reason) for s in plan.skipped] == [
        (
            "infer_model_0::infer[cpu-mkldnn_False-threads_6-fp32-bs1]",
            "quant model on CPU needs precision int8 (precision=fp32)",
        ),
        (
            "infer_model_0::infer[gpu-trt_False-fp32-bs1]",
            "quantized model on GPU needs precision int8 (precision=fp32)",
        ),
    ]


UNREAD_BENCHMARK = (
    "line 19 ('--benchmark:True', role benchmark) is not passed: "
    "test_ptq_inference_python.sh reads only its first 17 lines (docs/spec.md B15)"
)
INSIDE = (
    "the quantized model of './inference/rec_infer/' goes inside it, to './inference/rec_infer/_klquant' "
    "(infer_model, line 6, ends with '/'; the bash's path)"
)
QUANT_NOT_READ = (
    "infer_quant (line 8) 'False' is not read: test_ptq_inference_python.sh treats every model as quantized "
    "(only int8 cases run)"
)


@pytest.mark.parametrize(
    ("lines", "notes"),
    [
        ({}, (UNREAD_BENCHMARK, INSIDE)),
        ({"benchmark": "--benchmark:null", "infer_model": "infer_model:./inference/rec_infer"}, ()),
        ({"infer_param1": "--det_limit_side_len:960", "infer_export": "infer_export:null"}, (
            UNREAD_BENCHMARK,
            "line 20 ('--det_limit_side_len:960', role infer_param1) is not passed: "
            "test_ptq_inference_python.sh reads only its first 17 lines (docs/spec.md B15)",
        )),
        ({"infer_quant": "infer_quant:False"}, (UNREAD_BENCHMARK, QUANT_NOT_READ, INSIDE)),
    ],
    ids=["template", "nothing-to-say", "unread-param", "infer_quant-false"],
)  # fmt: skip
def test_notes_say_what_the_script_ignores(lines, notes):
    plan = make_ptq_plan(**lines)
    assert plan.notes == ("python: python3.7 (from --python)", *notes)


def test_unread_lines_never_reach_a_command():
    plan = make_ptq_plan(infer_param1="--det_limit_side_len:960", save_log="--save_log_path:./x")
    assert not [a for s in plan.stages() for a in s.argv if a.startswith(("--benchmark", "--det_limit", "--save_log"))]


def test_infer_quant_false_still_infers_as_quantized():
    plan = make_ptq_plan(infer_quant="infer_quant:False", precision="--precision:fp32", batch_size="--rec_batch_num:1")
    assert [s.name for s in plan.stages()] == ["export"]
    assert len(plan.skipped) == 2


def test_several_models_get_their_own_quantization_and_distinct_infer_logs():
    plan = make_ptq_plan(
        infer_model="infer_model:./inference/a|./inference/b",
        infer_export=f"infer_export:deploy/slim/quantization/quant_kl.py -c {YML} -o",
        infer_use_gpu="--use_gpu:False",
        batch_size="--rec_batch_num:1",
    )
    stages = {s.id: s for s in plan.stages()}
    assert list(stages) == [
        "infer_model_0::export",
        "infer_model_0::infer[cpu-mkldnn_False-threads_6-int8-bs1]",
        "infer_model_1::infer[cpu-mkldnn_False-threads_6-int8-bs1]",
    ]
    assert stages["infer_model_0::export"].argv[-2:] == (
        "Global.pretrained_model=./inference/a",
        "Global.save_inference_dir=./inference/a_klquant",
    )
    infer_0, infer_1 = (stages[f"infer_model_{k}::infer[cpu-mkldnn_False-threads_6-int8-bs1]"] for k in (0, 1))
    assert "--rec_model_dir=./inference/a_klquant" in infer_0.argv
    assert "--rec_model_dir=./inference/b" in infer_1.argv  # no partner: the bash's no-export branch
    assert (infer_0.log, infer_1.log) == (
        f"{L}/infer_model_0_python_infer_cpu_usemkldnn_False_threads_6_precision_int8_batchsize_1.log",
        f"{L}/infer_model_1_python_infer_cpu_usemkldnn_False_threads_6_precision_int8_batchsize_1.log",
    )


@pytest.mark.parametrize(
    ("options", "env", "gpu_reason"),
    [
        ({}, {}, None),
        ({"whole_infer_gpu": "1"}, {"CUDA_VISIBLE_DEVICES": "1"}, None),
        ({"device": "cpu"}, {"CUDA_VISIBLE_DEVICES": None}, NO_GPU),
    ],
    ids=["inherited", "gpu-argument", "device-cpu"],
)
def test_environment_and_device_as_in_whole_infer(options, env, gpu_reason):
    plan = make_ptq_plan(options=options, batch_size="--rec_batch_num:1")
    assert {s.id: dict(s.env) for s in plan.stages()} == {s.id: env for s in plan.stages()}
    dropped = {s.id: s.reason for s in plan.skipped}
    assert dropped.get("infer_model_0::infer[gpu-trt_False-int8-bs1]") == gpu_reason


@pytest.mark.parametrize("mode", ["lite_train_lite_infer", "lite_train_whole_infer", "whole_train_whole_infer"])
def test_other_modes_are_refused_naming_the_header(mode):
    with pytest.raises(ConfigError) as caught:
        make_ptq_plan(mode)
    assert caught.value.line == 1
    assert caught.value.message.startswith(f"mode '{mode}': a KL quantization config runs only in whole_infer")


def test_a_null_model_list_is_listed_not_silent():
    plan = make_ptq_plan(infer_model="infer_model:null")
    assert (plan.chains, [(s.id, s.reason) for s in plan.skipped]) == (
        (),
        [("infer_model", "infer_model (line 6) is null: no model to infer with")],
    )


def test_lists_that_multiply_past_the_stage_limit_are_refused_before_planning():
    threads = "|".join(str(n) for n in range(MAX_STAGES))
    with pytest.raises(ConfigError) as caught:
        make_ptq_plan(cpu_threads=f"--cpu_threads:{threads}")
    assert caught.value.line == 12
    assert "over the limit of" in caught.value.message


SHIPPED = Path(__file__).resolve().parents[2] / "test_configs"
DET = "./test_tipc/output/ch_PP-OCRv3_det_KL/whole_infer"
DET_MODEL = "./inference/PP-OCRv3_mobile_det_infer/"
TABLE = "./test_tipc/output/en_table_structure_KL/whole_infer"
TABLE_MODEL = "./inference/en_ppocr_mobile_v2.0_table_structure_infer/"
TABLE_SCRIPT = (
    "ppstructure/table/predict_table.py --det_model_dir=./inference/en_ppocr_mobile_v2.0_table_det_infer "
    "--rec_model_dir=./inference/en_ppocr_mobile_v2.0_table_rec_infer  "
    "--rec_char_dict_path=./ppocr/utils/dict/table_dict.txt "
    "--table_char_dict_path=./ppocr/utils/dict/table_structure_dict.txt --image_dir=./ppstructure/docs/table/table.jpg "
    "--det_limit_side_len=736 --det_limit_type=min --output ./output/table"
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "ch_PP-OCRv3_det/train_ptq_infer_python.txt",
            [
                f"{PY} deploy/slim/quantization/quant_kl.py -c configs/det/PP-OCRv3/PP-OCRv3_det_cml.yml -o "
                f"Global.pretrained_model={DET_MODEL} Global.save_inference_dir={DET_MODEL}_klquant "
                f"> {DET}/whole_infer_export_0.log 2>&1 ",
                f"{PY} tools/infer/predict_det.py --use_gpu=False --enable_mkldnn=False --cpu_threads=6 "
                f"--det_model_dir={DET_MODEL}_klquant --rec_batch_num=1   --image_dir=./inference/ch_det_data_50/all-sum-510/"
                f"   --precision=int8   > {DET}/python_infer_cpu_usemkldnn_False_threads_6_precision_int8_batchsize_1.log 2>&1 ",
                f"{PY} tools/infer/predict_det.py --use_gpu=True --use_tensorrt=False --precision=int8 "
                f"--det_model_dir={DET_MODEL}_klquant --rec_batch_num=1 --image_dir=./inference/ch_det_data_50/all-sum-510/"
                f"       > {DET}/python_infer_gpu_usetrt_False_precision_int8_batchsize_1.log 2>&1 ",
            ],
        ),
        (
            "en_table_structure/train_ptq_infer_python.txt",
            [
                f"{PY} deploy/slim/quantization/quant_kl.py -c configs/table/table_mv3.yml -o "
                f"Global.pretrained_model={TABLE_MODEL} Global.save_inference_dir={TABLE_MODEL}_klquant "
                f"> {TABLE}/whole_infer_export_0.log 2>&1 ",
                f"{PY} {TABLE_SCRIPT} --use_gpu=True --use_tensorrt=False --precision=int8 "
                f"--table_model_dir={TABLE_MODEL}_klquant --rec_batch_num=1 --image_dir=./ppstructure/docs/table/table.jpg"
                f"       > {TABLE}/python_infer_gpu_usetrt_False_precision_int8_batchsize_1.log 2>&1 ",
                f"{PY} {TABLE_SCRIPT} --use_gpu=False --enable_mkldnn=False --cpu_threads=6 "
                f"--table_model_dir={TABLE_MODEL}_klquant --rec_batch_num=1   --image_dir=./ppstructure/docs/table/table.jpg"
                f"   --precision=int8   > {TABLE}/python_infer_cpu_usemkldnn_False_threads_6_precision_int8_batchsize_1.log 2>&1 ",
            ],
        ),
    ],
    ids=["det-kl_quant_params-header", "table-train_params-header"],
)
def test_shipped_configs_run_the_scripts_commands(name, expected):
    plan = build_plan(load_any_config(SHIPPED / name), PlanOptions("whole_infer", python=PY))
    assert [s.legacy_command for s in plan.stages()] == expected
    assert [s.legacy_log for s in plan.stages()] == [c.rpartition(" > ")[2].removesuffix(" 2>&1 ") for c in expected]
