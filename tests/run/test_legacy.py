"""The results_python.log line, byte for byte against the bash's shape (docs/spec.md §4.2)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tipc.dialects.paddleocr.config import parse_config_text
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.plan.model import Stage, StageKind
from tipc.run import legacy

# The parse the spec gives for the bash's lines, after stripping its colour codes.
BASH_LINE = re.compile(r"^ Run (successfully|failed) with command - (?P<model>.*?) - (?P<cmd>.*) - (?P<log>\S*) $")


@pytest.mark.parametrize(
    ("ok", "expected"),
    [
        (True, b" Run successfully with command - m - python a.py  -o x=1  - ./o/S.log \n"),
        (False, b" Run failed with command - m - python a.py  -o x=1  - ./o/S.log \n"),
    ],
    ids=["success", "failure"],
)
def test_status_line_bytes(ok, expected):
    line = legacy.status_line(ok, "m", "python a.py  -o x=1 ", "./o/S.log")
    assert line.encode() == expected
    assert "\x1b" not in line
    match = BASH_LINE.match(line.rstrip("\n"))
    assert match and match["model"] == "m" and match["log"] == "./o/S.log"


def test_stage_line_uses_legacy_spelling_then_falls_back_to_argv():
    stage = Stage(
        id="c::export",
        chain="c",
        name="export",
        kind=StageKind.EXPORT,
        argv=("py", "e.py", "-o", "a b"),
        env={},
        cwd=".",
        log="./o/c_export.log",
    )
    assert (
        legacy.stage_line(True, "m", stage)
        == " Run successfully with command - m - py e.py -o 'a b' - ./o/c_export.log \n"
    )
    spelled = Stage(
        **{
            **{f: getattr(stage, f) for f in stage.__slots__},
            "legacy_command": "py e.py > x 2>&1 ",
            "legacy_log": "./o/x.log",
        }
    )
    assert legacy.stage_line(False, "m", spelled) == " Run failed with command - m - py e.py > x 2>&1  - ./o/x.log \n"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("stream_type", "expected"),
    [
        (io.StringIO, " Run successfully with command - m - c - l \n"),
        (Tty, "\x1b[33m Run successfully with command - m - c - l \x1b[0m\n"),
    ],
    ids=["pipe-plain", "tty-yellow"],
)
def test_echo_colours_only_a_tty(stream_type, expected):
    stream = stream_type()
    legacy.echo(legacy.status_line(True, "m", "c", "l"), stream)
    assert stream.getvalue() == expected


def test_tty_echo_matches_the_bash_fixture_shape():
    """The coloured echo is exactly what the bash wrote into its file."""
    bash = "\x1b[33m Run successfully with command - PP - python tools/train.py -o a=1  - ./S.log \x1b[0m\n"
    stream = Tty()
    legacy.echo(legacy.status_line(True, "PP", "python tools/train.py -o a=1 ", "./S.log"), stream)
    assert stream.getvalue() == bash


REPO = Path(__file__).resolve().parents[2]
CPU_ONLY = (
    ("gpu_list:0|0,1", "gpu_list:-1"),
    ("Global.use_gpu:True|True", "Global.use_gpu:False"),
    ("--use_gpu:True|False", "--use_gpu:False"),
)


def test_shipped_config_gives_the_bash_lines_byte_for_byte():
    """PaddleOCR's harness run on this config with gpu_list -1 (a CPU machine) wrote exactly these
    three lines, ANSI codes aside: the double spaces of dropped overrides and the bash templates,
    the ``-o `` trailing space of the export line, and the `` > log 2>&1 `` tail of redirected stages."""
    text = (REPO / "test_configs/PP-OCRv3_mobile_rec/train_infer_python.txt").read_text()
    for old, new in CPU_ONLY:
        text = text.replace(old, new)
    plan = build_plan(parse_config_text(text, "c.txt"), PlanOptions("lite_train_lite_infer", python="python"))
    out = "./test_tipc/output/PP-OCRv3_mobile_rec/lite_train_lite_infer"
    s = f"{out}/norm_train_gpus_-1_autocast_fp32"
    yml = "test_tipc/configs/PP-OCRv3_mobile_rec/PP-OCRv3_mobile_rec_distillation.yml"
    infer_log = f"{out}/python_infer_cpu_gpus_-1_usemkldnn_False_threads_6_precision_fp32_batchsize_1.log"
    head = " Run successfully with command - PP-OCRv3_mobile_rec - python"
    expected = (
        f"{head} tools/train.py -c {yml} -o Global.print_batch_step=1 Train.loader.shuffle=false Global.use_gpu=False"
        f"  Global.save_model_dir={s} Global.epoch_num=3    Train.loader.batch_size_per_card=16     - {s}.log \n"
        f"{head} tools/export_model.py -c {yml} -o  Global.checkpoints={s}/latest Global.save_inference_dir={s}"
        f" > {s}_nodes_1_export.log 2>&1  - {s}_nodes_1_export.log \n"
        f'{head} tools/infer/predict_rec.py --rec_image_shape="3,48,320" --use_gpu=False --enable_mkldnn=False'
        f" --cpu_threads=6 --rec_model_dir={s}/Student --rec_batch_num=1   --image_dir=./inference/rec_inference"
        f" --benchmark=True --precision=fp32   > {infer_log} 2>&1  - {infer_log} \n"
    )
    actual = "".join(legacy.stage_line(True, plan.model, stage) for stage in plan.stages())
    assert actual.encode() == expected.encode()
    assert all(BASH_LINE.match(line) for line in actual.splitlines())
