"""The golden check that closes a chain: after every stage it reads, requiring them all.

It runs in the harness (no argv, no subprocess) and judges only what this run's stages produced;
``tipc.run.golden_check`` runs it. A chain gets one when the plan has a golden folder.
"""

from __future__ import annotations

from dataclasses import replace

from tipc.plan.model import Chain, Stage, StageKind
from tipc.plan.naming import golden_log

NAME = StageKind.GOLDEN.value
GOLDEN_DIR = "golden"  # beside the config: where goldens are looked up by default


def with_golden(chain: Chain, log_path: str, golden_dir: str) -> Chain:
    if not chain.stages:
        return chain
    first = chain.stages[0]
    check = Stage(
        id=f"{chain.id}::{NAME}",
        chain=chain.id,
        name=NAME,
        kind=StageKind.GOLDEN,
        argv=(),
        env={},
        cwd=first.cwd,
        log=golden_log(log_path, chain.id),
        requires=tuple(s.id for s in chain.stages),
        rank0_only=any(s.rank0_only for s in chain.stages),
        golden_dir=golden_dir,
    )
    return replace(chain, stages=(*chain.stages, check))
