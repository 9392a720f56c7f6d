"""The dialects tipc ships, registered through the hook a plugin uses (``pytest_tipc_add_dialects``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tipc.config.modes import Mode
from tipc.config.tags import tag_words
from tipc.dialects.paddleocr.config.formats import config_modes, load_any_config
from tipc.dialects.paddleocr.plan.builder import build_plan
from tipc.metrics.logfile import extract_file
from tipc.plan.devices import VARIANT_DEVICES
from tipc.plan.interpreter import PythonCheck
from tipc.plan.model import Plan, PlanOptions, Stage
from tipc.suites import paddleclas, paddledetection, paddleseg, predictors, tags
from tipc.suites.dialect import Dialect
from tipc.suites.hookspecs import hookimpl
from tipc.suites.variants import MKLDNN_OFF, Rewrite, Variant, yml_note

if TYPE_CHECKING:
    from tipc.prepare.sizes import Sizes


def _prepare(family: str) -> Callable[[Plan, Path, Sizes, int, bool], list[str]]:
    """A data family of ``tipc.suites.prepare``, imported when ``tipc prepare`` runs (a run's start needs none)."""

    def run(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
        from tipc.suites import prepare

        made: list[str] = getattr(prepare, family)(plan, repo, sizes, seed, force)
        return made

    return run


def _ocr_modes(config: Any) -> tuple[Mode, ...]:
    return config_modes(config)


def _ocr_build(config: Any, options: PlanOptions, check: PythonCheck) -> Plan:
    return build_plan(config, options, check)


def _ocr_device(device: str) -> Variant:
    """PaddleOCR's test_train_inference_python_<device>.sh (npu and xpu differ only in the word)."""
    slow = ("rec_r31_sar", "rec_mtb_nrtr")
    return Variant(
        (
            *MKLDNN_OFF,
            Rewrite("use_gpu", f"use_{device}"),
            Rewrite("--benchmark:True", "--benchmark:False"),
            Rewrite("python3.7", "python3.9"),
            Rewrite("Global.epoch_num:lite_train_lite_infer=2", "Global.epoch_num:lite_train_lite_infer=1", slow),
            Rewrite("gpu_list:0|0,1", "gpu_list:0,1", slow),
            Rewrite(f"Global.use_{device}:True|True", f"Global.use_{device}:True", slow),
            Rewrite("", " -o Global.use_gpu=False", ("ch_ppocr_mobile_v2_0_rec_FPGM",), line=18),
            Rewrite("", " Global.use_gpu=False", ("ch_ppocr_mobile_v2_0_rec_FPGM",), line=32),
        ),
        notes=(yml_note(device, f"each trainer yml (use_gpu to use_{device}, use_sync_bn off)"),),
    )


PADDLEOCR = Dialect(
    "PaddleOCR",
    ("ppocr",),
    load_any_config,
    _ocr_modes,
    _ocr_build,
    patterns=("train_*.txt",),
    excludes=(),
    tags=tag_words,
    description="PaddleOCR's test_train_inference_python.sh and test_ptq_inference_python.sh (tipc's first)",
    devices={device: _ocr_device(device) for device in VARIANT_DEVICES},
)
PADDLECLAS = Dialect(
    paddleclas.NAME,
    ("ppcls",),
    paddleclas.load,
    paddleclas.modes,
    paddleclas.build,
    devices=paddleclas.DEVICES,
    tags=tags.model_tags,
    prepare=_prepare("prepare_imagenet"),
    predictions=predictors.classification,
    description="PaddleClas's test_tipc/test_train_inference_python.sh",
)
PADDLEDETECTION = Dialect(
    paddledetection.NAME,
    ("ppdet",),
    paddledetection.load,
    paddledetection.modes,
    paddledetection.build,
    devices=paddledetection.DEVICES,
    tags=tags.model_tags,
    prepare=_prepare("prepare_coco"),
    predictions=predictors.detection,
    description="PaddleDetection's test_tipc/test_train_inference_python.sh",
)
PADDLESEG = Dialect(
    paddleseg.NAME,
    ("paddleseg",),
    paddleseg.load,
    paddleseg.modes,
    paddleseg.build,
    devices=paddleseg.DEVICES,
    tags=tags.model_tags,
    prepare=_prepare("prepare_pairs"),
    predictions=predictors.segmentation_masks,
    description="PaddleSeg's test_tipc/test_train_inference_python.sh",
)
# Dialect packages of their own: each implements the hook as any plugin does, so the core names none of them.
DEFAULT = PADDLEOCR  # a checkout no dialect recognises (tipc's own test_configs/) reads as PaddleOCR's


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLEOCR, PADDLECLAS, PADDLEDETECTION, PADDLESEG]


@hookimpl(trylast=True)
def pytest_tipc_modify_plan(plan: Plan, config: object) -> Plan:
    """The plan as its dialect built it, when no plugin answers another: wrappers always receive a plan."""
    return plan


def pytest_tipc_stage_figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, Any]:
    """tipc's own figures of a stage's log part (``tipc.metrics``: the benchmark block, ips, losses, accuracy)."""
    return dict(extract_file(stage.kind.value, log, since, until))
