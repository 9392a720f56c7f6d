"""A drop-in ``auto_log``: AutoLog's ``AutoLogger`` API over tipc's benchmark writer.

What differs from AutoLog 1.2.0, on purpose:

* ``report()`` returns; AutoLog ends the process with ``sys.exit(0)``, which
  turns any later failure of the caller into a success.
* ``cpu_rss(MB)`` is this process's *peak* resident set (``getrusage``), not
  the first sample a background sampler took (right after model load).
* GPU memory and utilisation come from one ``nvidia-smi`` query at report
  time for this process and the first of ``gpu_ids``; None on CPU.
* No shelling out to ``nvcc``/``whereis``: versions come from paddle itself,
  which the caller has already imported.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

try:
    from tipc.metrics.benchmark import BenchmarkFigures, BenchmarkRecorder, format_benchmark_block
except ImportError:  # imported as top-level ``auto_log`` where tipc is not installed
    sys.path.append(str(Path(__file__).resolve().parents[3]))
    from tipc.metrics.benchmark import BenchmarkFigures, BenchmarkRecorder, format_benchmark_block

__all__ = ["AutoLogger"]
__version__ = "1.2.0+tipc"

_TIME_KEYS = ("preprocess_time", "inference_time", "postprocess_time")


class Times:
    """``autolog.times``: AutoLog's timer (``end`` does not stamp unless asked)."""

    def __init__(self, recorder: BenchmarkRecorder):
        self._recorder = recorder

    def start(self) -> None:
        self._recorder.start()

    def stamp(self) -> None:
        self._recorder.stamp()

    def end(self, stamp: bool = False) -> None:
        self._recorder.end(stamp=stamp)


def _os_version() -> str:
    release = Path("/etc/os-release")
    if release.is_file():
        for line in release.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.partition("=")[2].strip().strip('"')
    return f"{platform.system()} {platform.release()}"


def _paddle_facts() -> dict:
    """Versions from the paddle the caller imported (never imported here)."""
    paddle = sys.modules.get("paddle")
    if paddle is None:
        return {}
    version = getattr(paddle, "version", None)

    def call(name):
        value = getattr(version, name, None)
        value = value() if callable(value) else value
        return None if str(value) in ("False", "None", "") else str(value)

    return {
        "paddle_version": getattr(paddle, "__version__", None),
        "paddle_commit": getattr(version, "commit", None),
        "cuda_version": call("cuda"),
        "cudnn_version": call("cudnn"),
    }


def _config_facts(config) -> dict:
    """What a ``paddle.inference.Config`` says about itself; {} without one."""
    if config is None:
        return {}

    def ask(name):
        method = getattr(config, name, None)
        try:
            return method() if callable(method) else None
        except Exception:  # noqa: BLE001 - a config method that is unsupported on this build
            return None

    return {
        "runtime_device": "gpu" if ask("use_gpu") else "cpu",
        "ir_optim": ask("ir_optim"),
        "enable_memory_optim": True,  # AutoLog prints True whatever the config says
        "enable_tensorrt": ask("tensorrt_engine_enabled"),
        "enable_mkldnn": ask("mkldnn_enabled"),
        "cpu_threads": ask("cpu_math_library_num_threads"),
    }


def _nvidia_smi(*args: str) -> list:
    try:
        out = subprocess.run(
            ["nvidia-smi", *args, "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [[cell.strip() for cell in line.split(",")] for line in out.splitlines() if line.strip()]


def _smi_index(gpu_id: str) -> str:
    """``nvidia-smi``'s index of the process's device ``gpu_id``: CUDA numbers the devices that
    ``CUDA_VISIBLE_DEVICES`` lists from 0 (``=5`` makes GPU 5 the process's device 0)."""
    visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    if gpu_id.isdigit() and int(gpu_id) < len(visible) and all(v.isdigit() for v in visible):
        return visible[int(gpu_id)]
    return gpu_id


def _gpu_facts(gpu_id, pid: int) -> dict:
    if gpu_id is None:
        return {}
    gpu_id = _smi_index(gpu_id)
    used = [
        float(row[1])
        for row in _nvidia_smi("--query-compute-apps=pid,used_memory")
        if len(row) == 2 and row[0] == str(pid)
    ]
    rows = _nvidia_smi("--query-gpu=index,utilization.gpu,driver_version")
    util = [row for row in rows if len(row) == 3 and row[0] == str(gpu_id)]
    return {
        "gpu_rss_mb": used[0] if used else None,
        "gpu_util": float(util[0][1]) if util else None,
        "driver_version": util[0][2] if util else None,
    }


class AutoLogger:
    def __init__(
        self,
        model_name,
        model_precision,
        batch_size,
        data_shape,
        save_path,
        inference_config=None,
        pids=None,
        process_name=None,
        gpu_ids=None,
        time_keys=_TIME_KEYS,
        warmup=0,
        logger=None,
        **_ignored,
    ):
        self.model_name = model_name
        self.precision = model_precision
        self.batch_size = batch_size
        self.data_shape = data_shape
        self.save_path = save_path  # AutoLog never writes it either
        self.config = inference_config
        self.pid = pids if isinstance(pids, int) else os.getpid()
        self.gpu_id = str(gpu_ids).split(",")[0] if gpu_ids not in (None, "") else None
        self.logger = logger
        self._recorder = BenchmarkRecorder(time_keys=time_keys, warmup=warmup)
        self.times = Times(self._recorder)

    def figures(self) -> BenchmarkFigures:
        base = BenchmarkFigures(
            model_name=str(self.model_name),
            precision=str(self.precision),
            batch_size=self.batch_size,
            input_shape=str(self.data_shape),
            log_api_version="1.0",
            os_version=_os_version(),
            **_paddle_facts(),
            **_config_facts(self.config),
            **_gpu_facts(self.gpu_id, self.pid),
        )
        return self._recorder.figures(base)

    def report(self, identifier=None) -> None:
        emit = self.logger.info if self.logger is not None else print
        for message in format_benchmark_block(self.figures()):
            emit(message)
