from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.documented import metric_keys
from tipc.metrics.benchmark import (
    BenchmarkFigures,
    BenchmarkRecorder,
    format_benchmark_block,
    parse_benchmark_block,
    peak_rss_mb,
)

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "rec_cpu_bs6_stray_nvcc.log",
            dict(
                model_name="rec",
                batch_size=6,
                data_num=2,
                precision="fp32",
                runtime_device="cpu",
                enable_mkldnn=True,
                cpu_threads=4,
                enable_tensorrt=False,
                cuda_version="12.4.131",
                cudnn_version=None,
                driver_version=None,
                cpu_rss_mb=512.25,
                gpu_rss_mb=None,
                gpu_util=None,
                total_s=0.6123,
                preprocess_ms=1.2034,
                inference_ms=301.5,
                postprocess_ms=2.75,
                paddle_version="3.0.0",
                os_version="Ubuntu 22.04",
            ),
        ),
        (
            "det_gpu_trt_fp16.log",
            dict(
                model_name="det",
                batch_size=1,
                data_num=50,
                precision="fp16",
                runtime_device="gpu",
                enable_tensorrt=True,
                enable_mkldnn=False,
                cpu_threads=1,
                gpu_rss_mb=1563.0,
                gpu_util=37.0,
                cpu_rss_mb=2871.2,
                driver_version="515.65.01",
                cudnn_version="8.4.1",
                paddle_version="2.6.1",
                total_s=1.9021,
                postprocess_ms=2.1,
            ),
        ),
        ("two_blocks_ansi.log", dict(batch_size=6, data_num=2, total_s=0.6123, cpu_rss_mb=512.25)),
        ("truncated_block.log", dict(batch_size=6, data_num=2, model_name="rec", cpu_rss_mb=None, total_s=None)),
    ],
    ids=["stray-nvcc-line-and-None", "det-gpu-trt", "last-block-wins-through-ansi", "truncated-block"],
)
def test_parse_fixture(name, expected):
    figures = parse_benchmark_block(fixture(name))
    assert figures is not None
    assert {key: getattr(figures, key) for key in expected} == expected


@pytest.mark.parametrize(
    "text",
    [fixture("no_block.log"), "", "---------------------- Paddle info ----------------------\n"],
    ids=["predict-lines-only", "empty", "no-env-header"],
)
def test_no_block_is_none(text):
    assert parse_benchmark_block(text) is None


def test_real_paddleocr_shape_parses():
    """The shape PaddleOCR + AutoLog 1.2.0 print, stray ``Build cuda_`` line included."""
    text = "\n".join(
        [
            "[2026/01/02 03:04:05] ppocr INFO: ---------------------- Env info ----------------------",
            "[2026/01/02 03:04:05] ppocr INFO:  CUDA_version: 13.0.88",
            "Build cuda_13.0.r13.0/compiler.36424714_0",
            "[2026/01/02 03:04:05] ppocr INFO:  CUDNN_version: None.None.None",
            "[2026/01/02 03:04:05] ppocr INFO: ----------------------- Data info -----------------------",
            "[2026/01/02 03:04:05] ppocr INFO:  data_num: 8",
        ]
    )
    figures = parse_benchmark_block(text)
    assert (figures.cuda_version, figures.cudnn_version, figures.data_num) == ("13.0.88", None, 8)


def test_a_foreign_prefixed_line_ends_the_block():
    messages = list(format_benchmark_block(BenchmarkFigures(batch_size=6, data_num=2)))
    messages.insert(messages.index(" batch_size: 6") + 1, "something else: 3")
    text = "\n".join(f"[2025/01/01 00:00:00] ppocr INFO: {m}" for m in messages)
    figures = parse_benchmark_block(text)
    assert (figures.batch_size, figures.data_num) == (6, None)


FULL = BenchmarkFigures(
    model_name="rec",
    precision="fp32",
    batch_size=6,
    input_shape="dynamic",
    data_num=2,
    runtime_device="cpu",
    ir_optim=True,
    enable_memory_optim=True,
    enable_tensorrt=False,
    enable_mkldnn=False,
    cpu_threads=2,
    paddle_version="3.3.1",
    paddle_commit="abc123",
    log_api_version="1.0",
    os_version="Debian GNU/Linux 12 (bookworm)",
    cuda_version=None,
    cudnn_version=None,
    driver_version=None,
    cpu_rss_mb=317.3867,
    gpu_rss_mb=None,
    gpu_util=None,
    total_s=0.0695,
    preprocess_ms=2.936,
    inference_ms=31.4883,
    postprocess_ms=0.3199,
)


@pytest.mark.parametrize(
    ("figures", "prefix"),
    [
        (FULL, "[2026/11/30 03:21:48] ppocr INFO: "),
        (FULL, ""),
        (BenchmarkFigures(), "[2026/11/30 03:21:48] ppocr INFO: "),
        (
            BenchmarkFigures(runtime_device="gpu", gpu_rss_mb=900.5, gpu_util=12.0, enable_tensorrt=True),
            "[2026/11/30 03:21:48] tinyrec WARNING: ",
        ),
    ],
    ids=["full-with-prefix", "full-bare", "all-None", "gpu-values-other-logger"],
)
def test_writer_round_trip(figures, prefix):
    text = "\n".join(prefix + message for message in format_benchmark_block(figures))
    assert parse_benchmark_block(text) == figures


