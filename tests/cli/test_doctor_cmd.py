"""``tipc doctor``: real probes, once on this machine as it is and once on a faked GPU machine
(a stage interpreter whose ``paddle`` is a CUDA build, ``nvidia-smi`` and CUDA libraries on disk)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target

MODE = ("--mode", "lite_train_lite_infer")
FAKE_PADDLE = {
    "__init__.py": "from paddle import device, utils, version\n__version__ = '3.3.1'\n",
    "version.py": "commit = 'abc123'\ndef cuda():\n    return '12.6'\ndef cudnn():\n    return '9.5.1'\n",
    "device.py": "def is_compiled_with_cuda():\n    return True\n",
    "utils.py": "def run_check():\n    print('PaddlePaddle is installed successfully!')\n",
}


def executable(path: Path, text: str) -> str:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def doctor(command):
    return command("doctor")


@pytest.fixture
def config(tmp_path) -> str:
    return str(copy_fake_target(tmp_path / "fake_target") / CPU_CONFIG)


def checks(out: str) -> dict[str, dict]:
    (report,) = json.loads(out)["configs"]
    return {c["name"]: c for c in report["checks"]}


def test_this_machine_passes_for_a_cpu_config(doctor, config):
    code, out, _ = doctor("--config", config, *MODE, "--python", sys.executable, "--autolog-shim", "--json")
    found = checks(out)
    assert (code, json.loads(out)["ok"]) == (0, True), out
    assert found["run_check"]["state"] == "pass"
    assert found["paddle"]["detail"].startswith("paddle ")
    assert {found[n]["state"] for n in ("nvidia driver", "cuda compatibility", "libcudnn")} == {"na"}


def test_missing_scripts_fail_with_the_fix_and_exit_1(doctor, config, tmp_path):
    (tmp_path / "fake_target" / "tools" / "train.py").unlink()
    code, out, _ = doctor("--config", config, *MODE, "--python", sys.executable, "--autolog-shim")
    assert code == 1
    assert "FAIL target scripts: 1 of 4 scripts the plan runs are missing in" in out
    assert "fix: run in the target repo's checkout" in out
    assert out.rstrip().splitlines()[-1].startswith("tipc doctor: ")


@pytest.fixture
def gpu_machine(tmp_path, monkeypatch):
    """A stage interpreter with a CUDA 12.6 paddle, an old driver's nvidia-smi, and the libraries."""
    site = tmp_path / "site" / "paddle"
    site.mkdir(parents=True)
    for name, text in FAKE_PADDLE.items():
        (site / name).write_text(text)
    python = executable(tmp_path / "python", f'#!/bin/sh\nPYTHONPATH={site.parent} exec {sys.executable} "$@"\n')
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    executable(
        bin_dir / "nvidia-smi",
        "#!/bin/sh\necho '| NVIDIA-SMI 470.82.01  Driver Version: 470.82.01  CUDA Version: 11.4 |'\n",
    )
    libs = tmp_path / "cuda"
    libs.mkdir()
    for name in ("libcudart.so.12", "libcublas.so.12", "libcudnn.so.8"):
        (libs / name).touch()
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(libs))
    return python


def gpu_config(config: str) -> str:
    """The fake config training on GPU 0, as PaddleOCR's configs do."""
    path = Path(config)
    path.write_text(path.read_text().replace("gpu_list:-1", "gpu_list:0"))
    return config


def test_a_gpu_machine_with_an_old_driver_and_a_wrong_cudnn(doctor, config, gpu_machine, tmp_path):
    config = gpu_config(config)
    code, out, _ = doctor(
        "--config", config, *MODE, "--python", gpu_machine, "--device", "gpu", "--autolog-shim", "--json"
    )
    found = checks(out)
    assert code == 1
    assert found["paddle"]["detail"].startswith("paddle 3.3.1 (commit abc123), CUDA 12.6 / cuDNN 9.5.1 build")
    assert found["run_check"]["state"] == "pass"
    assert found["nvidia driver"]["detail"] == "driver 470.82.01, supports CUDA up to 11.4"
    assert found["cuda compatibility"]["state"] == "fail"
    assert found["cuda compatibility"]["fix"] == (
        "install NVIDIA driver >= 560.28.03, or a paddlepaddle-gpu built for CUDA <= 11.4"
    )
    assert found["libcudart"]["detail"] == f"{tmp_path}/cuda/libcudart.so.12 (LD_LIBRARY_PATH)"
    assert found["libcudnn"]["state"] == "warn"
    assert "major release 8; paddle was built with 9" in found["libcudnn"]["detail"]


def test_the_same_machine_told_cpu_has_no_gpu_checks(doctor, config, gpu_machine):
    config = gpu_config(config)
    code, out, _ = doctor(
        "--config", config, *MODE, "--python", gpu_machine, "--device", "cpu", "--autolog-shim", "--json"
    )
    assert code == 0, out
    assert checks(out)["cuda compatibility"]["state"] == "na"


def test_tipc_run_with_doctor_blocks_the_config_and_exits_1(command, config, tmp_path):
    (tmp_path / "fake_target" / "tools" / "eval.py").unlink()
    run = command("run")
    code, out, err = run("--config", config, *MODE, "--python", sys.executable, "--doctor", "--no-report")
    assert code == 1
    assert "FAIL target scripts: 1 of 4 scripts the plan runs are missing" in out
    blocked = [line for line in err.splitlines() if ": blocked: tipc doctor: " in line]
    assert len(blocked) == 5
    assert not (tmp_path / "fake_target" / "output").exists()  # the fake trainer's save dir: nothing trained


def test_a_multi_node_config_on_one_node_is_a_named_problem_not_a_failure(doctor):
    code, out, _ = doctor("--config", "tinyrec/train_linux_cpu_fleet_normal_infer_python_linux_cpu.txt", *MODE,
                          "--python", sys.executable, "--json")  # fmt: skip
    doc = json.loads(out)
    assert (code, doc["ok"], doc["configs"]) == (0, True, [])
    (problem,) = doc["problems"]
    assert problem["kind"] == "not applicable"
    assert "--ips 127.0.0.2,127.0.0.3" in problem["reason"]
