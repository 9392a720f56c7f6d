"""The dialects that live in ``tipc.suites`` (the generic one, and three awaiting packages of their own),
registered through the hook a plugin uses (``pytest_tipc_add_dialects``); tipc's own hook implementations."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tipc.metrics.logfile import extract_file
from tipc.plan.model import Plan, Stage
from tipc.suites import figures, generic, paddleclas, paddledetection, paddleseg, predictors, tags
from tipc.suites.dialect import Dialect
from tipc.suites.hookspecs import hookimpl

if TYPE_CHECKING:
    from tipc.prepare.sizes import Sizes
    from tipc.suites.downloads import Implied


def _prepare(family: str) -> Callable[[Plan, Path, Sizes, int, bool], list[str]]:
    """A data family of ``tipc.suites.prepare``, imported when ``tipc prepare`` runs (a run's start needs none)."""

    def run(plan: Plan, repo: Path, sizes: Sizes, seed: int, force: bool) -> list[str]:
        from tipc.suites import prepare

        made: list[str] = getattr(prepare, family)(plan, repo, sizes, seed, force)
        return made

    return run


def _implied_weights(plan: Plan) -> tuple[Implied, ...]:
    """PaddleDetection's yml pretrain_weights, read when a run starts (``tipc.suites.ymlweights``)."""
    from tipc.suites import ymlweights

    return ymlweights.implied(plan)


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
    figures=figures.CLASSIFICATION,
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
    figures=figures.DETECTION,
    implied_weights=_implied_weights,
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
    figures=figures.SEGMENTATION,
    manifests=paddleseg.MANIFESTS,
    description="PaddleSeg's test_tipc/test_train_inference_python.sh",
)
# Dialect packages of their own (tipc.dialects) implement the hook as any plugin does, so the core names none of
# them; the three above await their packages.


def pytest_tipc_add_dialects() -> list[Dialect[Any]]:
    return [PADDLECLAS, PADDLEDETECTION, PADDLESEG, generic.DIALECT]


@hookimpl(trylast=True)
def pytest_tipc_modify_plan(plan: Plan, config: object) -> Plan:
    """The plan as its dialect built it, when no plugin answers another: wrappers always receive a plan."""
    return plan


def pytest_tipc_stage_figures(stage: Stage, log: Path, since: int, until: int | None) -> dict[str, Any]:
    """tipc's own figures of a stage's log part (``tipc.metrics``: the benchmark block, ips, losses, accuracy)."""
    return dict(extract_file(stage.kind.value, log, since, until))
