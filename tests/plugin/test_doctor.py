"""``--tipc-doctor`` in ``pytest tipc`` (pytester, real probes of this machine's interpreter)."""

from __future__ import annotations

import json

from tests.plugin.conftest import CPU

DOCTOR_ONLY = ("--tipc-doctor", "--tipc-autolog-shim", "-rs")


def test_a_failed_check_blocks_every_stage_with_its_reason(tipc_run):
    (tipc_run.repo / "tools" / "eval.py").unlink()
    result = tipc_run.run(*DOCTOR_ONLY)
    assert result.ret == 1
    result.assert_outcomes(failed=1, skipped=5)
    result.stdout.fnmatch_lines(
        [
            "*FAIL target scripts: 1 of 4 scripts the plan runs are missing in *: tools/eval.py",
            "*fix: run in the target repo's checkout*--tipc-repo DIR",
            "*_ tipc doctor _*",
        ]
    )
    records = tipc_run.records()
    assert {r["status"] for r in records} == {"blocked"}
    assert all(r["reason"].startswith("blocked: tipc doctor: target scripts failed: 1 of 4") for r in records)
    legacy = tipc_run.out() / "results_python.log"
    assert not legacy.exists() or legacy.read_text() == ""  # nothing ran


def test_a_healthy_machine_passes_the_doctor_item_first_and_runs_the_stages(tipc_run):
    result = tipc_run.run(*DOCTOR_ONLY, "-v")
    assert result.ret == 0
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["doctor PASSED*", "*::train PASSED*"])
    notes = json.loads((tipc_run.out() / "run.json").read_text())["notes"]
    assert any(n.startswith("doctor: pass run_check:") for n in notes)


def test_without_the_option_a_single_node_config_has_no_doctor(tipc_run):
    result = tipc_run.run("--collect-only", "-q", config=CPU)
    assert not any(line.startswith("doctor") for line in result.outlines)
    result = tipc_run.run("--tipc-doctor", "--collect-only", "-q")
    assert result.outlines[0] == "doctor"


def test_under_xdist_a_failed_check_stops_the_run_before_any_stage(tipc_run):
    """Workers run the stages and cannot see what the controller blocked: nothing is collected."""
    (tipc_run.repo / "tools" / "eval.py").unlink()
    result = tipc_run.run(*DOCTOR_ONLY, "-n", "2", "--dist", "loadscope")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*FAIL target scripts: 1 of 4*", "*tipc doctor failed; nothing was run*"])
    assert {r["status"] for r in tipc_run.records()} == {"blocked"}


def test_a_dry_run_has_no_doctor(tipc_run):
    result = tipc_run.run("--tipc-doctor", "--tipc-dry-run", "-q")
    assert result.ret == 5  # a dry run: nothing ran
    assert "tipc doctor:" not in result.stdout.str()
