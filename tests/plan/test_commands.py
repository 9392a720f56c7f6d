"""Exact argv and legacy command text of every stage kind (through build_plan)."""

import pytest

from tests.support.config_text import YML
from tests.support.plan_factory import make_config, make_plan
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions

L = "./test_tipc/output/rec/lite_train_lite_infer"
NORM = ("tools/train.py", "-c", YML, "-o", "Global.print_batch_step=1", "Train.loader.shuffle=false")
LAUNCH = ("py", "-m", "paddle.distributed.launch")
AMP = ("Global.use_amp=True", "Global.scale_loss=1024.0", "Global.use_dynamic_loss_scaling=True")


def save(name):
    return f"Global.save_model_dir={L}/{name}"


TRAIN_CASES = [
    (
        "one-gpu",
        dict(gpu_list="gpu_list:0"),
        {},
        "norm_train-gpus_0-fp32",
        (
            "py",
            *NORM,
            "Global.use_gpu=True",
            save("norm_train_gpus_0_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "cpu",
        dict(gpu_list="gpu_list:-1", train_use_gpu="Global.use_gpu:False"),
        {},
        "norm_train-gpus_-1-fp32",
        (
            "py",
            *NORM,
            "Global.use_gpu=False",
            save("norm_train_gpus_-1_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "multi-gpu",
        dict(gpu_list="gpu_list:0,1,2", train_use_gpu="Global.use_gpu:True"),
        {},
        "norm_train-gpus_0,1,2-fp32",
        (
            *LAUNCH,
            "--gpus=0,1,2",
            f"--log_dir={L}/norm_train_gpus_0,1,2_autocast_fp32_launch_log",
            *NORM,
            "Global.use_gpu=True",
            save("norm_train_gpus_0,1,2_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "multi-node",
        dict(
            gpu_list="gpu_list:10.0.0.1,10.0.0.2;0,1",
            train_use_gpu="Global.use_gpu:True",
            pretrained_model="Global.pretrained_model:./pretrain/best",
        ),
        dict(host="10.0.0.2", start_port=17000),
        "norm_train-gpus_0,1-fp32-nodes_2",
        (
            *LAUNCH,
            "--ips=10.0.0.1,10.0.0.2",
            "--gpus=0,1",
            "--host=10.0.0.2",
            "--start_port=17000",
            f"--log_dir={L}/norm_train_gpus_0,1_autocast_fp32_nodes_2_launch_log",
            *NORM,
            "Global.use_gpu=True",
            save("norm_train_gpus_0,1_autocast_fp32_nodes_2"),
            "Global.pretrained_model=./pretrain/best",
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "multi-node-one-gpu-each",
        dict(gpu_list="gpu_list:a,b,c;0", train_use_gpu="Global.use_gpu:True"),
        {},
        "norm_train-gpus_0-fp32-nodes_3",
        (
            *LAUNCH,
            "--ips=a,b,c",
            "--gpus=0",
            f"--log_dir={L}/norm_train_gpus_0_autocast_fp32_nodes_3_launch_log",
            *NORM,
            "Global.use_gpu=True",
            save("norm_train_gpus_0_autocast_fp32_nodes_3"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "ips-override",
        dict(gpu_list="gpu_list:a,b;0,1", train_use_gpu="Global.use_gpu:True"),
        dict(ips=("x", "y", "z")),
        "norm_train-gpus_0,1-fp32-nodes_3",
        (
            *LAUNCH,
            "--ips=x,y,z",
            "--gpus=0,1",
            f"--log_dir={L}/norm_train_gpus_0,1_autocast_fp32_nodes_3_launch_log",
            *NORM,
            "Global.use_gpu=True",
            save("norm_train_gpus_0,1_autocast_fp32_nodes_3"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "amp-and-param1",
        dict(gpu_list="gpu_list:0", autocast="Global.auto_cast:amp", train_param1="Global.print_mem_info:False"),
        {},
        "norm_train-gpus_0-amp",
        (
            "py",
            *NORM,
            "Global.use_gpu=True",
            save("norm_train_gpus_0_autocast_amp"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
            *AMP,
            "Global.print_mem_info=False",
        ),
    ),
    (
        "to_static",
        dict(gpu_list="gpu_list:0", trainer="trainer:to_static_train"),
        {},
        "to_static_train-gpus_0-fp32",
        (
            "py",
            *NORM,
            "Global.to_static=true",
            "Global.use_gpu=True",
            save("to_static_train_gpus_0_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "pact",
        dict(
            gpu_list="gpu_list:0",
            trainer="trainer:pact_train",
            pact_train='pact_train:deploy/quant.py -c q.yml -o Global.x="a b"',
        ),
        {},
        "pact_train-gpus_0-fp32",
        (
            "py",
            "deploy/quant.py",
            "-c",
            "q.yml",
            "-o",
            "Global.x=a b",
            "Global.use_gpu=True",
            save("pact_train_gpus_0_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "cpu-retarget-multi",
        dict(gpu_list="gpu_list:0,1", train_use_gpu="Global.use_gpu:True"),
        dict(device="cpu"),
        "norm_train-gpus_0,1-fp32",
        (
            *LAUNCH,
            "--nproc_per_node=2",
            f"--log_dir={L}/norm_train_gpus_0,1_autocast_fp32_launch_log",
            *NORM,
            "Global.use_gpu=False",
            save("norm_train_gpus_0,1_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "cpu-retarget-one",
        dict(gpu_list="gpu_list:0"),
        dict(device="cpu"),
        "norm_train-gpus_0-fp32",
        (
            "py",
            *NORM,
            "Global.use_gpu=False",
            save("norm_train_gpus_0_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
    (
        "missing-use-gpu-partner",
        dict(gpu_list="gpu_list:0|1", train_use_gpu="Global.use_gpu:True"),
        {},
        "norm_train-gpus_1-fp32",
        (
            "py",
            *NORM,
            save("norm_train_gpus_1_autocast_fp32"),
            "Global.epoch_num=3",
            "Train.loader.batch_size_per_card=16",
        ),
    ),
]


@pytest.mark.parametrize("lines, options, chain, argv", [c[1:] for c in TRAIN_CASES], ids=[c[0] for c in TRAIN_CASES])
def test_train_argv(lines, options, chain, argv):
    assert make_plan(to_static=True, options=options, **lines).stage(f"{chain}::train").argv == argv


@pytest.mark.parametrize(
    "mode, epoch, batch",
    [
        ("lite_train_lite_infer", ("Global.epoch_num=3",), ("Train.loader.batch_size_per_card=16",)),
        ("lite_train_whole_infer", ("Global.epoch_num=3",), ("Train.loader.batch_size_per_card=16",)),
        ("whole_train_whole_infer", ("Global.epoch_num=50",), ("Train.loader.batch_size_per_card=128",)),
    ],
    ids=["lite", "lite-whole-falls-back", "whole"],
)
def test_mode_values(mode, epoch, batch):
    stage = make_plan(mode, gpu_list="gpu_list:0").stage("norm_train-gpus_0-fp32::train")
    output = f"./test_tipc/output/rec/{mode}"
    assert stage.argv == (
        "py",
        *NORM,
        "Global.use_gpu=True",
        f"Global.save_model_dir={output}/norm_train_gpus_0_autocast_fp32",
        *epoch,
        *batch,
    )


def test_mode_without_a_value_drops_the_override():
    plan = make_plan("whole_train_whole_infer", gpu_list="gpu_list:0", epoch="Global.epoch_num:lite_train_lite_infer=3")
    assert "Global.epoch_num" not in " ".join(plan.stage("norm_train-gpus_0-fp32::train").argv)


EVAL_LINES = dict(gpu_list="gpu_list:0", eval="eval:tools/eval.py -c e.yml -o", eval_param1="Global.x:1")
S0 = f"{L}/norm_train_gpus_0_autocast_fp32"
PREDICT = ("py", "tools/infer/predict_rec.py", "--rec_image_shape=3,48,320")

OTHER_CASES = [
    (
        "eval",
        EVAL_LINES,
        {},
        "norm_train-gpus_0-fp32::eval",
        (
            "py",
            "tools/eval.py",
            "-c",
            "e.yml",
            "-o",
            f"Global.pretrained_model={S0}/latest",
            "Global.use_gpu=True",
            "Global.x=1",
        ),
    ),
    (
        "eval-on-cpu",
        EVAL_LINES,
        dict(device="cpu"),
        "norm_train-gpus_0-fp32::eval",
        (
            "py",
            "tools/eval.py",
            "-c",
            "e.yml",
            "-o",
            f"Global.pretrained_model={S0}/latest",
            "Global.use_gpu=False",
            "Global.x=1",
        ),
    ),
    (
        "export",
        dict(gpu_list="gpu_list:0"),
        {},
        "norm_train-gpus_0-fp32::export",
        (
            "py",
            "tools/export_model.py",
            "-c",
            YML,
            "-o",
            f"Global.checkpoints={S0}/latest",
            f"Global.save_inference_dir={S0}",
        ),
    ),
    (
        "infer-gpu",
        dict(gpu_list="gpu_list:0", infer_param1="--rec_algorithm:CRNN"),
        {},
        "norm_train-gpus_0-fp32::infer[gpu-trt_False-fp32-bs1]",
        (
            *PREDICT,
            "--use_gpu=True",
            "--use_tensorrt=False",
            "--precision=fp32",
            f"--rec_model_dir={S0}/Student",
            "--rec_batch_num=1",
            "--image_dir=./inference/rec_inference",
            "--benchmark=True",
            "--rec_algorithm=CRNN",
        ),
    ),
    (
        "infer-cpu",
        dict(gpu_list="gpu_list:0", infer_param1="--rec_algorithm:CRNN"),
        {},
        "norm_train-gpus_0-fp32::infer[cpu-mkldnn_False-threads_6-fp32-bs1]",
        (
            *PREDICT,
            "--use_gpu=False",
            "--enable_mkldnn=False",
            "--cpu_threads=6",
            f"--rec_model_dir={S0}/Student",
            "--rec_batch_num=1",
            "--image_dir=./inference/rec_inference",
            "--benchmark=True",
            "--precision=fp32",
            "--rec_algorithm=CRNN",
        ),
    ),
    (
        "infer-no-subdir-no-benchmark",
        dict(
            gpu_list="gpu_list:0",
            inference_dir="inference_dir:null",
            benchmark="--benchmark:null",
            infer_use_gpu="--use_gpu:False",
        ),
        {},
        "norm_train-gpus_0-fp32::infer[cpu-mkldnn_False-threads_6-fp32-bs1]",
        (
            *PREDICT,
            "--use_gpu=False",
            "--enable_mkldnn=False",
            "--cpu_threads=6",
            f"--rec_model_dir={S0}",
            "--rec_batch_num=1",
            "--image_dir=./inference/rec_inference",
            "--precision=fp32",
        ),
    ),
    (
        "infer-save-log-never-emitted",
        dict(gpu_list="gpu_list:0", save_log="--save_log_path:./test/output/", infer_use_gpu="--use_gpu:False"),
        {},
        "norm_train-gpus_0-fp32::infer[cpu-mkldnn_False-threads_6-fp32-bs1]",
        (
            *PREDICT,
            "--use_gpu=False",
            "--enable_mkldnn=False",
            "--cpu_threads=6",
            f"--rec_model_dir={S0}/Student",
            "--rec_batch_num=1",
            "--image_dir=./inference/rec_inference",
            "--benchmark=True",
            "--precision=fp32",
        ),
    ),
]


@pytest.mark.parametrize("lines, options, stage, argv", [c[1:] for c in OTHER_CASES], ids=[c[0] for c in OTHER_CASES])
def test_eval_export_infer_argv(lines, options, stage, argv):
    assert make_plan(options=options, **lines).stage(stage).argv == argv


W = "./test_tipc/output/rec/whole_infer"
WHOLE = dict(
    infer_model="infer_model:./inference/a_train/best|./inference/b_infer",
    infer_export="infer_export:tools/export_model.py -c a.yml -o|null",
    infer_quant="infer_quant:False|True",
    precision="--precision:fp32|int8",
    use_tensorrt="--use_tensorrt:True",
    infer_use_gpu="--use_gpu:True",
)


@pytest.mark.parametrize(
    "stage, argv",
    [
        (
            "infer_model_0::export",
            (
                "py",
                "tools/export_model.py",
                "-c",
                "a.yml",
                "-o",
                "Global.checkpoints=./inference/a_train/best",
                "Global.save_inference_dir=./inference/a_train/best",
            ),
        ),
        (
            "infer_model_0::infer[gpu-trt_True-fp32-bs1]",
            (
                *PREDICT,
                "--use_gpu=True",
                "--use_tensorrt=True",
                "--precision=fp32",
                "--rec_model_dir=./inference/a_train/best",
                "--rec_batch_num=1",
                "--image_dir=./inference/rec_inference",
                "--benchmark=True",
            ),
        ),
        (
            "infer_model_1::infer[gpu-trt_True-int8-bs1]",
            (
                *PREDICT,
                "--use_gpu=True",
                "--use_tensorrt=True",
                "--precision=int8",
                "--rec_model_dir=./inference/b_infer",
                "--rec_batch_num=1",
                "--image_dir=./inference/rec_inference",
                "--benchmark=True",
            ),
        ),
    ],
    ids=["export-into-itself", "infer-exported", "infer-quant-int8"],
)
def test_whole_infer_argv(stage, argv):
    plan = make_plan("whole_infer", image_dir="--image_dir:./inference/rec_inference", **WHOLE)
    assert plan.stage(stage).argv == argv


def test_whole_infer_stages_and_quant_pairing():
    plan = make_plan("whole_infer", **WHOLE)
    assert [s.id for s in plan.stages()] == [
        "infer_model_0::export",
        "infer_model_0::infer[gpu-trt_True-fp32-bs1]",
        "infer_model_1::infer[gpu-trt_True-fp32-bs1]",
        "infer_model_1::infer[gpu-trt_True-int8-bs1]",
    ]
    assert [(s.id, s.reason) for s in plan.skipped] == [
        ("infer_model_0::infer[gpu-trt_True-int8-bs1]", "int8 on GPU needs a quant model (precision=int8)")
    ]


# The bash's own results_python.log lines for gpu_list -1 (PaddleOCR at 4112fb34, recorded).
F = "./test_tipc/output/PP-OCRv3_mobile_rec/lite_train_lite_infer"
FS = f"{F}/norm_train_gpus_-1_autocast_fp32"
FYML = "test_tipc/configs/PP-OCRv3_mobile_rec/PP-OCRv3_mobile_rec_distillation.yml"
FIXTURE_LINES = dict(
    model_name="model_name:PP-OCRv3_mobile_rec",
    python="python:python",
    gpu_list="gpu_list:-1",
    train_use_gpu="Global.use_gpu:False",
    norm_train=f"norm_train:tools/train.py -c {FYML} -o Global.print_batch_step=1 Train.loader.shuffle=false",
    norm_export=f"norm_export:tools/export_model.py -c {FYML} -o ",
    infer_use_gpu="--use_gpu:False",
)
LEGACY = {
    "train": (
        f"python tools/train.py -c {FYML} -o Global.print_batch_step=1 Train.loader.shuffle=false "
        f"Global.use_gpu=False  Global.save_model_dir={FS} Global.epoch_num=3    "
        f"Train.loader.batch_size_per_card=16    ",
        f"{FS}.log",
    ),
    # The value's trailing space survives into the text, as in the bash ("-o  Global...").
    "export": (
        f"python tools/export_model.py -c {FYML} -o  Global.checkpoints={FS}/latest "
        f"Global.save_inference_dir={FS} > {FS}_nodes_1_export.log 2>&1 ",
        f"{FS}_nodes_1_export.log",
    ),
    "infer[cpu-mkldnn_False-threads_6-fp32-bs1]": (
        f'python tools/infer/predict_rec.py --rec_image_shape="3,48,320" --use_gpu=False --enable_mkldnn=False '
        f"--cpu_threads=6 --rec_model_dir={FS}/Student --rec_batch_num=1   --image_dir=./inference/rec_inference "
        f"--benchmark=True --precision=fp32   > "
        f"{F}/python_infer_cpu_gpus_-1_usemkldnn_False_threads_6_precision_fp32_batchsize_1.log 2>&1 ",
        f"{F}/python_infer_cpu_gpus_-1_usemkldnn_False_threads_6_precision_fp32_batchsize_1.log",
    ),
}


@pytest.mark.parametrize("name", LEGACY, ids=str)
def test_legacy_command_matches_the_bash(name):
    plan = build_plan(make_config(**FIXTURE_LINES), PlanOptions("lite_train_lite_infer", python="python"))
    stage = plan.stage(f"norm_train-gpus_-1-fp32::{name}")
    assert (stage.legacy_command, stage.legacy_log) == LEGACY[name]


@pytest.mark.parametrize(
    "lines, chain, text",
    [
        (
            dict(gpu_list="gpu_list:0,1", train_use_gpu="Global.use_gpu:True"),
            "norm_train-gpus_0,1-fp32",
            f"py -m paddle.distributed.launch --gpus=0,1 --log_dir={L}/norm_train_gpus_0,1_autocast_fp32_launch_log "
            f"{' '.join(NORM)} Global.use_gpu=True {save('norm_train_gpus_0,1_autocast_fp32')} Global.epoch_num=3    "
            f"Train.loader.batch_size_per_card=16    ",
        ),
        (
            dict(gpu_list="gpu_list:a,b;0,1", train_use_gpu="Global.use_gpu:True", autocast="Global.auto_cast:amp"),
            "norm_train-gpus_0,1-amp-nodes_2",
            f"py -m paddle.distributed.launch --ips=a,b --gpus=0,1 "
            f"--log_dir={L}/norm_train_gpus_0,1_autocast_amp_nodes_2_launch_log {' '.join(NORM)} Global.use_gpu=True "
            f"{save('norm_train_gpus_0,1_autocast_amp_nodes_2')}   Global.epoch_num=3  Train.loader.batch_size_per_card=16 "
            f"{' '.join(AMP)}  ",
        ),
        (
            dict(gpu_list="gpu_list:0", trainer="trainer:to_static_train"),
            "to_static_train-gpus_0-fp32",
            f"py {' '.join(NORM)}  Global.to_static=true Global.use_gpu=True  {save('to_static_train_gpus_0_autocast_fp32')} "
            f"Global.epoch_num=3    Train.loader.batch_size_per_card=16    ",
        ),
    ],
    ids=["launch", "multi-node-pretrain-before-epoch", "to_static-two-spaces"],
)
def test_legacy_train_templates(lines, chain, text):
    assert make_plan(to_static=True, **lines).stage(f"{chain}::train").legacy_command == text
