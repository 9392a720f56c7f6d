"""Stage graph facts: env, requires, outputs, logs, rank-0 stages, listed skips."""

import pytest

from tests.support.plan_factory import make_plan
from tipc.plan import StageKind

L = "./test_tipc/output/rec/lite_train_lite_infer"
EVAL = "eval:tools/eval.py -c e.yml -o"
UNSET = {"CUDA_VISIBLE_DEVICES": None}


def envs(plan, chain):
    return {s.name: dict(s.env) for s in plan.stages() if s.chain == chain and not s.name.startswith("infer[cpu")}


@pytest.mark.parametrize(
    "entry, options, chain, expected",
    [
        (
            "1",
            {},
            "norm_train-gpus_1-fp32",
            {
                "train": {"CUDA_VISIBLE_DEVICES": "1"},
                "eval": {"CUDA_VISIBLE_DEVICES": "1"},
                "export": {"CUDA_VISIBLE_DEVICES": "1"},
                "infer[gpu-trt_False-fp32-bs1]": {"CUDA_VISIBLE_DEVICES": "1"},
            },
        ),
        (
            "2,3",
            {},
            "norm_train-gpus_2,3-fp32",
            {
                "train": UNSET,
                "eval": {"CUDA_VISIBLE_DEVICES": "2"},
                "export": {"CUDA_VISIBLE_DEVICES": "2"},
                "infer[gpu-trt_False-fp32-bs1]": {"CUDA_VISIBLE_DEVICES": "2"},
            },
        ),
        (
            "-1",
            {},
            "norm_train-gpus_-1-fp32",
            {"train": UNSET, "eval": UNSET, "export": UNSET, "infer[gpu-trt_False-fp32-bs1]": UNSET},
        ),
        (
            "a,b;4,5",
            dict(start_port=17000),
            "norm_train-gpus_4,5-fp32-nodes_2",
            {
                "train": {"CUDA_VISIBLE_DEVICES": None, "FLAGS_START_PORT": "17000"},
                "eval": {"CUDA_VISIBLE_DEVICES": "4"},
                "export": {"CUDA_VISIBLE_DEVICES": "4"},
                "infer[gpu-trt_False-fp32-bs1]": {"CUDA_VISIBLE_DEVICES": "4"},
            },
        ),
        ("1", dict(device="cpu"), "norm_train-gpus_1-fp32", {"train": UNSET, "eval": UNSET, "export": UNSET}),
        (
            "0,1",
            dict(device="cpu", start_port=9000),
            "norm_train-gpus_0,1-fp32",
            {"train": {"CUDA_VISIBLE_DEVICES": None, "FLAGS_START_PORT": "9000"}, "eval": UNSET, "export": UNSET},
        ),
    ],
    ids=["one-gpu-everywhere", "multi-gpu-first-id", "cpu", "multi-node-port", "cpu-retarget", "cpu-launch-port"],
)
def test_env_per_stage(entry, options, chain, expected):
    plan = make_plan(options=options, gpu_list=f"gpu_list:{entry}", train_use_gpu="Global.use_gpu:True", eval=EVAL)
    assert envs(plan, chain) == expected


def test_env_does_not_leak_between_entries_without_export():
    plan = make_plan(gpu_list="gpu_list:1|0,1", eval=EVAL, norm_export="norm_export:null")
    assert plan.stage("norm_train-gpus_0,1-fp32::train").env == UNSET


@pytest.mark.parametrize(
    "options, expected",
    [
        ({}, {}),
        (dict(whole_infer_gpu="3"), {"CUDA_VISIBLE_DEVICES": "3"}),
        (dict(device="cpu"), UNSET),
    ],
    ids=["inherited", "gpu-arg", "cpu"],
)
def test_whole_infer_env(options, expected):
    plan = make_plan(
        "whole_infer",
        options=options,
        infer_use_gpu="--use_gpu:False",
        infer_export="infer_export:tools/export_model.py -o",
    )
    assert {s.id: dict(s.env) for s in plan.stages()} == {
        "infer_model_0::export": expected,
        "infer_model_0::infer[cpu-mkldnn_False-threads_6-fp32-bs1]": expected,
    }


