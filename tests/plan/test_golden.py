"""Whole-plan snapshots of every config under test_configs/ in every mode it runs in (a KL quantization
config: whole_infer).

Regenerate after an intended change: ``TIPC_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_golden.py``
and review the diff of tests/plan/golden/.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from tipc.config.locate import find_configs
from tipc.dialects.paddleocr.config import load_any_config
from tipc.dialects.paddleocr.config.formats import config_modes
from tipc.dialects.paddleocr.plan import build_plan
from tipc.errors import ConfigError
from tipc.plan import PlanOptions, plan_to_json

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
CONFIGS = find_configs(REPO / "test_configs")
UPDATE = os.environ.get("TIPC_UPDATE_GOLDEN") == "1"


def golden_name(config: Path, mode: str) -> str:
    relative = config.relative_to(REPO / "test_configs")
    return "__".join((*relative.parent.parts, relative.stem, mode)) + ".json"


def snapshot(config: Path, mode: str) -> dict:
    """The plan with a fixed interpreter and repo, and a repo-relative config path: machine independent."""
    relative = config.relative_to(REPO).as_posix()
    try:
        parsed = dataclasses.replace(load_any_config(config), path=relative)
        return plan_to_json(build_plan(parsed, PlanOptions(mode, repo=".", python="python")))
    except ConfigError as exc:
        return {"error": str(exc).replace(str(config), relative)}


CASES = [(c, str(m)) for c in CONFIGS for m in config_modes(load_any_config(c))]


@pytest.mark.parametrize("config, mode", CASES, ids=[golden_name(c, m)[:-5] for c, m in CASES])
def test_plan_matches_golden(config, mode):
    name = golden_name(config, mode)
    actual = json.dumps(snapshot(config, mode), indent=1) + "\n"
    golden = GOLDEN / name
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        golden.write_text(actual)
    if not golden.exists():
        pytest.fail(
            f"no golden snapshot {golden.relative_to(REPO)}; create it with\n"
            f"  TIPC_UPDATE_GOLDEN=1 python -m pytest tests/plan/test_golden.py -k '{name[:-5]}'\n"
            f"and review it",
            pytrace=False,
        )
    assert actual == golden.read_text(), (
        f"plan differs from {golden.relative_to(REPO)} (TIPC_UPDATE_GOLDEN=1 to update)"
    )
