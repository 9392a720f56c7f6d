"""What chains and stages need: GPUs named by the plan, cores, memory, aloneness, keys."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.support.plan_factory import make_plan
from tipc.config.benchmark import parse_selectors
from tipc.plan.model import BenchmarkOptions, StageKind
from tipc.schedule.demand import (
    MARGIN,
    chain_devices,
    is_benchmark,
    on_cpu,
    stage_cores,
    stage_keys,
    stage_memory,
)

from .plans import gpu_matrix, plan_of, variant


def chain(plan, entry):
    return next(c for c in plan.chains if c.topology.entry == entry)


@pytest.mark.parametrize(
    ("entries", "device", "devices"),
    [
        ("0|1", "gpu", [("0",), ("1",)]),
        ("2,3", "gpu", [("2", "3")]),
        ("0|2,3", "cpu", [(), ()]),
        ("-1", "gpu", [("0",)]),
    ],
    ids=["one-gpu-each", "launch-two", "retargeted-to-cpu", "cpu-training-gpu-inference"],
)
def test_chain_devices_come_from_the_plan(entries, device, devices):
    plan = plan_of(gpu_matrix("m", entries), device=device)
    assert [chain_devices(c) for c in plan.chains] == devices


def test_a_cpu_chain_holds_no_gpu():
    assert [chain_devices(c) for c in plan_of(variant({"gpu_list": "-1"})).chains] == [()]


@pytest.mark.parametrize(("gpu", "devices"), [(None, ("0",)), ("3", ("3",))], ids=["cuda-default", "given"])
def test_whole_infer_holds_its_gpu(gpu, devices):
    plan = plan_of(gpu_matrix("m", "0"), mode="whole_infer", whole_infer_gpu=gpu)
    assert [chain_devices(c) for c in plan.chains] == [devices]


@pytest.mark.parametrize(
    ("argv", "benchmark"),
    [
        (("py", "predict.py", "--benchmark=True"), True),
        (("py", "predict.py", "--benchmark", "true"), True),
        (("py", "predict.py", "--benchmark=False"), False),
        (("py", "predict.py"), False),
        (("py", "predict.py", "--benchmark"), False),
    ],
    ids=["equals", "separate-token", "false", "absent", "no-value"],
)
def test_benchmark_stages(argv, benchmark):
    plan = plan_of(gpu_matrix("m", "0"))
    infer = next(s for s in plan.stages() if s.kind is StageKind.INFER)
    assert is_benchmark(replace(infer, argv=argv)) is benchmark


def test_only_inference_is_a_benchmark():
    plan = plan_of(gpu_matrix("m", "0"))
    train = next(s for s in plan.stages() if s.kind is StageKind.TRAIN)
    assert not is_benchmark(replace(train, argv=(*train.argv, "--benchmark=True")))


def test_cpu_or_gpu_and_cores_per_stage():
    plan = plan_of(variant({"gpu_list": "0|2,3", "--use_gpu": "True|False", "--cpu_threads": "4"}))
    one, two = plan.chains
    by_name = {s.name: s for s in one.stages}
    gpu_case = next(s for n, s in by_name.items() if n.startswith("infer[gpu"))
    cpu_case = next(s for n, s in by_name.items() if n.startswith("infer[cpu"))
    assert [on_cpu(s) for s in (by_name["train"], gpu_case, cpu_case)] == [False, False, True]
    assert [on_cpu(s) for s in two.stages[:3]] == [False, False, False]  # launched on --gpus=2,3, then GPU 2
    assert [stage_cores(s, one, 8) for s in (by_name["train"], gpu_case, cpu_case)] == [0, 0, 4]
    assert stage_cores(cpu_case, one, 2) == 2  # never more than the machine has
    cpu_plan = plan_of(variant({"gpu_list": "0|2,3", "--cpu_threads": "4"}), device="cpu")
    launched = cpu_plan.chains[1]
    assert launched.topology.nproc == 2 and launched.topology.launches
    assert [stage_cores(s, launched, 8) for s in launched.stages[:3]] == [2, 1, 1]  # train, eval, export


@pytest.mark.parametrize(
    ("stage_index", "entry", "peak", "floor", "mem"),
    [
        (0, "0", 100.0, None, 100.0 * MARGIN),
        (0, "2,3", 100.0, None, 200.0 * MARGIN),
        (1, "2,3", 100.0, None, 100.0 * MARGIN),
        (0, "0", 100.0, 1024.0, 1024.0),
        (0, "0", 2000.0, 1024.0, 2000.0 * MARGIN),
        (0, "0", None, 512.0, 512.0),
        (0, "0", None, None, None),
    ],
    ids=[
        "peak-with-margin",
        "launch-times-processes",
        "eval-one-process",
        "floor-wins",
        "peak-wins",
        "floor-only",
        "unknown",
    ],
)
def test_memory(stage_index, entry, peak, floor, mem):
    plan = plan_of(gpu_matrix("m", "0|2,3"))
    c = chain(plan, entry)
    assert stage_memory(c.stages[stage_index], c, peak, floor) == mem


@pytest.mark.parametrize(
    ("whole_tree", "mem"), [(True, 100.0 * MARGIN), (False, 200.0 * MARGIN)], ids=["tree-figure", "one-process-figure"]
)
def test_a_launched_trainings_tree_figure_is_not_multiplied_again(whole_tree, mem):
    c = chain(plan_of(gpu_matrix("m", "0|2,3")), "2,3")
    assert stage_memory(c.stages[0], c, 100.0, None, whole_tree=whole_tree) == mem


def test_keys_are_the_log_and_a_fixed_launch_port():
    plan = plan_of(gpu_matrix("m", "2,3"), start_port=17000)
    train = plan.chains[0].stages[0]
    assert stage_keys(train, "/x/train.log") == {"file /x/train.log", "port 17000"}
    assert stage_keys(plan.chains[0].stages[1], "/x/eval.log") == {"file /x/eval.log"}


def test_benchmark_train_profiling_and_timed_trains_run_alone():
    selectors = parse_selectors("dynamic_bs8_fp32_DP_N1C1")
    plan = make_plan("benchmark_train", options={"benchmark": BenchmarkOptions(selectors), "device": "cpu"})
    assert [(s.name, is_benchmark(s)) for s in plan.stages()] == [("profile", True), ("train", True)]
