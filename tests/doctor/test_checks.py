"""Every check against faked facts: pass, warn, fail and not applicable, with the fix a reader needs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.doctor.fakes import CPU_BUILD, CPU_ENV, DRIVER, GPU_BUILD, GPU_ENV, LIBS, NO_PADDLE
from tests.support.plan_factory import make_plan
from tipc.doctor.checks import State, gpu_need
from tipc.doctor.compat import load_table
from tipc.doctor.disk import GiB, check_disk
from tipc.doctor.facts import Driver, Environment, Library, RunCheck
from tipc.doctor.interpreter import check_interpreter, check_paddle, check_run_check
from tipc.doctor.libraries import check_library
from tipc.doctor.nvidia import check_compat, check_driver
from tipc.doctor.target import check_auto_log, check_nodes, check_scripts, needs_auto_log_by_name

ON_GPU = gpu_need(True, "gpu", "--device gpu")
AUTO_NONE = gpu_need(True, "cpu", "--device auto: no CUDA device")
TOLD_CPU = gpu_need(True, "cpu", "--device cpu")
CPU_CONFIG = gpu_need(False, "gpu", "--device gpu")


@pytest.mark.parametrize(
    ("wants", "device", "reason", "state"),
    [
        (True, "gpu", "--device gpu", State.FAIL),
        (True, "gpu", "--device auto: nvidia-smi found at /usr/bin/nvidia-smi", State.FAIL),
        (True, "cpu", "--device auto: no CUDA device", State.WARN),
        (True, "cpu", "--device cpu", State.NA),
        (False, "gpu", "--device gpu", State.NA),
    ],
    ids=["told-gpu", "auto-found-gpu", "auto-found-none", "told-cpu", "cpu-config"],
)
def test_gpu_checks_apply_unless_told_cpu_or_the_config_is_cpu_only(wants, device, reason, state):
    assert gpu_need(wants, device, reason).severity is state


@pytest.mark.parametrize(("device", "runtime"), [("npu", "CANN"), ("xpu", "XRE")])
def test_on_an_npu_or_xpu_the_doctor_says_what_it_cannot_check(device, runtime):
    need = gpu_need(True, device, f"--device {device}")
    assert need.severity is State.NA  # no NVIDIA check applies, and none is failed for a GPU that is not asked for
    check = need.not_applicable("nvidia driver")
    assert f"tipc checks no {device.upper()} driver or {runtime} runtime" in check.detail
    assert "run_check" in check.detail


def test_an_interpreter_that_does_not_answer_fails_with_the_fix():
    check = check_interpreter("python3.7", Environment(problem="cannot start 'python3.7': No such file"))
    assert (check.state, check.detail) == (State.FAIL, "cannot start 'python3.7': No such file")
    assert "--python" in check.fix
    assert check_interpreter("py", GPU_ENV).state is State.PASS


@pytest.mark.parametrize(
    ("env", "need", "state", "words"),
    [
        (GPU_ENV, ON_GPU, State.PASS, "paddle 3.3.1 (commit 7688495538f4), CUDA 12.6 / cuDNN 9.5.1 build"),
        (CPU_ENV, CPU_CONFIG, State.PASS, "CPU build"),
        (CPU_ENV, TOLD_CPU, State.PASS, "CPU build"),
        (CPU_ENV, ON_GPU, State.FAIL, "CPU build at /p (the stages run on the GPU: --device gpu)"),
        (CPU_ENV, AUTO_NONE, State.WARN, "CPU build"),
        (NO_PADDLE, CPU_CONFIG, State.FAIL, "does not import in py: ModuleNotFoundError"),
        (Environment(problem="x"), ON_GPU, State.NA, "did not answer"),
    ],
    ids=["gpu-build", "cpu-build-cpu-config", "cpu-build-told-cpu", "cpu-build-on-gpu", "cpu-build-auto",
         "no-paddle", "no-interpreter"],
)  # fmt: skip
def test_paddle_build(env, need, state, words):
    check = check_paddle("py", env, need)
    assert check.state is state
    assert words in check.detail
    assert bool(check.fix) == (state in (State.FAIL, State.WARN))


@pytest.mark.parametrize(
    ("env", "result", "state"),
    [
        (GPU_ENV, RunCheck(True, "ok", 1.25), State.PASS),
        (GPU_ENV, RunCheck(False, "exit 1: RuntimeError: cudaErrorInsufficientDriver"), State.FAIL),
        (GPU_ENV, RunCheck(False, "py did not answer within 180 s"), State.FAIL),
        (NO_PADDLE, None, State.NA),
    ],
    ids=["passed", "failed", "hung", "no-paddle"],
)
def test_run_check(env, result, state):
    check = check_run_check(env, result)
    assert check.state is state
    if result is not None and not result.ok:
        assert result.detail in check.detail
        assert "run_check()" in check.fix


@pytest.mark.parametrize(
    ("driver", "need", "state", "words"),
    [
        (DRIVER, ON_GPU, State.PASS, "driver 560.35.03, supports CUDA up to 12.6"),
        (None, ON_GPU, State.FAIL, "no nvidia-smi on PATH"),
        (None, AUTO_NONE, State.WARN, "no nvidia-smi on PATH"),
        (None, TOLD_CPU, State.NA, "--device cpu"),
        (None, CPU_CONFIG, State.NA, "CPU only"),
        (Driver(problem="/usr/bin/nvidia-smi failed: NVML: Driver/library version mismatch"), ON_GPU, State.FAIL,
         "Driver/library version mismatch"),
    ],
    ids=["ok", "none-on-gpu", "none-auto", "told-cpu", "cpu-config", "mismatch"],
)  # fmt: skip
def test_nvidia_driver(driver, need, state, words):
    check = check_driver(driver, need)
    assert check.state is state
    assert words in check.detail


@pytest.mark.parametrize(
    ("build", "driver", "state", "words"),
    [
        (GPU_BUILD, DRIVER, State.PASS, "paddle built for CUDA 12.6, driver 560.35.03 (CUDA 12.6)"),
        (GPU_BUILD, Driver("535.104.05", "12.2"), State.WARN, "minor version compatibility"),
        (GPU_BUILD, Driver("470.82.01", "11.4"), State.FAIL, "older than CUDA 12.6 needs"),
        (replace(GPU_BUILD, cuda="11.7"), DRIVER, State.WARN, "published for CUDA 11.8, 12.6, 12.9, 13.0, not 11.7"),
        (replace(GPU_BUILD, cuda="12.7"), Driver("565.57.01", "12.7"), State.PASS, "CUDA 12.7"),
        (replace(GPU_BUILD, cuda="12.7"), DRIVER, State.FAIL, "CUDA 12.7"),
        (CPU_BUILD, DRIVER, State.NA, "CUDA build"),
        (GPU_BUILD, None, State.NA, "driver"),
    ],
    ids=["fits", "minor-compat", "driver-too-old", "unpublished-build", "not-in-table-driver-says-yes",
         "not-in-table-driver-says-no", "cpu-build", "no-driver"],
)  # fmt: skip
def test_cuda_compatibility_from_the_table(build, driver, state, words):
    check = check_compat(build, driver, ON_GPU, load_table())
    assert check.state is state
    assert words in check.detail
    if state is State.FAIL:
        assert "install NVIDIA driver >=" in check.fix or "CUDA <=" in check.fix


def test_cuda_compatibility_does_not_apply_on_the_cpu():
    assert check_compat(GPU_BUILD, DRIVER, TOLD_CPU, load_table()).state is State.NA


CUDNN8 = Library("cudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7", "ldconfig cache")


@pytest.mark.parametrize(
    ("library", "build", "need", "multi_gpu", "state", "words"),
    [
        (LIBS[2], GPU_BUILD, ON_GPU, False, State.PASS, "libcudnn.so.9 (pip nvidia package)"),
        (Library("cudnn"), GPU_BUILD, ON_GPU, False, State.FAIL, "libcudnn.so does not resolve"),
        (Library("cudnn"), GPU_BUILD, AUTO_NONE, False, State.WARN, "does not resolve"),
        (CUDNN8, GPU_BUILD, ON_GPU, False, State.WARN, "major release 8; paddle was built with 9"),
        (Library("nccl"), GPU_BUILD, ON_GPU, False, State.NA, "only multi-GPU training loads it"),
        (Library("nccl"), GPU_BUILD, ON_GPU, True, State.FAIL, "libnccl.so does not resolve"),
        (Library("cudart"), CPU_BUILD, ON_GPU, False, State.NA, "CPU build"),
        (Library("cudart"), GPU_BUILD, TOLD_CPU, False, State.NA, "--device cpu"),
    ],
    ids=["found", "missing", "missing-auto", "wrong-major", "nccl-one-gpu", "nccl-multi-gpu", "cpu-build",
         "told-cpu"],
)  # fmt: skip
def test_cuda_libraries(library, build, need, multi_gpu, state, words):
    check = check_library(library, build, need, multi_gpu)
    assert check.name == f"lib{library.name}"
    assert check.state is state
    assert words in check.detail


@pytest.mark.parametrize(
    ("free", "state"), [(100 * GiB, State.PASS), (5 * GiB, State.WARN), (GiB // 2, State.FAIL)], ids=str
)
def test_free_disk(free, state):
    check = check_disk(Path("/out"), free)
    assert check.state is state
    assert check.detail.endswith("GiB free at /out")


def test_missing_scripts_are_named_with_the_fix():
    plan = make_plan()
    missing = {Path(plan.cwd) / "tools/export_model.py"}
    check = check_scripts(plan, exists=lambda p: p not in missing)
    assert check.state is State.FAIL
    assert "1 of 3 scripts the plan runs are missing" in check.detail
    assert check.detail.endswith(": tools/export_model.py")
    assert "--repo" in check.fix
    assert check_scripts(plan, exists=lambda p: True).state is State.PASS


def test_auto_log_matters_only_with_benchmark_stages():
    with_benchmark = make_plan(benchmark="--benchmark:True")
    without = make_plan(benchmark="--benchmark:False")
    assert check_auto_log(without, GPU_ENV, shim=False).state is State.NA
    assert (
        check_auto_log(with_benchmark, GPU_ENV, shim=True).detail
        == "imports from /a.py (tipc's drop-in, --autolog-shim)"
    )
    failed = check_auto_log(
        with_benchmark, replace(GPU_ENV, auto_log=False, auto_log_where="No module named 'auto_log'"), shim=False
    )
    assert failed.state is State.FAIL
    assert "--autolog-shim" in failed.fix
    dropin = replace(GPU_ENV, auto_log=False, auto_log_where="No module named 'auto_log'", auto_log_dropin="/t/a.py")
    reference = "from tipc.compat.auto_log import AutoLogger\n"  # the reference target tries the drop-in first
    warned = check_auto_log(with_benchmark, dropin, shim=False, read=lambda path: reference)
    assert warned.state is State.WARN
    assert warned.detail.endswith("tipc.compat.auto_log does (/t/a.py): enough for a target importing it so")


def test_a_predictor_that_imports_auto_log_by_name_fails_without_it_whatever_else_imports():
    # PaddleOCR's tools/infer/predict_rec.py: `import auto_log` under `if args.benchmark:`; the
    # drop-in importable as tipc.compat.auto_log does not help it, so its stages will fail.
    dropin = replace(GPU_ENV, auto_log=False, auto_log_where="No module named 'auto_log'", auto_log_dropin="/t/a.py")
    check = check_auto_log(
        make_plan(benchmark="--benchmark:True"),
        dropin,
        shim=False,
        read=lambda p: "if args.benchmark:\n    import auto_log\n",
    )
    assert check.state is State.FAIL
    assert "tools/infer/predict_rec.py imports it by that name, so its stages will fail" in check.detail
    assert "--autolog-shim" in check.fix


def test_single_node_runs_have_no_multi_node_preflight():
    (check,) = check_nodes(None, {})
    assert check.state is State.NA


@pytest.mark.parametrize(
    ("text", "by_name"),
    [
        ("if args.benchmark:\n    import auto_log\n", True),
        ("from auto_log import AutoLogger\n", True),
        (
            "try:\n    from tipc.compat.auto_log import AutoLogger\nexcept ImportError:\n    from auto_log import AutoLogger\n",
            False,
        ),
        ("print('---------------------- Env info ----------------------')\n", False),
        ("import auto_logger_of_mine\n", False),
    ],
    ids=["paddleocr", "from-import", "drop-in-first", "prints-its-own-block", "another-module"],
)
def test_which_predictors_need_auto_log_by_name(text, by_name):
    plan = make_plan(benchmark="--benchmark:True")
    assert bool(needs_auto_log_by_name(plan, read=lambda p: text)) is by_name
