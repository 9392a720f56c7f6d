"""The CUDA libraries a GPU build of paddle loads: do they resolve, from where, of which major release.

Resolved in the stage interpreter's process (``inspect_env.py``: ``LD_LIBRARY_PATH``, the pip
``nvidia-*`` packages paddle's GPU wheels depend on, paddle's own ``libs``, the ``ldconfig``
cache). A ``libcudnn.so.8`` under a paddle built with cuDNN 9 fails at its first convolution.
"""

from __future__ import annotations

import re

from tipc.doctor.checks import Check, GpuNeed, State
from tipc.doctor.facts import Environment, Library, PaddleBuild

FIX = (
    "install the CUDA toolkit/cuDNN/NCCL that paddle was built for (or the pip nvidia-* packages of the "
    "paddlepaddle-gpu wheel) and make them visible: LD_LIBRARY_PATH or ldconfig"
)


def soname_major(path: str) -> str:
    """``…/libcudnn.so.9.1.0`` → ``"9"``; "" for an unversioned ``libcudart.so``."""
    match = re.search(r"\.so\.(\d+)", path)
    return match.group(1) if match else ""


def _built_major(name: str, build: PaddleBuild) -> str:
    version = {"cudart": build.cuda, "cublas": build.cuda, "cudnn": build.cudnn}.get(name, "")
    return version.split(".")[0] if version else ""


def check_library(library: Library, build: PaddleBuild | None, need: GpuNeed, multi_gpu: bool) -> Check:
    name = f"lib{library.name}"
    if not need.applies:
        return need.not_applicable(name)
    if build is not None and not build.cuda_build:
        return Check(name, State.NA, "paddle is a CPU build: it loads no CUDA library")
    if not library.path:
        if library.name == "nccl" and not multi_gpu:
            return Check(name, State.NA, "not found; only multi-GPU training loads it")
        return need.missing(name, f"{name}.so does not resolve", FIX)
    where = f"{library.path} ({library.source})"
    found, built = soname_major(library.path), "" if build is None else _built_major(library.name, build)
    if found and built and found != built:
        return Check(name, State.WARN, f"{where} is major release {found}; paddle was built with {built}", FIX)
    return Check(name, State.PASS, where)


def check_libraries(env: Environment, need: GpuNeed, multi_gpu: bool) -> tuple[Check, ...]:
    if env.problem:
        return ()
    return tuple(check_library(library, env.paddle, need, multi_gpu) for library in env.libraries)