def test_requires_outputs_and_logs():
    plan = make_plan(gpu_list="gpu_list:0", eval=EVAL, infer_use_gpu="--use_gpu:True")
    S = f"{L}/norm_train_gpus_0_autocast_fp32"
    rows = [(s.name, s.requires, s.outputs, s.log, s.legacy_log, s.copy_train_log) for s in plan.stages()]
    assert rows == [
        ("train", (), (f"{S}/latest.pdparams",), f"{S}_nodes_1_train.log", f"{S}.log", (f"{S}/train.log", f"{S}.log")),
        ("eval", ("norm_train-gpus_0-fp32::train",), (), f"{S}_nodes_1_eval.log", f"{S}_nodes_1_eval.log", None),
        (
            "export",
            ("norm_train-gpus_0-fp32::train",),
            (f"{S}/Student/inference.pdiparams",),
            f"{S}_nodes_1_export.log",
            f"{S}_nodes_1_export.log",
            None,
        ),
        (
            "infer[gpu-trt_False-fp32-bs1]",
            ("norm_train-gpus_0-fp32::export",),
            (),
            f"{L}/python_infer_gpu_gpus_0_usetrt_False_precision_fp32_batchsize_1.log",
            f"{L}/python_infer_gpu_gpus_0_usetrt_False_precision_fp32_batchsize_1.log",
            None,
        ),
    ]
    assert {s.cwd for s in plan.stages()} == {"."}
    assert [s.kind for s in plan.stages()] == [StageKind.TRAIN, StageKind.EVAL, StageKind.EXPORT, StageKind.INFER]


def test_whole_infer_export_log_inside_the_mode_dir_and_infer_requires_it():
    plan = make_plan("whole_infer", infer_use_gpu="--use_gpu:False", infer_export="infer_export:tools/export.py -o")
    export, infer = plan.stages()
    assert export.log == "./test_tipc/output/rec/whole_infer/whole_infer_export_0.log"
    assert export.outputs == ("./inference/rec_infer/inference.pdiparams",)
    assert infer.requires == ("infer_model_0::export",)
    assert infer.log == (
        "./test_tipc/output/rec/whole_infer/"
        "python_infer_cpu_gpus_0_usemkldnn_False_threads_6_precision_fp32_batchsize_1.log"
    )


def test_multi_node_chain_runs_eval_export_infer_on_rank0_only():
    plan = make_plan(gpu_list="gpu_list:a,b;0,1", eval=EVAL)
    assert [(s.name, s.rank0_only) for s in plan.stages()][:3] == [("train", False), ("eval", True), ("export", True)]
    assert all(s.rank0_only for s in plan.stages() if s.kind is StageKind.INFER)


@pytest.mark.parametrize(
    "lines, skipped",
    [
        (
            dict(trainer="trainer:norm_train|pact_train"),
            [
                ("pact_train-gpus_0-fp32", "trainer 'pact_train': its script (pact_train, line 17) is null"),
                ("norm_train-gpus_0-fp32::eval", "eval script (eval, line 24) is null"),
            ],
        ),
        (
            dict(norm_export="norm_export:null"),
            [
                ("norm_train-gpus_0-fp32::eval", "eval script (eval, line 24) is null"),
                ("norm_train-gpus_0-fp32::export", "export script (norm_export, line 30) is null"),
                ("norm_train-gpus_0-fp32::infer", "no export (norm_export, line 30 is null): nothing to infer with"),
            ],
        ),
        (
            dict(eval=EVAL, inference="inference:null"),
            [("norm_train-gpus_0-fp32::infer", "inference script (inference, line 40) is null")],
        ),
    ],
    ids=["null-trainer", "null-export-means-no-infer", "null-inference"],
)
def test_silent_skips_are_listed(lines, skipped):
    plan = make_plan(gpu_list="gpu_list:0", infer_use_gpu="--use_gpu:True", **lines)
    assert [(s.id, s.reason) for s in plan.skipped] == skipped
