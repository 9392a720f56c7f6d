"""The drop-in ``auto_log``, imported by name from a subprocess as PaddleOCR's predictor does."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tipc.compat import shim_path
from tipc.metrics import parse_benchmark_block

# Drives AutoLogger the way tools/infer/predict_rec.py does, with a ppocr-style logger
# and a stand-in for paddle.inference.Config; prints a marker after report().
DRIVER = textwrap.dedent("""
    import logging, sys, time
    import auto_log

    class FakeConfig:
        def use_gpu(self): return False
        def ir_optim(self): return True
        def tensorrt_engine_enabled(self): return False
        def mkldnn_enabled(self): return True
        def cpu_math_library_num_threads(self): return 3

    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("[%(asctime)s] %(name)s %(levelname)s: %(message)s",
                                           "%Y/%m/%d %H:%M:%S"))
    logger = logging.getLogger("ppocr")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    print("AUTO_LOG_FILE", auto_log.__file__)
    autolog = auto_log.AutoLogger(model_name="rec", model_precision="fp32", batch_size=6,
        data_shape="dynamic", save_path=None, inference_config=FakeConfig(), pids=None,
        process_name=None, gpu_ids=None,
        time_keys=["preprocess_time", "inference_time", "postprocess_time"], warmup=0, logger=logger)
    ballast = bytearray(80 * 1024 * 1024)
    ballast[::4096] = b"x" * len(ballast[::4096])
    del ballast
    for _ in range(3):
        autolog.times.start()
        time.sleep(0.002)
        autolog.times.stamp()
        time.sleep(0.01)
        autolog.times.stamp()
        autolog.times.end(stamp=True)
    autolog.report()
    print("STILL RUNNING AFTER REPORT")
""")


def run_driver(tmp_path: Path, *python_flags: str) -> subprocess.CompletedProcess:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = shim_path()
    return subprocess.run(
        [sys.executable, *python_flags, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "python_flags",
    [(), ("-S",)],
    ids=["tipc-installed", "no-site-packages"],  # -S: tipc is not importable, the shim finds it by path
)
def test_shim_prints_a_parsable_block_and_returns(tmp_path, python_flags):
    done = run_driver(tmp_path, *python_flags)
    assert done.returncode == 0, done.stderr
    assert f"AUTO_LOG_FILE {shim_path()}" in done.stdout
    assert done.stdout.rstrip().endswith("STILL RUNNING AFTER REPORT")  # AutoLog would sys.exit(0)
    assert "] ppocr INFO: ---------------------- Env info ----------------------" in done.stdout
    figures = parse_benchmark_block(done.stdout)
    assert (figures.model_name, figures.batch_size, figures.data_num, figures.precision) == ("rec", 6, 3, "fp32")
    assert (figures.runtime_device, figures.enable_mkldnn, figures.cpu_threads) == ("cpu", True, 3)
    assert (figures.gpu_rss_mb, figures.gpu_util) == (None, None)
    assert figures.paddle_version is None  # the driver never imported paddle
    assert 1.5 <= figures.preprocess_ms < 200 and 9 <= figures.inference_ms < 500
    assert figures.postprocess_ms < 100
    assert figures.total_s == pytest.approx(
        3 * (figures.preprocess_ms + figures.inference_ms + figures.postprocess_ms) / 1000, abs=2e-3
    )
    assert figures.cpu_rss_mb >= 80  # the peak, although the ballast was freed before report()


def test_shim_path_holds_the_package():
    assert (Path(shim_path()) / "auto_log" / "__init__.py").is_file()


FAKE_SMI = """#!/bin/sh
case "$1" in
  --query-compute-apps=*) echo "4242, 1924" ;;
  --query-gpu=*) printf '0, 7, 580.159.04\\n5, 63, 580.159.04\\n' ;;
esac
"""


@pytest.mark.parametrize(
    ("visible", "util"),
    [(None, 7.0), ("5", 63.0), ("5,0", 63.0), ("0,5", 7.0), ("GPU-8f6c", 7.0)],
    ids=["all-visible", "pinned-to-5", "first-of-two", "first-of-two-is-0", "uuid-not-mapped"],
)
def test_gpu_figures_are_the_process_s_device_s(tmp_path, monkeypatch, visible, util):
    """A process pinned to GPU 5 calls it device 0: its utilisation is nvidia-smi's index 5."""
    from tipc.compat import auto_log

    smi = tmp_path / "nvidia-smi"
    smi.write_text(FAKE_SMI)
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    facts = auto_log._gpu_facts("0", 4242)
    assert (facts["gpu_rss_mb"], facts["gpu_util"], facts["driver_version"]) == (1924.0, util, "580.159.04")
