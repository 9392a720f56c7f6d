"""Plan-level behaviour: chain order, modes, notes, log de-duplication, options, errors."""

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from tests.support.config_text import config_text
from tests.support.plan_factory import PATH, make_config, make_plan
from tipc.config.locate import find_configs
from tipc.config.modes import parse_mode
from tipc.dialects.paddleocr.config import load_any_config, load_config, parse_config_text
from tipc.dialects.paddleocr.config.formats import PADDLEOCR_MODES, config_modes
from tipc.dialects.paddleocr.plan import build_plan
from tipc.errors import ConfigError
from tipc.plan import PlanOptions


def test_chain_order_is_gpu_then_autocast_then_trainer():
    plan = make_plan(to_static=True, autocast="Global.auto_cast:fp32|amp", trainer="trainer:norm_train|to_static_train")
    assert [(c.id, c.trainer, c.autocast, c.topology.entry) for c in plan.chains] == [
        ("norm_train-gpus_0-fp32", "norm_train", "fp32", "0"),
        ("to_static_train-gpus_0-fp32", "to_static_train", "fp32", "0"),
        ("norm_train-gpus_0-amp", "norm_train", "amp", "0"),
        ("to_static_train-gpus_0-amp", "to_static_train", "amp", "0"),
        ("norm_train-gpus_0,1-fp32", "norm_train", "fp32", "0,1"),
        ("to_static_train-gpus_0,1-fp32", "to_static_train", "fp32", "0,1"),
        ("norm_train-gpus_0,1-amp", "norm_train", "amp", "0,1"),
        ("to_static_train-gpus_0,1-amp", "to_static_train", "amp", "0,1"),
    ]


# benchmark_train: its own test_benchmark.py; paddle2onnx_infer: tests/plan/test_paddle2onnx.py
@pytest.mark.parametrize("mode", [m for m in PADDLEOCR_MODES if m != "benchmark_train"])
def test_every_mode_plans(mode):
    plan = make_plan(mode)
    assert plan.mode == mode and plan.output_dir == f"./test_tipc/output/rec/{mode}"
    kinds = {s.kind.value for s in plan.stages()}
    assert kinds == ({"infer"} if mode == "whole_infer" else {"train", "export", "infer"})


def test_infer_logs_that_would_overwrite_each_other_get_prefixes():
    plan = make_plan(gpu_list="gpu_list:0", autocast="Global.auto_cast:fp32|amp", infer_use_gpu="--use_gpu:True")
    logs = [s.log for s in plan.stages() if s.kind.value == "infer"]
    out = "./test_tipc/output/rec/lite_train_lite_infer"
    assert logs == [
        f"{out}/norm_train_autocast_fp32_python_infer_gpu_gpus_0_usetrt_False_precision_fp32_batchsize_1.log",
        f"{out}/norm_train_autocast_amp_python_infer_gpu_gpus_0_usetrt_False_precision_fp32_batchsize_1.log",
    ]
    assert [s.legacy_command.split(" > ")[1] for s in plan.stages() if s.kind.value == "infer"] == [
        f"{log} 2>&1 " for log in logs
    ]
    assert any("infer logs would overwrite each other" in n for n in plan.notes)


def test_one_chain_per_gpu_entry_keeps_the_bash_names():
    plan = make_plan(infer_use_gpu="--use_gpu:True")
    assert [s.log.rsplit("/", 1)[1] for s in plan.stages() if s.kind.value == "infer"] == [
        "python_infer_gpu_gpus_0_usetrt_False_precision_fp32_batchsize_1.log",
        "python_infer_gpu_gpus_0,1_usetrt_False_precision_fp32_batchsize_1.log",
    ]
    assert not any("overwrite" in n for n in plan.notes)


def test_whole_infer_models_get_prefixes_when_sharing_names():
    plan = make_plan("whole_infer", infer_model="infer_model:./a|./b", infer_use_gpu="--use_gpu:False")
    assert [s.log.rsplit("/", 1)[1] for s in plan.stages()] == [
        "infer_model_0_python_infer_cpu_gpus_0_usemkldnn_False_threads_6_precision_fp32_batchsize_1.log",
        "infer_model_1_python_infer_cpu_gpus_0_usemkldnn_False_threads_6_precision_fp32_batchsize_1.log",
    ]


