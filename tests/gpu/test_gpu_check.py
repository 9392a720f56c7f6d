"""``make gpu-check``'s judge, on records as a run writes them (no GPU needed to judge)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gpu import gpu_check
from tipc.results.records import StageRecord, Status

CFG = "test_configs/gpurec/train_linux_gpu_normal_amp_infer_python_linux_gpu_cpu.txt"
GPU_CASE = {"device": "gpu", "use_gpu": "True", "batch_size": "1", "precision": "fp32"}
CPU_CASE = {"device": "cpu", "use_gpu": "False", "batch_size": "1", "precision": "fp32"}
FIGURES = {"gpu_rss_mb": 1924.0, "gpu_util": 3.0}


def rec(chain="a", stage="train", gpus="0", start=0.0, duration=1.0, status=Status.PASSED, **kw) -> StageRecord:
    env = {} if gpus is None else {"CUDA_VISIBLE_DEVICES": gpus}
    return StageRecord(f"{chain}::{stage}", "train", chain, status, env=env, start=start, duration=duration,
                       config=kw.pop("config", CFG), **kw)  # fmt: skip


@pytest.mark.parametrize(
    ("records", "pinned", "expected"),
    [
        ([rec(), rec(stage="eval", start=1)], True, []),
        ([rec(gpus="3")], False, ["CUDA_VISIBLE_DEVICES names 3, not a GPU of this machine"]),
        ([rec(), rec(stage="eval", gpus="1", start=1)], True, ["its GPU stages saw different devices"]),
        ([rec(gpus="0,1", argv=("python", "-m", "paddle.distributed.launch", "--gpus=0,1"))], True, []),
        ([rec(gpus="0", argv=("--gpus=0,1",))], True, ["--gpus=0,1 but CUDA_VISIBLE_DEVICES='0'"]),
        ([rec(), rec(stage="infer", gpus="", infer=CPU_CASE)], True, []),
        ([rec(), rec(stage="infer", gpus="0", infer=CPU_CASE)], True, ["a CPU case of a pinned chain saw"]),
        ([rec(), rec(stage="infer", gpus="0", infer=CPU_CASE)], False, []),
        ([rec(gpus="0", status=Status.BLOCKED)], True, []),
    ],
    ids=[
        "same-gpu",
        "foreign-id",
        "moved",
        "launch-agrees",
        "launch-disagrees",
        "cpu-case-hidden",
        "cpu-case-sees-gpu",
        "serial-cpu-case",
        "blocked-not-judged",
    ],
)
def test_pinning(records, pinned, expected):
    found = gpu_check.pinning_findings(records, ("0", "1"), pinned)
    assert len(found) == len(expected) and all(e in f for e, f in zip(expected, found, strict=True)), found


@pytest.mark.parametrize(
    ("records", "shared"),
    [
        ([rec("a", start=0, duration=5), rec("b", start=5, duration=5)], False),
        ([rec("a", start=0, duration=5), rec("b", start=4, duration=5)], True),
        ([rec("a", start=0, duration=5), rec("b", gpus="1", start=1, duration=5)], False),
        # a chain holds its GPUs from its first GPU stage to its last one, CPU cases after don't count
        ([rec("a", start=0, duration=2), rec("a", "eval", start=8, duration=2), rec("b", start=4)], True),
        (
            [rec("a", start=0, duration=2), rec("a", "infer", gpus="", start=3, infer=CPU_CASE), rec("b", start=3)],
            False,
        ),
        ([rec("a", gpus="0,1", start=0, duration=5), rec("b", gpus="1", start=2)], True),
        # the same chain id in two configs is two chains
        ([rec("a", start=0, duration=5), rec("a", start=1, config="other/train_x.txt")], True),
    ],
    ids=[
        "one-after-other",
        "overlap",
        "other-gpu",
        "span-covers-gap",
        "cpu-tail-released",
        "one-of-two",
        "two-configs",
    ],
)
def test_sharing(records, shared):
    assert bool(gpu_check.sharing_findings(records)) is shared


@pytest.mark.parametrize(
    ("metrics", "ok"),
    [(FIGURES, True), ({"gpu_rss_mb": None, "gpu_util": 3.0}, False), ({"gpu_rss_mb": 10.0}, False), ({}, False)],
    ids=["recorded", "no-memory", "no-util", "nothing"],
)
def test_gpu_figures(metrics, ok):
    records = [rec(stage="infer", infer=GPU_CASE, metrics=metrics), rec(stage="infer2", infer=CPU_CASE)]
    assert (gpu_check.figure_findings(records) == []) is ok


def test_a_run_without_gpu_inference_has_no_figures_to_show():
    assert gpu_check.figure_findings([rec()]) == ["no GPU inference stage passed: no GPU figures to check"]


@pytest.mark.parametrize(
    ("record", "finding"),
    [
        (rec(status=Status.FAILED, reason="exit code 1"), "failed: exit code 1"),
        (rec(status=Status.BLOCKED, reason="blocked: chain a needs 2 GPU(s) and this node has 1 (0)"), ""),
        (rec(status=Status.BLOCKED, reason="prerequisite a::train failed"), "blocked: prerequisite a::train failed"),
    ],
    ids=["failed", "too-few-gpus", "blocked-by-failure"],
)
def test_status(record, finding):
    found = gpu_check.status_findings([rec(), record], ("0",))
    assert found == ([f"{Path(CFG).name}:a {record.id}: {finding}"] if finding else [])


def doctor(**states: str) -> dict:
    checks = [{"name": n.replace("_", " "), "state": s, "detail": "d", "fix": ""} for n, s in states.items()]
    return {"configs": [{"config": "gpurec/x.txt", "checks": checks}]}


GOOD = {"nvidia_driver": "pass", "libcudart": "pass", "libcublas": "pass", "libcudnn": "pass", "paddle": "fail"}


@pytest.mark.parametrize(
    ("states", "multi_gpu", "expected"),
    [
        (GOOD, False, []),
        ({**GOOD, "libnccl": "na"}, False, []),
        ({**GOOD, "libnccl": "na"}, True, ["libnccl is na"]),
        ({**GOOD, "libcudnn": "fail"}, False, ["libcudnn is fail"]),
        ({**GOOD, "nvidia_driver": "warn"}, False, ["nvidia driver is warn"]),
        ({"libcudart": "pass", "libcublas": "pass", "libcudnn": "pass"}, False, ["no 'nvidia driver' check"]),
    ],
    ids=["stand-in-without-paddle", "nccl-not-needed", "nccl-needed", "cudnn", "driver", "missing"],
)
def test_doctor(states, multi_gpu, expected):
    found = gpu_check.doctor_findings(doctor(**states), multi_gpu)
    assert len(found) == len(expected) and all(e in f for e, f in zip(expected, found, strict=True)), found


def write_results(folder: Path, device: str, records: list[StageRecord]) -> Path:
    folder.mkdir(parents=True)
    info = {"model": "gpurec", "mode": "lite_train_lite_infer", "config": CFG, "device": device, "schema": 1}
    (folder / "run.json").write_text(json.dumps(info))
    (folder / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in records))
    return folder


def test_main_passes_a_good_run_and_fails_a_cpu_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TIPC_GPUS_AVAILABLE", "0")
    good = [rec(), rec(stage="infer", start=1, infer=GPU_CASE, metrics=FIGURES)]
    serial = write_results(tmp_path / "serial", "gpu", good)
    scheduled = write_results(tmp_path / "scheduled", "cpu", good)
    (tmp_path / "doctor.json").write_text(json.dumps(doctor(**GOOD)))
    args = ["--doctor", str(tmp_path / "doctor.json"), "--serial", str(serial)]
    assert gpu_check.main([*args, "--scheduled", str(serial)]) == 0
    assert "gpu-check: passed" in capsys.readouterr().out
    assert gpu_check.main([*args, "--scheduled", str(scheduled)]) == 1
    assert "scheduled: run.json says device 'cpu', not gpu" in capsys.readouterr().out


def test_a_doctor_that_wrote_no_json_is_a_finding_not_a_crash(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TIPC_GPUS_AVAILABLE", "0")
    serial = write_results(tmp_path / "serial", "gpu", [rec(), rec(stage="infer", infer=GPU_CASE, metrics=FIGURES)])
    (tmp_path / "doctor.json").write_text("")
    argv = ["--doctor", str(tmp_path / "doctor.json"), "--serial", str(serial), "--scheduled", str(serial)]
    assert gpu_check.main(argv) == 1
    assert "no 'nvidia driver' check" in capsys.readouterr().out
