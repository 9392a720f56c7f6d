"""Configs and plans for the plan tests: the shared templates with lines overridden by role."""

from __future__ import annotations

from tests.support.config_text import TO_STATIC, TRAIN_BENCHMARK, config_text, ptq_config_text
from tipc.config.model import TipcConfig
from tipc.dialects.paddleocr.config import PtqConfig, parse_any_config_text, parse_config_text

PATH = "cfgs/rec/train_infer_python.txt"
PTQ_PATH = "cfgs/rec/train_ptq_infer_python.txt"


def make_config(to_static: bool = False, train_benchmark: bool = False, **lines: str) -> TipcConfig:
    """The template with ``role="key:value"`` overrides, plus the to_static and benchmark sections if asked."""
    tail = ((TRAIN_BENCHMARK,) if train_benchmark else ()) + ((TO_STATIC,) if to_static else ())
    return parse_config_text(config_text(tail=tail, **lines), PATH)


def make_plan(mode: str = "lite_train_lite_infer", to_static: bool = False, options: dict | None = None, **lines: str):
    """Plan of the template config with a fixed interpreter ``py``; in benchmark_train with the
    train_benchmark_params section and its logs under ``./test_tipc/output``."""
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions
    from tipc.plan.model import BenchmarkOptions

    bench = mode == "benchmark_train"
    extra = {"benchmark": BenchmarkOptions(log_dir="./test_tipc/output")} if bench else {}
    config = make_config(to_static, bench, **lines)
    return build_plan(config, PlanOptions(mode, python="py", **{**extra, **(options or {})}))


def make_ptq_config(**lines: str) -> PtqConfig:
    """The KL quantization template with ``role="key:value"`` overrides."""
    config = parse_any_config_text(ptq_config_text(**lines), PTQ_PATH)
    assert isinstance(config, PtqConfig)
    return config


def make_ptq_plan(mode: str = "whole_infer", options: dict | None = None, **lines: str):
    """Plan of the KL quantization template; the interpreter is ``python3.7``, as the bash's commands spell it."""
    from tipc.dialects.paddleocr.plan import build_plan
    from tipc.plan import PlanOptions

    return build_plan(make_ptq_config(**lines), PlanOptions(mode, python="python3.7", **(options or {})))