@pytest.mark.parametrize(
    "options, label",
    [
        ({}, "0"),
        (dict(whole_infer_gpu="2"), "2"),
        (dict(device="cpu"), "-1"),
    ],
    ids=["bash-default", "gpu-arg", "cpu"],
)
def test_whole_infer_log_names_follow_the_gpu(options, label):
    plan = make_plan("whole_infer", options=options, infer_use_gpu="--use_gpu:False")
    assert next(plan.stages()).log.endswith(
        f"_cpu_gpus_{label}_usemkldnn_False_threads_6_precision_fp32_batchsize_1.log"
    )


@pytest.mark.parametrize(
    "mode, lines, note",
    [
        (
            "lite_train_whole_infer",
            {},
            "lite_train_whole_infer: Global.epoch_num (line 7) has no lite_train_whole_infer "
            "value; using the lite_train_lite_infer value 3",
        ),
        (
            "whole_train_whole_infer",
            dict(train_batch="Train.loader.batch_size_per_card:lite_train_lite_infer=16"),
            "whole_train_whole_infer: Train.loader.batch_size_per_card (line 9) has no value for this mode; "
            "the override is dropped (the yml's value applies)",
        ),
        ("lite_train_lite_infer", {}, "python: py (from --python)"),
    ],
    ids=["fallback", "dropped", "python"],
)
def test_notes(mode, lines, note):
    assert note in make_plan(mode, **lines).notes


def test_cpu_note_and_ips_ignored_note():
    notes = make_plan(options=dict(device="cpu", ips=("x", "y"))).notes
    assert any(n.startswith("device cpu: training runs as CPU processes") for n in notes)
    assert "--ips ignored: no gpu_list entry (line 4) is multi-node" in notes


@pytest.mark.parametrize(
    ("options", "noted"),
    [(dict(device="cpu"), True), (dict(device="gpu"), False)],
    ids=["gpu-ids-become-cpu-processes", "gpus-stay-gpus"],
)
def test_gpu_ids_turned_into_cpu_processes_note_the_memory_they_multiply(options, noted):
    notes = make_plan(options=options).notes  # gpu_list 0|0,1
    expected = (
        "device cpu: gpu_list 0,1 trains as 2 CPU processes on this node (--nproc_per_node=2): each holds the "
        "model and its data loader, so that training needs about 2× the memory of one process"
    )
    assert (expected in notes) is noted
    assert not any("gpu_list 0 trains" in n for n in notes)  # one process: nothing multiplied


def test_config_notes_are_carried():
    text = config_text().replace("pact_train:null\n", "")
    plan = build_plan(parse_config_text(text, PATH), PlanOptions("lite_train_lite_infer", python="py"))
    assert any("pact_train" in n for n in plan.notes)


@pytest.mark.parametrize(
    "options, output_dir",
    [
        (dict(node_rank=1), "./test_tipc/output/rec/lite_train_lite_infer/node1"),
        (dict(output_root="/tmp/out/"), "/tmp/out/rec/lite_train_lite_infer"),
    ],
    ids=["node-rank", "output-root"],
)
def test_output_dir(options, output_dir):
    plan = make_plan(options=options, gpu_list="gpu_list:0")
    assert plan.output_dir == output_dir
    assert plan.chains[0].save_dir == f"{output_dir}/norm_train_gpus_0_autocast_fp32"


def test_repo_is_every_stage_cwd():
    plan = make_plan(options=dict(repo="/r"))
    assert plan.cwd == "/r" and {s.cwd for s in plan.stages()} == {"/r"}


