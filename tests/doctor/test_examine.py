"""A whole report from faked probes, the JSON document's schema, the table's coverage, and the
probes' parsers against real output (the stage interpreter asked for real on this machine)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tests.doctor.fakes import CPU_ENV, GPU_ENV, NO_PADDLE, FakeProbes
from tests.support.plan_factory import make_plan
from tipc.doctor import inspect_env
from tipc.doctor.checks import State, gpu_need
from tipc.doctor.compat import DriverFit, load_table, series
from tipc.doctor.examine import examine
from tipc.doctor.facts import parse_environment, parse_nvidia_smi
from tipc.doctor.render import document, tally

ROOT = Path(__file__).resolve().parents[2]
ON_GPU = gpu_need(True, "gpu", "--device gpu")
SMI = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |
|-----------------------------------------+------------------------+----------------------+
"""


@pytest.fixture
def plan(tmp_path):
    """The template's plan, run in a repo that holds its scripts."""
    for script in ("tools/train.py", "tools/export_model.py", "tools/infer/predict_rec.py"):
        (tmp_path / script).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / script).touch()
    return make_plan(options={"repo": str(tmp_path)})


def states(report):
    return {c.name: c.state for c in report.checks}


def test_a_healthy_gpu_machine_passes_every_check(plan):
    probes = FakeProbes()
    report = examine(plan, ON_GPU, probes, display="rec.txt", pythonpath=("/shim",))
    assert report.ok
    assert set(states(report).values()) <= {State.PASS, State.NA}
    assert probes.asked == ["environment py ('/shim',)", "nvidia-smi", "run_check py"]


def test_a_cpu_build_on_a_gpu_run_fails_and_says_why(plan):
    report = examine(plan, ON_GPU, FakeProbes(env=CPU_ENV), display="rec.txt")
    assert not report.ok
    assert [c.name for c in report.failures()] == ["paddle"]
    assert report.failures()[0].reason().startswith("tipc doctor: paddle failed: paddle 3.3.1")


def test_without_paddle_run_check_is_not_run(plan):
    probes = FakeProbes(env=NO_PADDLE)
    report = examine(plan, gpu_need(False, "cpu", "--device cpu"), probes, display="rec.txt")
    assert states(report)["run_check"] is State.NA
    assert "nvidia-smi" not in probes.asked  # no GPU check applies: the driver is not asked
    assert not any(a.startswith("run_check") for a in probes.asked)


def test_json_document_holds_the_documented_fields(plan):
    """The schema in tipc/doctor/render.py's docstring and the guide's `tipc doctor` page."""
    report = examine(plan, ON_GPU, FakeProbes(env=CPU_ENV), display="rec.txt")
    problems = [{"config": "bad.txt", "kind": "error", "reason": "bad.txt:3: expected key"}]
    doc = json.loads(json.dumps(document([report], problems)))
    assert set(doc) == {"schema", "ok", "configs", "problems"}
    assert (doc["schema"], doc["ok"]) == (1, False)
    (config,) = doc["configs"]
    assert set(config) == {"config", "python", "ok", "checks"}
    assert {tuple(sorted(c)) for c in config["checks"]} == {("detail", "fix", "name", "state")}
    assert {c["state"] for c in config["checks"]} <= {"pass", "warn", "fail", "na"}
    assert doc["problems"] == problems
    guide = (ROOT / "docs" / "guide" / "doctor.md").read_text()
    for key in ("schema", "configs", "problems", "checks", "state", "detail", "fix"):
        assert f'"{key}"' in guide


def test_tally_counts_each_state(plan):
    report = examine(plan, ON_GPU, FakeProbes(env=CPU_ENV), display="rec.txt")
    assert re.fullmatch(r"tipc doctor: \d+ passed, 1 failed(, \d+ not applicable)?", tally([report]))


