"""The reference target's scripts, run for real: train → eval → export → predict, and a 2-process launch.

These train a real paddle model on a few dozen synthetic images (slow: ~1 minute in all).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tipc.dialects.paddleocr.prepare.styles import TextStyle
from tipc.dialects.paddleocr.prepare.writer import write_images, write_labelled_set
from tipc.metrics import extract

pytestmark = pytest.mark.slow  # `make test` (xdist loadfile) runs the module on one worker: one training

TINYREC = Path(__file__).resolve().parents[2] / "examples" / "tinyrec"
DICT = TINYREC / "tinyrec" / "en_dict.txt"
YML = "configs/rec_tiny_distillation.yml"
INFER_IMAGES = 8


def run(argv: list[str], cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PADDLE_", "FLAGS_"))}
    done = subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    (cwd / f"{Path(argv[0]).stem}.{done.returncode}.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    return done


def tool(script: str, yml_overrides: list[str]) -> list[str]:
    return [str(TINYREC / script), "-c", str(TINYREC / YML), "-o", f"Global.character_dict_path={DICT}", *yml_overrides]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """Data where the yml looks for it (cwd-relative), as ``tipc prepare`` lays it out."""
    root = tmp_path_factory.mktemp("tinyrec")
    charset = "".join(DICT.read_text(encoding="utf-8").split())
    data = root / "train_data" / "ic15_data"
    style = TextStyle(charset, image_height=32, min_len=3, max_len=8)
    write_labelled_set(style, data, data / "rec_gt_train.txt", 48, seed=1)
    write_labelled_set(style, data, data / "rec_gt_test.txt", 16, seed=2)
    write_images(style, root / "inference" / "rec_inference", INFER_IMAGES, seed=3)
    return root


@pytest.fixture(scope="module")
def trained(workdir) -> tuple[Path, subprocess.CompletedProcess]:
    save = workdir / "output" / "norm_train"
    done = run(
        tool(
            "tools/train.py",
            [
                "Global.print_batch_step=1",
                "Train.loader.shuffle=false",
                "Global.use_gpu=False",
                f"Global.save_model_dir={save}",
                "Global.epoch_num=2",
                "Train.loader.batch_size_per_card=16",
            ],
        ),
        workdir,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return save, done


@pytest.fixture(scope="module")
def exported(workdir, trained) -> Path:
    save, _ = trained
    done = run(
        tool("tools/export_model.py", [f"Global.checkpoints={save}/latest", f"Global.save_inference_dir={save}"]),
        workdir,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return save


def test_train_saves_checkpoint_and_logs_steps(trained):
    save, done = trained
    for name in ("latest.pdparams", "latest.pdopt", "latest.states", "config.yml", "train.log"):
        assert (save / name).is_file(), name
    metrics = extract("train", (save / "train.log").read_text(encoding="utf-8"))
    assert metrics["steps"] == 2 * math.ceil(48 / 16)
    assert metrics["ips"] > 0 and metrics["loss"] > 0
    assert "epoch: [2/2], global_step: 6, lr: " in done.stdout


def test_eval_prints_student_and_teacher_metrics(workdir, trained):
    save, _ = trained
    done = run(tool("tools/eval.py", [f"Global.pretrained_model={save}/latest", "Global.use_gpu=False"]), workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = extract("eval", done.stdout)
    assert {"acc", "norm_edit_dis", "Teacher_acc", "Teacher_norm_edit_dis", "fps"} <= set(metrics)
    assert 0 <= metrics["acc"] <= 1


@pytest.mark.parametrize("suffix", ["", ".pdparams"], ids=["prefix", "file"])
def test_the_shipped_weights_load_in_both_path_forms_and_read_unseen_lines(workdir, suffix):
    """The configs' lite modes start from pretrained/ (a prefix, as PaddleOCR's ``best_accuracy``, or
    the file): the yml's model takes the weights by name and shape, and they read lines they never saw."""
    weights = TINYREC / "pretrained" / f"rec_tiny_distillation{suffix}"
    done = run(tool("tools/eval.py", [f"Global.pretrained_model={weights}", "Global.use_gpu=False"]), workdir)
    assert done.returncode == 0, done.stderr[-3000:]
    metrics = extract("eval", done.stdout)
    assert metrics["acc"] >= 0.8 and metrics["Teacher_acc"] >= 0.8, metrics


