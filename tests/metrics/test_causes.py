"""A failed stage's cause: what its log and its ending say, normalised so that one cause is one signature."""

from __future__ import annotations

import time

import pytest

from tipc.metrics.causes import (
    Cause,
    Failure,
    builtin_rules,
    from_log,
    group,
    nested_repeat,
    normalise,
    of_failure,
    rule_from_dict,
)

PY_TRACEBACK = """\
[2026/12/01 02:00:01] ppocr INFO: epoch: [1/2], global_step: 10, loss: 1.5
Traceback (most recent call last):
  File "/home/ci/build-7/PaddleOCR/tools/train.py", line 12, in <module>
    import ppocr.foo
ModuleNotFoundError: No module named 'lmdb'
"""

PADDLE_CPP = """\
Traceback (most recent call last):
  File "tools/train.py", line 3, in <module>
--------------------------------------
C++ Traceback (most recent call last):
0   paddle::framework::Foo
----------------------
Error Message Summary:
----------------------
InvalidArgumentError: The shape of input[0] (3, 32, 100) is invalid at line 88 (at /paddle/x.cc:88)
"""


@pytest.mark.parametrize(
    ("log", "kind", "signature"),
    [
        (PY_TRACEBACK, "missing-module", "ModuleNotFoundError: No module named 'lmdb'"),
        (
            PADDLE_CPP,
            "python-exception",
            "InvalidArgumentError: The shape of input[N] (N, N, N) is invalid at line N (at paddle/x.cc:N)",
        ),
        (
            "Traceback (most recent call last):\n  File \"a.py\", line 1\nKeyError: 'Global'\n",
            "python-exception",
            "KeyError: 'Global'",
        ),
        (
            "W1201 init.cc:1] CUDA error: an illegal memory access was encountered at 0x7f3a9c\n",
            "cuda",
            "CUDA error: an illegal memory access was encountered at 0x…",
        ),
        (
            "ncclInternalError: Internal check failed. rank 3\n",
            "nccl",
            "ncclInternalError: Internal check failed. rank N",
        ),
        (
            "Traceback (most recent call last):\nFileNotFoundError: [Errno 2] No such file or directory: "
            "'/data/ci-3/train_data/ic15_data/rec_gt_train.txt'\n",
            "missing-file",
            "FileNotFoundError: [Errno N] No such file or directory: '.../ic15_data/rec_gt_train.txt'",
        ),
        (
            "ResourceExhaustedError: Out of memory error on GPU 0. Cannot allocate 1.5 GB memory\n",
            "out-of-memory",
            "ResourceExhaustedError: Out of memory error on GPU N. Cannot allocate N GB memory",
        ),
    ],
    ids=["module", "paddle-cpp", "keyerror", "cuda", "nccl", "file", "gpu-oom"],
)
def test_a_log_states_its_cause(log: str, kind: str, signature: str) -> None:
    assert from_log(log) == Cause(kind, signature)


def test_one_cause_on_two_machines_is_one_signature() -> None:
    """The same missing module on two build directories and two steps: one group, not two."""
    other = PY_TRACEBACK.replace("build-7", "runner-12/work").replace("global_step: 10", "global_step: 20")
    assert from_log(PY_TRACEBACK) == from_log(other)


def test_a_log_without_an_error_states_none() -> None:
    assert from_log("epoch 1 done\nsaved model to ./output\n") is None


@pytest.mark.parametrize(
    ("status", "reason", "logs", "expected"),
    [
        (
            "timeout",
            "over its 600 s train limit",
            [PY_TRACEBACK],
            Cause("timeout", "timed out: over its N s train limit"),
        ),
        ("hung", "no new output for 120 s", [], Cause("hung", "hung: no new output for N s")),
        (
            "failed",
            "killed by SIGKILL (signal 9): the kernel's out-of-memory killer (its kill count rose during the stage)",
            ["epoch 1\n"],
            Cause("out-of-memory", "killed by the kernel's out-of-memory killer"),
        ),
        (
            "failed",
            "killed by SIGSEGV (signal 11)",
            ["no error here\n"],
            Cause("signal", "killed by SIGSEGV (signal 11)"),
        ),
        (
            "failed",
            "exit code 1",
            ["", PY_TRACEBACK],
            Cause("missing-module", "ModuleNotFoundError: No module named 'lmdb'"),
        ),
        ("failed", "exit code 3", ["nothing\n"], Cause("exit-code", "exit code N")),
    ],
    ids=["timeout-beats-log", "hung", "oom-kill", "signal", "second-log", "exit-code"],
)
def test_a_failure_gets_one_cause(status: str, reason: str, logs: list[str], expected: Cause) -> None:
    assert of_failure(status, reason, logs) == expected


