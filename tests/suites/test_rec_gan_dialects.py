"""The PaddleRec and PaddleGAN dialects (``tipc/dialects/``): registered as plugins are, what their plans do where the
snapshots' configs never go (CPU runs, launches), their tags, and what their predictors' output reads as.
Their parity with each suite's own bash is ``test_parity.py``'s."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Literal

import pytest

from tipc.config.modes import Mode
from tipc.dialects import paddlegan, paddlerec
from tipc.dialects.paddlegan.predictions import metric_lines, metrics
from tipc.dialects.paddlerec.predictions import batch_lines
from tipc.plan.model import Plan, PlanOptions
from tipc.results.records import StageRecord, Status
from tipc.suites.sweep import gpu_dropped
from tipc.suites.variants import apply_variant

ROOT = Path(__file__).resolve().parents[2]
Device = Literal["auto", "cpu", "gpu", "npu", "xpu"]
DIALECTS = {"paddlerec": paddlerec.PADDLEREC, "paddlegan": paddlegan.PADDLEGAN}


def rec_config(gpu_list: str = "0", inference: str = "-u tools/infer.py --model_name=m") -> str:
    """A config in PaddleRec's layout (51 lines read by position), for a made-up model."""
    train = [
        "model_name:m", "python:python3", f"gpu_list:{gpu_list}", "runner.use_gpu:True|True", "auto_cast:False",
        "runner.epochs:lite_train_lite_infer=2", "runner.model_save_path",
        "runner.train_batch_size:lite_train_lite_infer=4", "runner.infer_load_path:null",
        "train_model_name:lite_train_lite_infer=1", "runner.test_data_dir:data/infer", "null:null", "##",
        "trainer:norm_train", "norm_train:-u tools/trainer.py -m m.yaml -o p=1", "pact_train:null", "fpgm_train:null",
        "distill_train:null", "null:null", "null:null", "##",
    ]  # fmt: skip
    evaluate = ["===eval_params===", "eval:null", "null:null", "##"]
    infer = [
        "runner.model_save_path:", "runner.model_init_path:", "norm_export:-u tools/to_static.py -m m.yaml",
        "quant_export:null", "fpgm_export:null", "distill_export:null", "null:null", "null:null", "##",
        "infer_model:saved_m", "infer_export:null", "infer_quant:False", f"inference:{inference}",
        "--use_gpu:True|False", "--enable_mkldnn:False", "--cpu_threads:1", "--batchsize:2",
        "--enable_tensorRT:False", "--precision:fp32", "--model_dir:", "--data_dir:data/infer",
        "--save_log_path:./out", "--benchmark:False", "null:null",
    ]  # fmt: skip
    return "\n".join(["===train_params===", *train, *evaluate, "===infer_params===", *infer]) + "\n"


def plan_of(
    tmp_path: Path, text: str, mode: str = "lite_train_lite_infer", device: Device = "gpu", name: str = "paddlerec"
) -> Plan:
    config = tmp_path / "train_infer_python.txt"
    config.write_text(text)
    dialect = DIALECTS[name]
    options = PlanOptions(Mode(mode), repo=str(tmp_path), python="py", device=device)
    return dialect.build(dialect.load(str(config)), options, lambda name: "")


def test_a_cpu_run_trains_with_use_gpu_false_and_skips_the_gpu_cells(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, rec_config(), device="cpu")
    train, export, infer = plan.stages()
    assert "runner.use_gpu=False" in train.argv and "runner.epochs=2" in train.argv
    assert train.outputs == (f"{plan.output_dir}/norm_train_gpus_0_autocast_False_nodes_1.log/1/rec.pdparams",)
    assert export.argv[-3:] == (
        f"runner.model_init_path={plan.output_dir}/norm_train_gpus_0_autocast_False_nodes_1.log/1",
        f"runner.model_save_path={plan.output_dir}/norm_train_gpus_0_autocast_False_nodes_1.log",
        "runner.use_gpu=False",  # to_static.py takes the yaml's use_gpu otherwise, which a CPU-only Paddle refuses
    )
    assert infer.argv[4:6] == ("--use_gpu=False", "--enable_mkldnn=False")
    assert [s.reason for s in plan.skipped] == ["no GPU on this node (device cpu)"]


@pytest.mark.parametrize(
    ("mode", "device", "cpu_export"),
    [
        ("lite_train_lite_infer", "cpu", True),
        ("lite_train_lite_infer", "gpu", False),
        ("whole_infer", "cpu", True),
        ("whole_infer", "gpu", False),
    ],
)
def test_paddlerecs_export_runs_on_the_cpu_only_on_a_cpu_run(
    tmp_path: Path, mode: str, device: Device, cpu_export: bool
) -> None:
    text = rec_config().replace("infer_export:null", "infer_export:-u tools/to_static.py -m m.yaml")
    export = next(s for s in plan_of(tmp_path, text, mode, device).stages() if s.name == "export")
    assert ("runner.use_gpu=False" in export.argv) == cpu_export


