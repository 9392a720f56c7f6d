"""Known-bad pairs of a suite's commit, a Paddle release and FLAGS_enable_pir_api: the doctor names the fix before
a run, and a stage failing with the pair's signature gets the same fix in its cause line."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from tests.doctor.fakes import CPU_BUILD, CPU_ENV, FakeProbes
from tests.support.plan_factory import make_plan
from tipc.doctor.checks import State, gpu_need
from tipc.doctor.examine import examine
from tipc.doctor.known_bad import check_known_bad, flag_fits, load_table
from tipc.metrics.causes import of_failure
from tipc.run.cause import known_bad_rules

CLAS = ("deploy/utils/predictor.py", "d178931fca432204e6b7422bac4f92e09ff22fa4")
SEG = ("deploy/python/infer.py", "d7975e7cb3b9102eae4eabcef5afb81b878473aa")
FIX = "pip install 'paddlepaddle==3.0.0' in the stage interpreter and run with FLAGS_enable_pir_api=0"
PIR_OFF = {"FLAGS_enable_pir_api": "0"}


def checkout(tmp_path: Path, marker: str) -> Path:
    (tmp_path / marker).parent.mkdir(parents=True)
    (tmp_path / marker).write_text("")
    return tmp_path


@pytest.mark.parametrize(
    ("suite", "paddle", "environ", "commit", "verdict"),
    [
        # docs/suites.md, "Running a PaddleClas chain on CPU": each row of its table
        (CLAS, "3.3.1", {}, CLAS[1], "memory_optimize_pass"),
        (CLAS, "3.3.1", PIR_OFF, CLAS[1], "multiply(): argument (position 1) must be Value"),
        (CLAS, "3.0.0", {}, CLAS[1], "memory_optimize_pass"),
        (CLAS, "3.0.0", PIR_OFF, CLAS[1], ""),
        (CLAS, "3.0.0", {"FLAGS_enable_pir_api": "False"}, CLAS[1], ""),
        (CLAS, "3.3.1", {"FLAGS_enable_pir_api": "1"}, CLAS[1], "memory_optimize_pass"),
        # another commit of the suite: the table says nothing about it
        (CLAS, "3.3.1", {}, "0123456789abcdef0123456789abcdef01234567", ""),
        # a checkout whose commit cannot be read (no git): its marker says which suite it is
        (CLAS, "3.3.1", {}, "", "memory_optimize_pass"),
        (SEG, "3.3.1", {}, SEG[1], "names model.pdmodel"),
        (SEG, "3.3.1", PIR_OFF, SEG[1], "logical_and(): argument (position 1) must be Value"),
        (SEG, "3.0.0", PIR_OFF, SEG[1], ""),
        (("ppocr/x.py", ""), "3.3.1", {}, "", ""),
    ],
    ids=[
        "clas-3.3.1-pir",
        "clas-3.3.1-pir-off",
        "clas-3.0.0-pir",
        "clas-3.0.0-pir-off",
        "clas-3.0.0-pir-false",
        "clas-3.3.1-pir-1",
        "clas-other-commit",
        "clas-commit-unknown",
        "seg-3.3.1-pir",
        "seg-3.3.1-pir-off",
        "seg-3.0.0-pir-off",
        "another-suite",
    ],
)
def test_the_doctor_knows_each_pair_of_the_suites_table(tmp_path, suite, paddle, environ, commit, verdict):
    repo = checkout(tmp_path, suite[0])
    (check,) = check_known_bad(repo, (), {"paddlepaddle": paddle}, load_table(), environ, lambda _: commit)
    if not verdict:
        assert check.state is State.PASS
        return
    assert check.state is State.FAIL and verdict in check.detail and check.fix.startswith(FIX)
    assert check.detail.startswith(f"paddlepaddle {paddle} with Pa")
    assert ("its commit is unknown" in check.detail) == (not commit)


@pytest.mark.parametrize(
    ("flag", "environ", "fits"),
    [
        ("", {}, True),
        ("FLAGS_enable_pir_api=0", {}, False),
        ("FLAGS_enable_pir_api=0", {"FLAGS_enable_pir_api": "false"}, True),
        ("FLAGS_enable_pir_api=1", {}, True),
        ("FLAGS_enable_pir_api=1", {"FLAGS_enable_pir_api": "0"}, False),
        ("FLAGS_enable_pir_api=1", {"FLAGS_enable_pir_api": "true"}, True),
    ],
)
def test_a_flag_is_read_as_paddle_reads_it(flag, environ, fits):
    assert flag_fits(flag, environ) is fits


def test_tipc_doctor_names_the_fix_before_a_run_with_the_stage_interpreters_paddle(tmp_path):
    """The doctor's report for a PaddleClas checkout: Paddle 3.3.1 without the flag fails, with the fix."""
    repo = checkout(tmp_path, CLAS[0])
    plan = make_plan(options={"repo": str(repo)})
    on_cpu = gpu_need(False, "cpu", "--device cpu")
    report = examine(plan, on_cpu, FakeProbes(env=CPU_ENV), display="c.txt", environ={})
    (failed,) = [c for c in report.failures() if c.name == "known-bad dependencies"]
    assert "memory_optimize_pass" in failed.detail and failed.fix.startswith(FIX)
    fixed = replace(CPU_ENV, paddle=replace(CPU_BUILD, version="3.0.0"))
    report = examine(plan, on_cpu, FakeProbes(env=fixed), display="c.txt", environ=PIR_OFF)
    assert "known-bad dependencies" not in [c.name for c in report.failures()]


@pytest.mark.parametrize(
    ("log", "reason", "signature"),
    [
        (
            'Traceback (most recent call last):\n  File "deploy/python/predict_cls.py", line 9\n'
            "ValueError: (InvalidArgument) Not find predictor_id 0 and pass_name memory_optimize_pass\n",
            "exit code 1",
            "Not find predictor_id N and pass_name memory_optimize_pass",
        ),
        (
            "TypeError: (InvalidType) multiply(): argument (position 1) must be Value, but got Variable\n",
            "exit code 1",
            "multiply(): argument (position N) must be Value, but got Variable",
        ),
        (
            "export done\n",
            "exit code 0 but out/S/deploy.yaml names model.pdmodel, which it did not write: the file there is left "
            "from an earlier run (modified before this stage started)",
            "deploy.yaml names model.pdmodel, which it did not write",
        ),
    ],
    ids=["clas-infer-pir", "clas-export-old-format", "seg-export-stale-model"],
)
def test_a_stage_failing_with_a_known_signature_gets_the_fix_in_its_cause_line(log, reason, signature):
    cause = of_failure("failed", reason, [log], known_bad_rules())
    assert cause.kind == "known-bad"
    assert cause.signature.startswith(f"{signature} (fix: {FIX}")


def test_other_failures_keep_their_cause():
    cause = of_failure("failed", "exit code 1", ["ModuleNotFoundError: No module named 'x'\n"], known_bad_rules())
    assert (cause.kind, cause.signature) == ("missing-module", "ModuleNotFoundError: No module named 'x'")


def test_a_checkout_at_another_commit_is_not_held_to_the_pairs_of_the_published_one(tmp_path):
    """A real git checkout: its HEAD is not PaddleClas's published commit, so the table says nothing of it."""
    repo = checkout(tmp_path, CLAS[0])
    git = ("git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid")
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "a fork"], check=True)
    plan = make_plan(options={"repo": str(repo)})
    report = examine(plan, gpu_need(False, "cpu", "--device cpu"), FakeProbes(env=CPU_ENV), display="c", environ={})
    assert "known-bad dependencies" not in [c.name for c in report.failures()]
