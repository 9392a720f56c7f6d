"""The golden check stage on the fake target: judged on this run's evidence, with the run's statuses."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG
from tests.support.script_executor import ScriptExecutor
from tipc.dialects.paddleocr.config import load_config
from tipc.dialects.paddleocr.plan import build_plan
from tipc.plan import PlanOptions
from tipc.plan.model import StageKind
from tipc.results.records import Status
from tipc.run.plan_run import PlanRun, RunSettings
from tipc.run.summary import failure_text

CHAIN = "norm_train-gpus_-1-fp32"
GOLDEN = f"{CHAIN}::golden"
STEM = Path(CPU_CONFIG).stem
MODE = "lite_train_lite_infer"
# The fake predictor reads ('fake', 0.5) for every image; the fake trainer logs losses 10, 5.
MATCHING = "train: {loss_drop: 0.25}\npredictions:\n" + "".join(
    f"  word_{i}.png: {{text: fake, score: 0.5}}\n" for i in range(3)
)


def plan_with(fake_repo: Path, golden_dir: Path, golden: str | None):
    if golden is not None:
        (golden_dir / STEM).mkdir(parents=True, exist_ok=True)
        (golden_dir / STEM / f"{MODE}_fp32.yaml").write_text(golden)
    config = load_config(str(fake_repo / CPU_CONFIG))
    options = PlanOptions(mode=MODE, repo=str(fake_repo), python=sys.executable, golden_dir=str(golden_dir))
    return build_plan(config, options)


def run(plan, only=None, **settings):
    session = PlanRun(plan, RunSettings(**settings), ScriptExecutor())
    session.begin()
    records = {s.id: session.run_stage(s) for s in plan.stages() if only is None or only(s)}
    session.end()
    return session, records


def test_the_check_closes_the_chain_and_requires_every_stage_it_reads(fake_repo, tmp_path):
    plan = plan_with(fake_repo, tmp_path, MATCHING)
    stages = plan.chains[0].stages
    assert stages[-1].id == GOLDEN and stages[-1].kind is StageKind.GOLDEN and stages[-1].argv == ()
    assert stages[-1].requires == tuple(s.id for s in stages[:-1])


def test_a_matching_run_passes_and_writes_no_legacy_line(fake_repo, tmp_path):
    session, records = run(plan_with(fake_repo, tmp_path / "golden", MATCHING))
    check = records[GOLDEN]
    assert check.status is Status.PASSED, check.reason
    assert check.metrics["findings"] == 0 and check.metrics["goldens"] == [
        str(tmp_path / "golden" / STEM / f"{MODE}_fp32.yaml")
    ]
    assert len(session.results.legacy_log.read_text().splitlines()) == 5  # the bash's stages only
    assert "passed: 0 finding(s)" in Path(check.log).read_text()


def test_findings_fail_the_check_and_name_image_expected_found(fake_repo, tmp_path):
    golden = MATCHING.replace("word_1.png: {text: fake, score: 0.5}", "word_1.png: {text: real, score: 0.9}")
    _, records = run(plan_with(fake_repo, tmp_path, golden))
    check = records[GOLDEN]
    assert check.status is Status.FAILED
    assert "word_1.png: expected text 'real', found text 'fake'" in check.reason
    story = failure_text(check)
    assert story.splitlines()[1:3] == [
        "  infer[cpu-mkldnn_False-threads_1-fp32-bs1] word_1.png: expected text 'real', found text 'fake'",
        "  infer[cpu-mkldnn_False-threads_1-fp32-bs1] word_1.png score: expected 0.9, found 0.5 (tolerance ±0.001)",
    ]
    assert "command:" not in story


def test_a_training_that_did_not_drop_enough_is_a_finding(fake_repo, tmp_path):
    _, records = run(plan_with(fake_repo, tmp_path, MATCHING.replace("loss_drop: 0.25", "loss_drop: 0.9")))
    assert "train last loss: expected <= 1 (first 10 less 90%), found 5" in records[GOLDEN].reason


def test_without_fail_on_golden_findings_are_reported_not_failing(fake_repo, tmp_path):
    golden = MATCHING.replace("score: 0.5}\n", "score: 0.7}\n", 1)
    _, records = run(plan_with(fake_repo, tmp_path, golden), golden_fails=False)
    check = records[GOLDEN]
    assert check.status is Status.DIFFERS and not check.status.is_failure
    assert check.reason.startswith("2 golden finding(s): infer[cpu-mkldnn_False-threads_1-fp32-bs1] word_0.png score")


def test_no_golden_file_is_a_clear_status_not_a_pass(fake_repo, tmp_path):
    _, records = run(plan_with(fake_repo, tmp_path, None))
    check = records[GOLDEN]
    assert check.status is Status.NO_GOLDEN and not check.status.is_failure
    assert f"no golden for {MODE} fp32 in {tmp_path / STEM}/" in check.reason
    assert "tipc golden update --from" in check.reason


def test_an_unreadable_golden_fails_the_check_with_its_line(fake_repo, tmp_path):
    _, records = run(plan_with(fake_repo, tmp_path, "predictions:\n  word_0.png: 3\n"))
    assert records[GOLDEN].status is Status.FAILED
    assert f"{MODE}_fp32.yaml:2: predictions.word_0.png: expected" in records[GOLDEN].reason


def test_a_failed_infer_blocks_the_check_even_though_its_log_matches(fake_repo, tmp_path, monkeypatch):
    plan = plan_with(fake_repo, tmp_path, MATCHING)
    assert run(plan)[1][GOLDEN].status is Status.PASSED  # last night
    monkeypatch.setenv("TIPC_FAKE", "infer:fail")  # prints its predictions, then fails
    _, records = run(plan)
    assert records[GOLDEN].status is Status.BLOCKED
    assert records[GOLDEN].reason.startswith("blocked: infer[cpu-mkldnn_False-threads_1-fp32-bs1] failed")


@pytest.mark.parametrize("left_out", ["infer", "train"])
def test_a_stage_left_out_of_this_run_blocks_the_check_whatever_is_on_disk(fake_repo, tmp_path, left_out):
    plan = plan_with(fake_repo, tmp_path, MATCHING)
    assert run(plan)[1][GOLDEN].status is Status.PASSED  # last night: every log on disk matches
    _, records = run(plan, only=lambda s: s.kind.value != left_out)
    check = records[GOLDEN]
    assert check.status is Status.BLOCKED
    assert "a golden check judges this run's evidence only" in check.reason and f"{left_out}" in check.reason