def test_config_sha256(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(config_text())
    plan = build_plan(load_config(path), PlanOptions("whole_infer", python="py"))
    assert plan.config_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert make_plan().config_sha256 == ""  # no such file: nothing to hash


@pytest.mark.parametrize(
    "lines, message",
    [
        (dict(gpu_list="gpu_list:0|0"), "cfgs/rec/train_infer_python.txt:4: gpu_list: '0' repeats '0'"),
        (
            dict(gpu_list="gpu_list:0|h;0"),
            "cfgs/rec/train_infer_python.txt:4: gpu_list: two entries name the same runs",
        ),
        (
            dict(trainer="trainer:norm_train|norm_train"),
            "cfgs/rec/train_infer_python.txt:15: trainer: 'norm_train' repeats",
        ),
        (
            dict(autocast="Global.auto_cast:amp|amp"),
            "cfgs/rec/train_infer_python.txt:6: Global.auto_cast: 'amp' repeats",
        ),
        (dict(gpu_list="gpu_list:0|x"), "cfgs/rec/train_infer_python.txt:4: gpu_list: entry 'x': expected -1"),
    ],
    ids=["repeated-entry", "same-runs", "repeated-trainer", "repeated-autocast", "bad-entry"],
)
def test_errors_name_file_and_line(lines, message):
    with pytest.raises(ConfigError) as err:
        make_plan(**lines)
    assert str(err.value).startswith(message)


def test_unknown_mode():
    with pytest.raises(ConfigError) as err:
        build_plan(make_config(), PlanOptions("benchmark_infer"))
    assert str(err.value) == (
        "cfgs/rec/train_infer_python.txt: unknown mode 'benchmark_infer': expected one of "
        "lite_train_lite_infer, lite_train_whole_infer, whole_train_whole_infer, whole_infer, benchmark_train, "
        "paddle2onnx_infer, klquant_whole_infer"
    )


def test_validate_mode_accepts_the_four():
    for mode in PADDLEOCR_MODES:
        parse_mode(mode, "c.txt")


def written_files(plan) -> list[str]:
    """Every file a stage writes its story into: its log, and for a train the S.log copy."""
    return [path for s in plan.stages() for path in {s.log, s.legacy_log, *(s.copy_train_log or ())[1:]}]


WIDE = dict(
    gpu_list="gpu_list:-1|0|0,1|a,b;0,1|c,d;0",
    train_use_gpu="Global.use_gpu:False|True|True|True|True",
    autocast="Global.auto_cast:fp32|amp",
    trainer="trainer:norm_train|pact_train|fpgm_train|to_static_train",
    pact_train="pact_train:tools/train.py -c q.yml -o",
    fpgm_train="fpgm_train:tools/train.py -c f.yml -o",
    quant_export="quant_export:tools/export_model.py -c q.yml -o",
    fpgm_export="fpgm_export:tools/export_model.py -c f.yml -o",
    eval="eval:tools/eval.py -c e.yml -o",
    batch_size="--rec_batch_num:1|6",
    precision="--precision:fp32|int8",
    enable_mkldnn="--enable_mkldnn:False|True",
)


@pytest.mark.parametrize(
    "mode, lines, chains",
    [
        ("lite_train_lite_infer", WIDE, 5 * 2 * 4),
        (
            "whole_infer",
            dict(
                infer_model="infer_model:./a|./b|./c",
                infer_export="infer_export:null|tools/export_model.py -o|tools/export_model.py -o",
                infer_quant="infer_quant:False|True|False",
            ),
            3,
        ),
    ],
    ids=["gpu-entries-x-autocast-x-trainers", "whole-infer-models"],
)
def test_no_log_overwrites_another(mode, lines, chains):
    plan = make_plan(mode, to_static=True, **lines)
    files = written_files(plan)
    assert len(plan.chains) == chains
    assert len(files) == len(set(files)), [f for f, n in Counter(files).items() if n > 1][:3]


def test_no_log_overwrites_another_in_any_shipped_plan():
    for path in find_configs(Path(__file__).resolve().parents[2] / "test_configs"):
        config = load_any_config(path)
        for mode in config_modes(config):
            files = written_files(build_plan(config, PlanOptions(mode, python="py")))
            assert len(files) == len(set(files)), (path, mode)