def test_export_writes_one_model_per_submodel(exported):
    for sub in ("Student", "Teacher"):
        assert (exported / sub / "inference.json").is_file()
        assert (exported / sub / "inference.pdiparams").stat().st_size > 10_000
    assert "character_dict" in (exported / "inference.yml").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("batch", "mkldnn", "precision"),
    [(1, False, "fp32"), (6, False, "fp32"), (6, True, "fp32"), (6, True, "fp16")],
    ids=["bs1", "bs6", "bs6-mkldnn", "bs6-mkldnn-fp16-is-bf16"],
)
def test_predict_prints_results_and_benchmark_block(workdir, exported, batch, mkldnn, precision):
    done = run(
        [
            str(TINYREC / "tools/infer/predict_rec.py"),
            "--rec_image_shape=3,32,100",
            "--use_gpu=False",
            f"--enable_mkldnn={mkldnn}",
            "--cpu_threads=2",
            f"--rec_model_dir={exported}/Student",
            f"--rec_batch_num={batch}",
            "--image_dir=./inference/rec_inference",
            "--benchmark=True",
            f"--precision={precision}",
            "--use_tensorrt=False",
        ],
        workdir,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.count("ppocr INFO: Predicts of ") == INFER_IMAGES
    figures = extract("infer", done.stdout)
    assert figures["batch_size"] == batch
    assert figures["data_num"] == math.ceil(INFER_IMAGES / batch)  # batches, as AutoLog counts
    assert (figures["precision"], figures["runtime_device"], figures["model_name"]) == (precision, "cpu", "rec")
    assert (figures["enable_mkldnn"], figures["cpu_threads"], figures["enable_tensorrt"]) == (mkldnn, 2, False)
    assert figures["paddle_version"] and figures["gpu_rss_mb"] is None
    assert figures["inference_ms"] > 0 and figures["cpu_rss_mb"] > 100


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            [
                "tools/infer/predict_rec.py",
                "--use_gpu=True",
                "--image_dir=./inference/rec_inference",
                "--rec_model_dir=./missing",
            ],
            "--use_gpu=True but this paddle build has no CUDA",
        ),
        (
            [
                "tools/infer/predict_rec.py",
                "--use_gpu=False",
                "--image_dir=./inference/rec_inference",
                "--rec_model_dir=./missing",
            ],
            "--rec_model_dir ./missing: no inference.json",
        ),
        (
            ["tools/train.py", "-c", YML, "-o", "Global.use_gpu=True", "Global.save_model_dir=./output/gpu"],
            "Global.use_gpu=True but this paddle build has no CUDA",
        ),
        (
            [
                "tools/train.py",
                "-c",
                YML,
                "-o",
                "Global.pretrained_model=./missing",
                "Global.save_model_dir=./output/m",
                f"Global.character_dict_path={DICT}",
            ],
            "weights not found: missing.pdparams",
        ),
    ],
    ids=[
        "predict-use-gpu-on-cpu-build",
        "predict-missing-model",
        "train-use-gpu-on-cpu-build",
        "train-missing-pretrained-model",
    ],
)
def test_failures_exit_non_zero_with_a_clear_message(workdir, argv, message):
    script, *rest = argv
    rest = [str(TINYREC / a) if a == YML else a for a in rest]
    done = run([str(TINYREC / script), *rest], workdir)
    assert done.returncode != 0
    assert message in done.stdout + done.stderr