def test_a_multi_gpu_entry_on_one_node_is_skipped_saying_why_and_a_node_list_launches(tmp_path: Path) -> None:
    """PaddleRec's bash trains such an entry with the parameter-server commands its train modes never set."""
    plan = plan_of(tmp_path, rec_config("0,1"))
    assert not plan.chains and "parameter-server commands" in plan.skipped[0].reason
    # Two nodes whatever the addresses' length (the bash took 26 characters or fewer for one node).
    for ips in ("192.168.100.101,192.168.100.102", "10.0.0.1,10.0.0.2"):
        launched = plan_of(tmp_path, rec_config(f"{ips};0,1")).chains[0].stages[0]
        assert launched.argv[1:5] == ("-m", "paddle.distributed.launch", f"--ips={ips}", "--devices=0,1")


@pytest.mark.parametrize(("device", "option"), [("gpu", "--gpus=0,1"), ("npu", "--npus=0,1"), ("xpu", "--xpus=0,1")])
def test_a_paddlegan_launch_takes_the_option_its_device_script_renames(
    tmp_path: Path, device: Device, option: str
) -> None:
    """The npu and xpu scripts edit the main script's ``--gpus`` into ``--npus`` and ``--xpus``."""
    config = tmp_path / "train_infer_python.txt"
    config.write_text(rec_config("0,1"))
    dialect = paddlegan.PADDLEGAN
    loaded, _ = apply_variant(dialect.load(str(config)), dialect.name, dialect.devices, device)
    options = PlanOptions(Mode.LITE_TRAIN_LITE_INFER, repo=str(tmp_path), python="py", device=device)
    train = dialect.build(loaded, options, lambda name: "").chains[0].stages[0]
    assert train.argv[1:4] == ("-m", "paddle.distributed.launch", option)


def test_paddlerecs_device_scripts_rewrite_its_use_gpu_words_and_name_the_checkout_edits(tmp_path: Path) -> None:
    config = tmp_path / "train_infer_python.txt"
    config.write_text(rec_config())
    dialect = paddlerec.PADDLEREC
    loaded, notes = apply_variant(dialect.load(str(config)), dialect.name, dialect.devices, "xpu")
    options = PlanOptions(Mode.LITE_TRAIN_LITE_INFER, repo=str(tmp_path), python="py", device="xpu")
    train, _, infer, _ = dialect.build(loaded, options, lambda name: "").stages()
    assert "runner.use_xpu=True" in train.argv and "--use_xpu=True" in infer.argv
    assert any("to_static.py" in n and "tipc never edits the checkout" in n for n in notes)


def test_a_null_inference_script_plans_no_sweep(tmp_path: Path) -> None:
    plan = plan_of(tmp_path, rec_config(inference="null"), mode="whole_infer")
    assert not plan.chains
    assert plan.skipped[0].id == "infer_model_0::infer" and "is null" in plan.skipped[0].reason


def test_a_paddlegan_cpu_run_hides_the_gpus_and_keeps_the_bashs_deterministic_flag(tmp_path: Path) -> None:
    """Its trainer and export take no device word; the bash exports the flag before each train."""
    plan = plan_of(tmp_path, rec_config(), device="cpu", name="paddlegan")
    envs = [dict(s.env) for s in plan.stages()]
    assert [s.kind for s in plan.stages()] == ["train", "export", "infer"]
    assert all(e == {"CUDA_VISIBLE_DEVICES": "", "FLAGS_cudnn_deterministic": "True"} for e in envs), envs


@pytest.mark.parametrize(
    ("dialect", "name", "tags"),
    [
        ("paddlerec", "train_infer_python.txt", ("linux_gpu", "normal")),
        ("paddlerec", "train_infer_python_million.txt", ("linux_gpu", "normal", "million")),
        ("paddlegan", "train_linux_gpu_normal_amp_infer_python_linux_gpu_cpu.txt", ("linux_gpu", "amp")),
        ("paddlegan", "model_linux_gpu_normal_normal_infer_cpp_linux_gpu_cpu.txt", ()),
    ],
)
def test_tags_follow_the_suites_names(dialect: str, name: str, tags: tuple[str, ...]) -> None:
    assert DIALECTS[dialect].tags(name) == tags


REC_LOG = """\
[2026/01/02 03:04:05] root INFO: load model
[array([0.51234], dtype=float32)]
[np.float32(0.25), np.float32(0.75)]
[array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1. , 1.1, 1.2, 1.3,
       1.4], dtype=float32)]
./test_tipc/save_m_model
[2026-01-02 03:04:06,000] [    INFO] - preprocess_time(ms): 0.1
"""


