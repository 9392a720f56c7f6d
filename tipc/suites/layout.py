"""The positional layout every suite's ``test_train_inference_python.sh`` shares, by role, and the guards it needs.

The bash reads its config by position: entry N of the non-empty lines is role N, whatever its key (``BashLines``).
The four suites tipc reads agree on the roles of entries 1 to 50 (PaddleOCR's reader names them too,
``tipc.config.model.TipcConfig``); ``Role`` names them, so a guard says which line it looks at.

``check_size`` is the plan bound of PaddleOCR's planner for every dialect: the ``|`` lists multiply into stages
(gpu entries × autocast values × trainers, each chain with the infer sweep's product), and a config whose lists
make more than ``MAX_STAGES`` stages is refused before one stage is made, naming its longest list.
"""

from __future__ import annotations

import math
from enum import IntEnum
from typing import TYPE_CHECKING

from tipc.config.bounds import MAX_STAGES, excerpt
from tipc.errors import ConfigError
from tipc.suites.bash import ifs_fields

if TYPE_CHECKING:
    from tipc.suites.plans import SuiteConfig


class Role(IntEnum):
    """Entry numbers of the roles of the shared layout (0 is the ``train_params`` header)."""

    MODEL_NAME = 1
    PYTHON = 2
    GPU_LIST = 3
    USE_GPU = 4
    AUTOCAST = 5
    EPOCH = 6
    SAVE_DIR = 7
    TRAIN_BATCH = 8
    PRETRAIN = 9
    TRAIN_MODEL_NAME = 10
    TRAIN_INFER_IMG = 11
    TRAIN_PARAM1 = 12
    TRAINER = 14
    NORM_TRAIN = 15
    PACT_TRAIN = 16
    FPGM_TRAIN = 17
    DISTILL_TRAIN = 18
    TO_STATIC_SLOT = 19
    CUSTOM_TRAIN = 20
    EVAL = 23
    EVAL_PARAM1 = 24
    SAVE_INFERENCE_DIR = 27
    WEIGHTS = 28
    NORM_EXPORT = 29
    QUANT_EXPORT = 30
    FPGM_EXPORT = 31
    DISTILL_EXPORT = 32
    EXPORT1 = 33
    EXPORT2 = 34
    INFERENCE_DIR = 35
    INFER_MODEL = 36
    INFER_EXPORT = 37
    INFER_QUANT = 38
    INFERENCE = 39
    INFER_USE_GPU = 40
    ENABLE_MKLDNN = 41
    CPU_THREADS = 42
    BATCH_SIZE = 43
    USE_TENSORRT = 44
    PRECISION = 45
    MODEL_DIR = 46
    IMAGE_DIR = 47
    SAVE_LOG = 48
    BENCHMARK = 49
    INFER_PARAM1 = 50


# The lists whose product is the number of training chains, those each whole_infer chain comes from, and the
# infer sweep's (one cell per combination of their values).
CHAIN_ROLES = (Role.GPU_LIST, Role.AUTOCAST, Role.TRAINER)
INFER_CHAIN_ROLES = (Role.INFER_MODEL, Role.INFER_EXPORT)
SWEEP_ROLES = (
    Role.INFER_USE_GPU,
    Role.ENABLE_MKLDNN,
    Role.CPU_THREADS,
    Role.BATCH_SIZE,
    Role.USE_TENSORRT,
    Role.PRECISION,
)
CHAIN_STAGES = 4  # train, eval, export and PaddleDetection's export_onnx


def check_size(config: SuiteConfig) -> None:
    """A ``ConfigError`` at the longest list when the ``|`` lists could make more than ``MAX_STAGES`` stages."""
    lines = config.lines
    roles = (*CHAIN_ROLES, *INFER_CHAIN_ROLES, *SWEEP_ROLES)
    counts = {role: len(ifs_fields(config.value(role), "|")) for role in roles}
    chains = math.prod(counts[r] for r in CHAIN_ROLES) + sum(counts[r] for r in INFER_CHAIN_ROLES)
    per_chain = CHAIN_STAGES + math.prod(counts[r] for r in SWEEP_ROLES)
    if chains * per_chain <= MAX_STAGES:
        return
    longest = max(counts, key=lambda role: counts[role])
    raise ConfigError(
        config.path,
        lines.line(longest),
        f"the '|' lists multiply to up to {chains * per_chain} stages ({chains} chains of up to {per_chain} "
        f"stages), over the limit of {MAX_STAGES}: expected shorter lists (the longest: "
        f"'{excerpt(lines.text(longest).split(':', 1)[0])}', {longest.name.lower()}, with {counts[longest]} values)",
    )