def test_the_table_covers_paddle_2_4_to_2_6_and_3_x_with_drivers_for_every_build():
    table = load_table()
    assert {"2.4", "2.5", "2.6", "3.0", "3.1", "3.2", "3.3"} <= set(table.builds)
    for paddle, builds in table.builds.items():
        for cuda, cudnn in builds.items():
            assert cuda in table.min_driver, (paddle, cuda)
            assert series(cuda, 1) in table.minor_compat or cuda.startswith("10."), (paddle, cuda)  # since 11
            assert re.fullmatch(r"\d+\.\d+", cudnn), (paddle, cuda)


@pytest.mark.parametrize(
    ("cuda", "driver", "fit"),
    [("12.6", "560.28.03", DriverFit.FULL), ("12.6.3", "535.54.03", DriverFit.MINOR_COMPAT),
     ("11.8", "450.80.01", DriverFit.TOO_OLD), ("12.7", "999", DriverFit.UNKNOWN)],
    ids=["full", "minor-compat", "too-old", "unknown"],
)  # fmt: skip
def test_driver_fit(cuda, driver, fit):
    assert load_table().driver_fit(cuda, driver)[0] is fit


def test_nvidia_smi_header_is_read():
    driver = parse_nvidia_smi(SMI)
    assert (driver.version, driver.cuda, driver.problem) == ("560.35.03", "12.6", "")
    assert parse_nvidia_smi("NVIDIA-SMI has failed").problem


def test_the_environment_probe_answers_in_the_stage_interpreter():
    """Real: this interpreter (paddle CPU build here) runs the probe file as the stages' would."""
    done = subprocess.run(
        [sys.executable, inspect_env.__file__, "--path", str(ROOT / "tipc" / "compat"),
         "--package", "pytest", "--package", "no-such-package-here"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    env = parse_environment(done.stdout)
    assert dict(env.packages) == {"pytest": pytest.__version__, "no-such-package-here": ""}
    assert env.python_version == ".".join(map(str, sys.version_info[:3]))
    assert env.auto_log, env.auto_log_where
    assert env.auto_log_where.startswith(str(ROOT / "tipc" / "compat" / "auto_log"))
    assert [lib.name for lib in env.libraries] == ["cudart", "cublas", "cudnn", "nccl"]
    if env.paddle is not None:
        assert env.paddle.version and (env.paddle.cuda_build or env.paddle.cuda == "")


def test_a_broken_paddle_is_an_answer_not_a_crash(tmp_path):
    (tmp_path / "paddle").mkdir()
    (tmp_path / "paddle" / "__init__.py").write_text("raise OSError('libcudnn.so.9: cannot open shared object file')\n")
    done = subprocess.run(
        [sys.executable, inspect_env.__file__], capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    env = parse_environment(done.stdout)
    assert env.paddle is None
    assert env.paddle_error == "OSError: libcudnn.so.9: cannot open shared object file"


def test_garbage_is_not_an_answer():
    with pytest.raises(ValueError, match="no answer"):
        parse_environment("Traceback ...\n")
    assert replace(GPU_ENV).paddle is not None


def test_the_machine_is_asked_once_per_interpreter(monkeypatch, tmp_path):
    """A matrix of configs shares one interpreter: it is asked once, not once per config."""
    from tipc.doctor import probes as probes_module
    from tipc.proc.child import Answer

    asked: list[list[str]] = []

    def fake_ask(argv, timeout):
        asked.append(argv)
        return Answer(0, "PaddlePaddle is installed successfully!\n", "")

    monkeypatch.setattr(probes_module, "ask", fake_ask)
    monkeypatch.setattr(probes_module.shutil, "which", lambda name: None)
    probes = probes_module.SystemProbes()
    for _ in range(3):
        probes.environment("py", ())
        probes.run_check("py")
        assert probes.nvidia_smi() is None
    probes.run_check("other-py")
    assert [argv[0] for argv in asked] == ["py", "py", "other-py"]