def test_checkpoints_resume_where_pretrained_model_starts_over(workdir, trained):
    """PaddleOCR's split: Global.checkpoints resumes (weights, optimizer, epoch and step counters),
    Global.pretrained_model loads the weights only and trains from epoch 1."""
    save, _ = trained
    resumed = run(
        tool(
            "tools/train.py",
            [
                "Global.print_batch_step=1",
                "Global.use_gpu=False",
                f"Global.checkpoints={save}/latest",
                "Global.epoch_num=3",
                f"Global.save_model_dir={workdir / 'output' / 'resumed'}",
                "Train.loader.batch_size_per_card=16",
            ],
        ),
        workdir,
    )
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert f"resume from {save}/latest" in resumed.stdout
    assert "epoch: [1/3]" not in resumed.stdout and "epoch: [2/3]" not in resumed.stdout
    assert "epoch: [3/3], global_step: 7, " in resumed.stdout  # 2 epochs × 3 steps were done before
    warm = run(
        tool(
            "tools/train.py",
            [
                "Global.print_batch_step=1",
                "Global.use_gpu=False",
                f"Global.pretrained_model={save}/latest",
                "Global.epoch_num=1",
                f"Global.save_model_dir={workdir / 'output' / 'warm'}",
                "Train.loader.batch_size_per_card=16",
            ],
        ),
        workdir,
    )
    assert warm.returncode == 0, warm.stdout[-3000:] + warm.stderr[-3000:]
    assert f"load pretrain successful from {save}/latest" in warm.stdout
    assert "epoch: [1/1], global_step: 1, " in warm.stdout


def test_amp_to_static_and_print_batch_step(workdir):
    """The AMP overrides tipc adds for autocast=amp and to_static_train's override run on CPU:
    AMP says it is a no-op there, to_static traces the model; print_batch_step=2 over 3 steps
    logs steps 2 and 3 (the last step of an epoch is always logged)."""
    save = workdir / "output" / "amp_static"
    done = run(
        tool(
            "tools/train.py",
            [
                "Global.print_batch_step=2",
                "Global.use_gpu=False",
                "Global.use_amp=True",
                "Global.scale_loss=1024.0",
                "Global.use_dynamic_loss_scaling=True",
                "Global.to_static=true",
                f"Global.save_model_dir={save}",
                "Global.epoch_num=1",
                "Train.loader.batch_size_per_card=16",
            ],
        ),
        workdir,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "AMP is a no-op on CPU" in done.stdout
    assert "paddle.jit.to_static" in done.stdout
    steps = [
        line.split("global_step: ")[1].split(",")[0] for line in done.stdout.splitlines() if "global_step: " in line
    ]
    assert steps == ["2", "3"]
    assert (save / "latest.pdparams").is_file()


def test_two_process_launch_saves_on_rank_zero_only(workdir):
    save = workdir / "output" / "nproc2"
    log_dir = workdir / "launch_log"
    done = run(
        [
            "-m",
            "paddle.distributed.launch",
            "--nproc_per_node=2",
            f"--log_dir={log_dir}",
            *tool(
                "tools/train.py",
                [
                    "Global.print_batch_step=1",
                    "Global.use_gpu=False",
                    f"Global.save_model_dir={save}",
                    "Global.epoch_num=1",
                    "Train.loader.batch_size_per_card=8",
                ],
            ),
        ],
        workdir,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (save / "latest.pdparams").is_file() and (save / "config.yml").is_file()
    rank0 = (log_dir / "workerlog.0").read_text(encoding="utf-8")
    rank1 = (log_dir / "workerlog.1").read_text(encoding="utf-8")
    assert "save model in" in rank0 and "save model in" not in rank1
    assert "global_step:" not in rank1
    # 48 images over 2 ranks at batch 8: 3 steps, logged once (by rank 0) in train.log
    assert extract("train", (save / "train.log").read_text(encoding="utf-8"))["steps"] == 3