def test_paddlerecs_printed_batches_read_in_order() -> None:
    found = batch_lines(REC_LOG.splitlines())
    assert [p.image for p in found] == ["batch 0", "batch 1", "batch 2"]
    assert [[r.score for r in p.top_k or ()] for p in found[:2]] == [[0.51234], [0.25, 0.75]]
    assert [r.class_id for r in found[1].top_k or ()] == [0, 1]
    assert len(found[2].top_k or ()) == 14 and not found[2].empty


def _gan_record(tmp_path: Path, start: float) -> StageRecord:
    argv = ("py", "tools/inference.py", "--model_type", "edvr", "--output_path", "out/", "--device=cpu")
    return StageRecord("c::infer", "infer", "c", Status.PASSED, argv=argv, cwd=str(tmp_path), start=start)


def test_paddlegans_metrics_read_from_the_file_this_stage_wrote(tmp_path: Path) -> None:
    metric = tmp_path / "out" / "edvr" / "metric.txt"
    metric.parent.mkdir(parents=True)
    metric.write_text("Metric psnr: 20.5000\nMetric ssim: 0.6000\nMetric psnr: 27.0864\nMetric ssim: 0.7835\n")
    found = metrics(_gan_record(tmp_path, time.time() - 5))
    assert [(p.key, p.text, p.score) for p in found] == [
        ("metric.txt:psnr", "psnr", 27.0864),
        ("metric.txt:ssim", "ssim", 0.7835),
    ]
    os.utime(metric, (time.time() - 3600, time.time() - 3600))  # an earlier night's file: not this stage's
    assert metrics(_gan_record(tmp_path, time.time())) == ()
    assert metrics(_gan_record(tmp_path / "nothing", time.time())) == ()
    assert metric_lines(["Inference succeeded!", "Metric fid: nan"], "m.txt")[0].text == "fid"


def test_each_dialect_package_is_a_tipc_entry_point() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    packages = sorted(p.name for p in (ROOT / "tipc" / "dialects").iterdir() if (p / "__init__.py").is_file())
    assert set(DIALECTS) <= set(packages)
    assert all(f'{name} = "tipc.dialects.{name}"' in pyproject for name in packages)


@pytest.mark.parametrize("name", sorted(DIALECTS))
def test_the_cli_detects_each_suite_from_its_checkout(tmp_path: Path, name: str) -> None:
    """Through the entry point a plugin package declares (here a site folder's, as an installed package's)."""
    site = tmp_path / "site"
    info = site / "tipc_dialect_check-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tipc-dialect-check\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[tipc]\n{name} = tipc.dialects.{name}\n")
    dialect = DIALECTS[name]
    checkout = tmp_path / "checkout"
    (checkout / dialect.markers[0]).mkdir(parents=True)
    config = checkout / "test_tipc" / "configs" / "m" / "train_infer_python.txt"
    config.parent.mkdir(parents=True)
    config.write_text(rec_config())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(ROOT)))}
    done = subprocess.run(
        [sys.executable, "-m", "tipc", "plan", "--config", str(config), "--mode", "lite_train_lite_infer"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"suite {dialect.name}: detected from the checkout's {dialect.markers[0]}/ folder" in done.stdout
    assert "tools/trainer.py" in done.stdout


@pytest.mark.parametrize(
    ("trt", "precision", "quant", "dropped"),
    [
        ("False", "fp32", "False", False),
        ("False", "fp16", "False", True),  # fp16 only with TensorRT
        ("True", "fp16", "False", False),
        ("True", "int8", "False", True),  # int8 only for a quantized model
        ("True", "int8", "True", True),  # a quantized model not in int8 on GPU
        ("True", "fp32", "True", False),
        ("False", "fp32", "True", True),  # a quantized model only with TensorRT
        ("True", "int8", "", False),  # no flag given (PaddleGAN's whole_infer): nothing dropped for it
    ],
)
def test_the_common_gpu_rule_drops_what_the_bash_skips(trt: str, precision: str, quant: str, dropped: bool) -> None:
    assert gpu_dropped(trt, precision, quant) is dropped


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("m*/*checkpoint.pdparams", False),  # the published configs' pattern: no one file to expect
        ("m-2026-12-06-08-42/epoch_10_checkpoint.pdparams", True),  # the dated folder, given with --set
    ],
)
def test_a_paddlegan_train_must_write_the_checkpoint_its_config_names_by_path(
    tmp_path: Path, name: str, written: bool
) -> None:
    text = rec_config().replace("train_model_name:lite_train_lite_infer=1", f"train_model_name:{name}")
    plan = plan_of(tmp_path, text, device="cpu", name="paddlegan")
    train, export, *_ = plan.stages()
    save = f"{plan.output_dir}/norm_train_gpus_0_autocast_False"
    assert train.outputs == ((f"{save}/{name}",) if written else ())
    assert f"{save}/{name}" in export.argv