def test_rules_added_by_a_target_come_first() -> None:
    rule = rule_from_dict({"kind": "license", "pattern": r"(license server \w+ unreachable)"})
    log = "license server lic01 unreachable\n" + PY_TRACEBACK
    assert from_log(log, [rule]) == Cause("license", "license server lic01 unreachable")


@pytest.mark.parametrize(
    "bad",
    [
        {"kind": "x"},
        {"kind": "", "pattern": "a"},
        {"kind": "x", "pattern": "("},
        {"kind": "x", "pattern": "a", "group": 2},
        {"kind": "x", "pattern": "^(a+)+$"},
    ],
    ids=["no-pattern", "empty-kind", "bad-regex", "no-such-group", "nested-repeat"],
)
def test_a_bad_rule_is_refused_by_name(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="my rule"):
        rule_from_dict(bad, "my rule")


def test_a_signature_stays_a_line() -> None:
    assert len(normalise("E" * 1000)) == 160


def _failures(*rows: tuple[str, str, str]) -> list[Failure]:
    return [Failure(config, stage, Cause("missing-module", sig)) for config, stage, sig in rows]


def test_failures_with_one_cause_are_one_group_the_largest_first() -> None:
    lmdb, cv2 = "ModuleNotFoundError: No module named 'lmdb'", "ModuleNotFoundError: No module named 'cv2'"
    failures = _failures(("a.txt", "t", cv2), ("b.txt", "t", lmdb), ("c.txt", "t", lmdb), ("c.txt", "e", lmdb))
    groups = group(failures)
    assert [(g.cause.signature, g.configs) for g in groups] == [(lmdb, ("b.txt", "c.txt")), (cv2, ("a.txt",))]
    assert groups[0].line() == f"2 configs, 3 stages: {lmdb} (missing-module; new in this run)"
    assert groups[1].line() == f"a.txt: {cv2} (missing-module; new in this run)"


def test_a_recurring_cause_says_since_which_run() -> None:
    sig = "ModuleNotFoundError: No module named 'lmdb'"
    earlier = [
        ("night1", frozenset({sig})),
        ("night2", frozenset()),
        ("night3", frozenset({sig})),
        ("night4", frozenset({sig})),
    ]
    (recurring,) = group(_failures(("a.txt", "t", sig)), earlier)
    assert recurring.since == "night3"  # night2 broke the series: it is back since night3
    assert recurring.line().endswith("(missing-module; since night3)")
    (new,) = group(_failures(("a.txt", "t", sig)), [("night1", frozenset({sig})), ("night2", frozenset())])
    assert new.since is None


@pytest.mark.parametrize(
    ("pattern", "nested"),
    [
        (r"^(a+)+$", True),
        (r"(\w+\s?)*", True),
        (r"(x*){2,}", True),
        (r"(a+){3}", True),
        (r"(?P<word>a+)+", True),
        (r"((a+)b)c+", False),
        (r"(a|b)+", False),
        (r"a+b+", False),
        (r"([+*])+", False),
        (r"\(a+\)+", False),
        (r"[(]a+[)]+", False),
        (r"(a+)?", False),
        (r"(x{2,5}){3}", False),
    ],
)
def test_a_group_that_repeats_an_unbounded_repeat_is_found(pattern: str, nested: bool) -> None:
    assert nested_repeat(pattern) is nested


def test_the_builtin_rules_hold_no_nested_repeat() -> None:
    assert builtin_rules()  # each was checked as it was loaded


def test_a_rule_is_judged_in_bounded_time_on_a_long_line() -> None:
    """A rule with one repeat inside another is refused; the others judge the ends of a 64 KiB line."""
    line = "a" * 30 + "!"
    with pytest.raises(ValueError, match=r"repeats a group that itself repeats without bound"):
        rule_from_dict({"kind": "slow", "pattern": r"^(a+)+$"}, "a plugin's rule")
    quadratic = rule_from_dict({"kind": "slow", "pattern": r"(a.*a.*b)"})
    huge = "x" * 60_000 + " CUDA error: 700\n"
    started = time.monotonic()
    assert from_log(line + "\n" + "a " * 30_000 + "\n", [quadratic]) is None
    assert from_log(huge, [quadratic]) == Cause("cuda", "CUDA error: N")
    assert time.monotonic() - started < 5
