"""A stage's ending in words: signals by name, the OOM killer when the evidence points at it."""

from __future__ import annotations

import signal
import sys

import pytest

from tipc.proc.child import Ending, oom_kills
from tipc.proc.executor import ExecRequest, ProcessExecutor
from tipc.run.endings import describe_exit, memory_limit_kb

GB = 1024 * 1024  # KiB


@pytest.mark.parametrize(
    ("args", "text"),
    [
        ((1,), "exit code 1"),
        ((-signal.SIGTERM,), "killed by SIGTERM (signal 15)"),
        ((-signal.SIGSEGV, 20 * GB, True), "killed by SIGSEGV (signal 11)"),
        ((-signal.SIGKILL,), "killed by SIGKILL (signal 9)"),
        (
            (-signal.SIGKILL, int(17.4 * GB), True, 24 * GB),
            "killed by SIGKILL (signal 9): the kernel's out-of-memory killer (its kill count rose during the "
            "stage); its peak memory was 17.4 GB",
        ),
        (
            (-signal.SIGKILL, 23 * GB, False, 24 * GB),
            "killed by SIGKILL (signal 9): likely the kernel's out-of-memory killer; its peak memory was 23.0 GB "
            "of a 24.0 GB limit",
        ),
        ((-signal.SIGKILL, 2 * GB, False, 24 * GB), "killed by SIGKILL (signal 9)"),
        ((-77,), "killed by signal 77 (signal 77)"),
    ],
    ids=[
        "exit",
        "sigterm",
        "segv-not-oom",
        "sigkill-no-evidence",
        "oom-count-rose",
        "peak-near-limit",
        "peak-far-from-limit",
        "unknown-signal",
    ],
)
def test_describe_exit(args, text):
    assert describe_exit(*args) == text


def test_the_machine_publishes_what_the_evidence_needs():
    assert isinstance(oom_kills(), int) and memory_limit_kb() > 0


@pytest.mark.parametrize(
    ("vmstat", "kills"),
    [
        ("nr_free_pages 100\noom_kill 3\nnr_foo 1\n", 3),
        ("oom_kill 7", 7),
        ("nr_free_pages 100\noom_kill_other 5\n", None),
        ("nr_free_pages 100\n", None),
        ("oom_kill x\n", None),
    ],
    ids=["middle", "alone-no-newline", "longer-name", "absent", "not-a-number"],
)
def test_oom_kills_reads_the_counter_by_its_exact_name(tmp_path, monkeypatch, vmstat, kills):
    (tmp_path / "vmstat").write_text(vmstat)
    monkeypatch.setattr("tipc.proc.child.VMSTAT", tmp_path / "vmstat")
    assert oom_kills() == kills


def test_a_stage_killed_by_a_signal_is_named_and_its_peak_memory_measured(tmp_path):
    code = (
        "import os, signal\nblock = bytearray(64 * 1024 * 1024)\nblock[::4096] = b'x' * len(block[::4096])\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    request = ExecRequest(argv=(sys.executable, "-c", code), cwd=str(tmp_path), env={}, log=tmp_path / "s.log")
    result = ProcessExecutor(grace=0.2).run(request)
    assert (result.ending, result.returncode) == (Ending.EXITED, -signal.SIGKILL)
    assert result.peak_rss_kb is not None and result.peak_rss_kb > 64 * 1024
    assert describe_exit(result.returncode) == "killed by SIGKILL (signal 9)"