def test_writer_shape_matches_autolog():
    messages = format_benchmark_block(FULL)
    assert messages[0] == "\n"
    assert messages[1] == "-" * 22 + " Env info " + "-" * 22
    assert "-" * 23 + " Model info " + "-" * 22 in messages
    assert messages[-3] == " cpu_rss(MB): 317.3867, gpu_rss(MB): None, gpu_util: None%"
    assert all(m.startswith(" ") for m in messages if ":" in m)
    assert len(messages) == 1 + 6 + 4 + 3 + 6 + 2 + 3 + 3


_LOGGER_PREFIX = "[2025/03/04 10:11:13] ppocr INFO: "


def _skeleton(lines) -> list[str]:
    """Block lines from the first ``INFO:`` newline to the last field, values masked.

    Only lines with the logger prefix count: the fixture's stray ``nvcc`` line is
    AutoLog's noise, not part of the format a writer must reproduce.
    """
    lines = [line for line in lines if line.startswith("[")]
    first = next(i for i, line in enumerate(lines) if "Env info" in line) - 1
    last = next(i for i, line in enumerate(lines) if "postprocess_time(ms)" in line)
    cut = len(_LOGGER_PREFIX) - 1  # keep the space the logger adds after "INFO:"
    return [re.sub(r"(: )[^,]*", r"\1V", line[cut:]) for line in lines[first : last + 1]]


def test_writer_matches_autolog_output_line_by_line():
    """Through a ppocr logger, the writer's block is AutoLog's, line for line and value-masked:
    two spaces before every field, the 22/23-dash rulers, the field order."""
    autolog = _skeleton(fixture("rec_cpu_bs6_stray_nvcc.log").splitlines())
    ours = _skeleton("".join(_LOGGER_PREFIX + m + "\n" for m in format_benchmark_block(FULL)).splitlines())
    assert ours == autolog
    assert ours[2] == "  OS_version: V" and len(ours) == 28


class FakeClock:
    def __init__(self, ticks):
        self.ticks = iter(ticks)

    def __call__(self):
        return next(self.ticks)


@pytest.mark.parametrize(
    ("ticks", "warmup", "means", "total"),
    [
        (
            (0.0, 0.001, 0.011, 0.012, 1.0, 1.003, 1.033, 1.034),
            0,
            {"preprocess_time": 2.0, "inference_time": 20.0, "postprocess_time": 1.0},
            0.046,
        ),
        (
            (0.0, 0.5, 0.6, 0.7, 1.0, 1.001, 1.011, 1.012),
            1,
            {"preprocess_time": 1.0, "inference_time": 10.0, "postprocess_time": 1.0},
            0.012,
        ),
        ((0.0, 0.5, 0.6, 0.7), 1, {"preprocess_time": None, "inference_time": None, "postprocess_time": None}, None),
    ],
    ids=["two-batches", "warmup-excluded", "only-warmup"],
)
def test_recorder_intervals(ticks, warmup, means, total):
    recorder = BenchmarkRecorder(warmup=warmup, clock=FakeClock(ticks))
    for _ in range(len(ticks) // 4):
        recorder.start()
        recorder.stamp()
        recorder.stamp()
        recorder.end(stamp=True)
    assert recorder.interval_means_ms() == pytest.approx(means) if total else recorder.interval_means_ms() == means
    assert recorder.total_s() == (pytest.approx(total) if total is not None else None)
    figures = recorder.figures(BenchmarkFigures(batch_size=6), cpu_rss_mb=10.0)
    assert (figures.data_num, figures.batch_size, figures.cpu_rss_mb) == (len(ticks) // 4, 6, 10.0)


def test_paddleocr_pattern_start_once_then_stamps_per_batch():
    """predict_rec: start() once; per batch stamp, stamp, end(stamp=True). Each batch counts,
    and batch 2's preprocessing runs from batch 1's end (AutoLog loses it)."""
    recorder = BenchmarkRecorder(clock=FakeClock((0.0, 0.001, 0.011, 0.012, 0.015, 0.025, 0.026)))
    recorder.start()
    for _ in range(2):
        recorder.stamp()
        recorder.stamp()
        recorder.end(stamp=True)
    assert recorder.batches == 2
    assert recorder.interval_means_ms() == pytest.approx(
        {"preprocess_time": 2.0, "inference_time": 10.0, "postprocess_time": 1.0}
    )
    assert recorder.total_s() == pytest.approx(0.026)


def test_end_without_stamp_leaves_last_interval_open():
    recorder = BenchmarkRecorder(clock=FakeClock((0.0, 0.002, 0.010)))
    recorder.start()
    recorder.stamp()
    recorder.end(stamp=False)
    means = recorder.interval_means_ms()
    assert means["preprocess_time"] == pytest.approx(2.0)
    assert means["inference_time"] is None
    assert recorder.total_s() == pytest.approx(0.01)


def _current_rss_mb() -> float:
    resident_pages = int(Path("/proc/self/statm").read_text().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def test_peak_rss_is_a_peak():
    before = peak_rss_mb()
    # Earlier tests in this process may have left the peak far above today's RSS: grow past it.
    headroom_mb = max(0.0, before - _current_rss_mb())
    ballast = bytearray(int((headroom_mb + 64) * 1024 * 1024))
    ballast[::4096] = b"x" * len(ballast[::4096])  # touch every page so it is resident
    during = peak_rss_mb()
    del ballast
    assert during >= before + 60
    assert peak_rss_mb() >= during  # freeing memory does not lower a peak


def test_figures_metrics_keys():
    assert set(FULL.metrics()) == metric_keys("infer")
