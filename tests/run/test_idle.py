"""Work done while a stage's child runs: one task per started child, in order, failures dropped."""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from pathlib import Path

import pytest

from tests.support.fake_target import CPU_CONFIG, copy_fake_target
from tests.support.imports import loaded_after
from tipc.run import idle
from tipc.run.executor import ExecRequest, ProcessExecutor
from tipc.session.report import REPORT_MODULES

pytestmark = pytest.mark.usefixtures("idle_queue")


def test_each_step_does_the_next_task_and_a_failing_one_is_dropped():
    done: list[str] = []
    idle.later(lambda: done.append("a"), lambda: 1 / 0, lambda: done.append("c"))
    assert [idle.step() for _ in range(4)] == [True, True, True, False]
    assert done == ["a", "c"]


def test_a_ctrl_c_during_a_task_reaches_the_caller():
    def interrupted() -> None:
        raise KeyboardInterrupt

    idle.later(interrupted)
    with pytest.raises(KeyboardInterrupt):
        idle.step()


def run_child(tmp_path: Path, seconds: float) -> tuple[float, float]:
    code = f"import time; time.sleep({seconds})"
    log = tmp_path / "stage.log"
    result = ProcessExecutor().run(ExecRequest(argv=(sys.executable, "-c", code), cwd=str(tmp_path), env={}, log=log))
    return result.start, result.start + result.duration


def test_the_executor_does_the_tasks_while_the_child_runs(tmp_path):
    seen: list[float] = []
    idle.later(*(lambda: seen.append(time.time()) for _ in range(3)))
    start, end = run_child(tmp_path, 0.5)
    assert len(seen) == 3 and all(start <= t < end - 0.2 for t in seen)


def test_a_child_that_has_exited_is_not_kept_waiting_for_the_tasks(tmp_path):
    seen: list[float] = []
    idle.later(lambda: time.sleep(0.3), lambda: seen.append(time.time()))
    run_child(tmp_path, 0)
    assert seen == []  # the first task outlasted the child; the second waits for the next stage
    assert idle.step() and seen


def test_the_report_modules_queued_are_modules():
    """A renamed module would only be loaded late, silently: the list is checked here instead."""
    for name in REPORT_MODULES:
        assert importlib.util.find_spec(name) is not None, name


def test_a_run_loads_its_report_while_its_stages_run(tmp_path):
    """By the time the report is written, its modules were loaded during the stages (the first
    stage here runs a second: time enough for all of them)."""
    config = copy_fake_target(tmp_path / "fake_target") / CPU_CONFIG
    code = (
        "import os, sys\n"
        "os.environ['TIPC_FAKE'] = 'train:sleep=1'\n"
        "from tipc.session.lifecycle import TipcSession\n"
        "TipcSession.write_reports = lambda self, cwd: []  # what was loaded before it is what counts\n"
        "from tipc.cli.main import main\n"
        f"main(['run', '--config', {str(config)!r}, '--mode', 'lite_train_lite_infer', '--python', sys.executable,"
        f" '--report-dir', {str(tmp_path / 'reports')!r}])\n"
    )
    assert set(REPORT_MODULES) <= set(loaded_after(code, *REPORT_MODULES))


def test_without_a_report_nothing_of_it_is_loaded(tmp_path):
    config = copy_fake_target(tmp_path / "fake_target") / CPU_CONFIG
    code = (
        "import sys\n"
        "from tipc.cli.main import main\n"
        f"main(['run', '--config', {str(config)!r}, '--mode', 'lite_train_lite_infer', '--python', sys.executable,"
        " '--no-report'])\n"
    )
    assert loaded_after(code, "jinja2", "tipc.report") == []


def test_each_stage_s_part_of_the_report_is_made_while_the_next_stage_runs(tmp_path, monkeypatch):
    """Only the last stage's details are left for the report at the run's end (``tipc.report.ahead``),
    and the page is the one the report makes of the records alone."""
    from tipc.cli.main import main
    from tipc.report import stages, write

    made: list[tuple[str, bool]] = []
    writing: list[bool] = []
    view, write_report = stages._view, write.write_report

    def counted(record, *args):
        made.append((record.id.rpartition("::")[2], bool(writing)))
        return view(record, *args)

    def report(*args, **kwargs):
        writing.append(True)
        return write_report(*args, **kwargs)

    monkeypatch.setattr(stages, "_view", counted)
    monkeypatch.setattr(write, "write_report", report)
    config = copy_fake_target(tmp_path / "fake_target") / CPU_CONFIG
    reports = tmp_path / "reports"
    args = ["run", "--config", str(config), "--mode", "lite_train_lite_infer", "--python", sys.executable]
    assert main([*args, "--report-dir", str(reports)]) == 0
    assert [name for name, at_end in made if not at_end] == [
        "train",
        "eval",
        "export",
        "infer[cpu-mkldnn_False-threads_1-fp32-bs1]",
    ]
    assert [name for name, at_end in made if at_end] == ["infer[cpu-mkldnn_False-threads_1-fp32-bs2]"]
    (page,) = reports.glob("*/*/2*/index.html")
    results = tmp_path / "fake_target" / "test_tipc" / "output" / "fake_rec" / "lite_train_lite_infer"
    again = write_report([results], tmp_path / "again")  # from the records alone, nothing made ahead

    def same(text: str) -> str:  # but for when it was generated
        return re.sub(r" on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}", "", text)

    assert same(page.read_text()) == same(again.read_text())
