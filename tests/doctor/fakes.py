"""Faked probe answers: a GPU machine, a CPU one, and the ways they go wrong."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from tipc.doctor.facts import Driver, Environment, Library, PaddleBuild, RunCheck

GPU_BUILD = PaddleBuild("3.3.1", "7688495538f4d6c1", cuda_build=True, cuda="12.6", cudnn="9.5.1", location="/p")
CPU_BUILD = PaddleBuild("3.3.1", "7688495538f4d6c1", location="/p")
LIBS = (
    Library("cudart", "/sp/nvidia/cuda_runtime/lib/libcudart.so.12", "pip nvidia package"),
    Library("cublas", "/sp/nvidia/cublas/lib/libcublas.so.12", "pip nvidia package"),
    Library("cudnn", "/sp/nvidia/cudnn/lib/libcudnn.so.9", "pip nvidia package"),
    Library("nccl", "/usr/lib/x86_64-linux-gnu/libnccl.so.2", "ldconfig cache"),
)
GPU_ENV = Environment("3.11.7", "/venv/bin/python", GPU_BUILD, libraries=LIBS, auto_log=True, auto_log_where="/a.py")
CPU_ENV = replace(GPU_ENV, paddle=CPU_BUILD, libraries=tuple(Library(lib.name) for lib in LIBS))
NO_PADDLE = replace(GPU_ENV, paddle=None, paddle_error="ModuleNotFoundError: No module named 'paddle'")
DRIVER = Driver("560.35.03", "12.6")


@dataclass
class FakeProbes:
    env: Environment = GPU_ENV
    driver: Driver | None = DRIVER
    check: RunCheck = field(default_factory=lambda: RunCheck(True, "PaddlePaddle is installed successfully", 2.0))
    free: int = 100 << 30
    asked: list[str] = field(default_factory=list)

    def environment(self, python: str, pythonpath: tuple[str, ...]) -> Environment:
        self.asked.append(f"environment {python} {pythonpath}")
        return self.env

    def run_check(self, python: str) -> RunCheck:
        self.asked.append(f"run_check {python}")
        return self.check

    def nvidia_smi(self) -> Driver | None:
        self.asked.append("nvidia-smi")
        return self.driver

    def free_bytes(self, path: Path) -> int:
        return self.free
