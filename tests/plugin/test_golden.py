"""Golden checks under ``pytest tipc``: one item per chain, failing with its findings, skipped without a golden."""

from __future__ import annotations

import json

import pytest

from tests.support.htmlq import parse

STEM = "train_linux_cpu_normal_normal_infer_python_linux_cpu"
MATCHING = "predictions:\n" + "".join(f"  word_{i}.png: {{text: fake, score: 0.5}}\n" for i in range(3))
GOLDEN_ID = "norm_train-gpus_-1-fp32::golden"


@pytest.fixture
def golden_dir(tipc_run):
    """``golden/<config stem>/`` beside the config: found without ``--tipc-golden-dir``."""
    folder = tipc_run.pytester.path / "test_configs" / "fake_rec" / "golden" / STEM
    folder.mkdir(parents=True)
    return folder


def test_a_matching_golden_is_one_more_passing_item(tipc_run, golden_dir):
    (golden_dir / "lite_train_lite_infer_fp32.yaml").write_text(MATCHING)
    result = tipc_run.run("-v")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines([f"*{GOLDEN_ID} PASSED*"])


def test_findings_fail_the_item_with_a_short_domain_message(tipc_run, golden_dir):
    (golden_dir / "lite_train_lite_infer.yaml").write_text(
        MATCHING.replace("word_1.png: {text: fake", "word_1.png: {text: real")
    )
    result = tipc_run.run()
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(
        [
            f"{GOLDEN_ID}: FAILED (2 golden finding(s) against *lite_train_lite_infer.yaml)",
            "  infer[[]cpu-mkldnn_False-threads_1-fp32-bs1[]] word_1.png: expected text 'real', found text 'fake'",
        ]
    )
    result.stdout.no_fnmatch_line("*Traceback*")
    assert result.ret == 1


def test_with_fail_on_none_findings_are_reported_not_failing(tipc_run, golden_dir):
    (golden_dir / "lite_train_lite_infer.yaml").write_text(MATCHING.replace("score: 0.5}\n", "score: 0.6}\n", 1))
    result = tipc_run.run("--tipc-fail-on", "none")
    result.assert_outcomes(passed=6)
    assert result.ret == 0
    statuses = {r["id"]: r["status"] for r in tipc_run.records()}
    assert statuses[GOLDEN_ID] == "differs"
    report = tipc_run.pytester.path / "reports" / "fake_rec" / "lite_train_lite_infer" / "latest" / "index.html"
    row = parse(report.read_text()).find("tr", **{"data-golden": "norm_train-gpus_-1-fp32"})
    assert row is not None and "differs" in row.text and "word_0.png score: expected 0.6, found 0.5" in row.text


def test_a_config_folder_without_this_modes_golden_says_no_golden(tipc_run, golden_dir):
    (golden_dir / "whole_infer_fp32.yaml").write_text(MATCHING)
    result = tipc_run.run("-rs")
    result.assert_outcomes(passed=5, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED*no golden for lite_train_lite_infer fp32 in *tipc golden update --from*"])
    assert json.loads(json.dumps(tipc_run.records()))[-1]["status"] == "no_golden"


def test_the_check_alone_is_blocked_not_judged_on_earlier_logs(tipc_run, golden_dir):
    (golden_dir / "lite_train_lite_infer_fp32.yaml").write_text(MATCHING)
    tipc_run.run().assert_outcomes(passed=6)
    result = tipc_run.run("-m", "golden", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED*blocked: a golden check judges this run's evidence only*"])


def test_lf_after_a_golden_finding_reruns_the_chain_so_the_check_has_evidence(tipc_run, golden_dir):
    golden = golden_dir / "lite_train_lite_infer_fp32.yaml"
    golden.write_text(MATCHING.replace("word_2.png: {text: fake", "word_2.png: {text: real"))
    tipc_run.run().assert_outcomes(passed=5, failed=1)
    golden.write_text(MATCHING)  # the golden was wrong; fixed
    result = tipc_run.run("--lf", "-v")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines([f"*{GOLDEN_ID} PASSED*"])


def test_lf_after_no_golden_does_not_rerun_anything_for_it(tipc_run, golden_dir):
    (golden_dir / "whole_infer_fp32.yaml").write_text(MATCHING)
    tipc_run.run().assert_outcomes(passed=5, skipped=1)
    result = tipc_run.run("--lf")
    result.stdout.fnmatch_lines(["run-last-failure: no previously failed tests*"])
