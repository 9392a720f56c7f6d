"""The stage interpreter: it runs, paddle imports in it, and ``paddle.utils.run_check()`` passes."""

from __future__ import annotations

import sys

from tipc.doctor.checks import Check, GpuNeed, State
from tipc.doctor.facts import Environment, PaddleBuild, RunCheck

PYTHON_FIX = f"pass --python with an interpreter that runs, e.g. --python {sys.executable}"


def install_fix(python: str) -> str:
    return (
        f"install paddle into that interpreter ({python} -m pip install paddlepaddle, or paddlepaddle-gpu "
        "for the driver's CUDA), or pass --python with one that has it"
    )


def check_interpreter(python: str, env: Environment) -> Check:
    if env.problem:
        return Check("interpreter", State.FAIL, env.problem, PYTHON_FIX)
    return Check("interpreter", State.PASS, f"{python}: Python {env.python_version} ({env.executable})")


def describe(build: PaddleBuild) -> str:
    commit = f" (commit {build.commit[:12]})" if build.commit else ""
    kind = f"CUDA {build.cuda} / cuDNN {build.cudnn or '?'} build" if build.cuda_build else "CPU build"
    return f"paddle {build.version}{commit}, {kind} at {build.location}"


def check_paddle(python: str, env: Environment, need: GpuNeed) -> Check:
    if env.problem:
        return Check("paddle", State.NA, "the interpreter did not answer")
    if env.paddle is None:
        return Check("paddle", State.FAIL, f"does not import in {python}: {env.paddle_error}", install_fix(python))
    if need.applies and not env.paddle.cuda_build:
        return need.missing(
            "paddle",
            describe(env.paddle),
            f"install paddlepaddle-gpu for the driver's CUDA into {python}, or pass --device cpu",
        )
    return Check("paddle", State.PASS, describe(env.paddle))


def check_run_check(env: Environment, result: RunCheck | None) -> Check:
    """``result`` None: not run, because paddle does not import."""
    if result is None or env.paddle is None:
        return Check("run_check", State.NA, "paddle does not import")
    if result.ok:
        return Check("run_check", State.PASS, f"paddle.utils.run_check() passed in {result.seconds:.1f} s")
    return Check(
        "run_check",
        State.FAIL,
        f"paddle.utils.run_check() failed: {result.detail}",
        "run `python -c 'import paddle; paddle.utils.run_check()'` in the stage interpreter and fix what it says "
        "(driver, CUDA libraries, NCCL)",
    )
