"""Parse and plan every config under test_configs/ in all four modes; print the total and per-plan time.

Target: well under 1 s in total (planning is on the path of every `tipc plan` and pytest collection).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tipc.config import load_config
from tipc.config.locate import CONFIG_DIR, find_configs
from tipc.errors import ConfigError
from tipc.plan import MODES, PlanOptions, build_plan

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    configs = find_configs(REPO / CONFIG_DIR)
    plans = stages = errors = 0
    start = time.perf_counter()
    for path in configs:
        for mode in MODES:
            try:
                plan = build_plan(load_config(path), PlanOptions(mode, repo=str(REPO), python="python"))
            except ConfigError:
                errors += 1
                continue
            plans += 1
            stages += sum(1 for _ in plan.stages())
    total = time.perf_counter() - start
    mean_ms = 1000 * total / max(1, plans + errors)
    print(
        f"plan_speed: {len(configs)} configs x {len(MODES)} modes = {plans} plans ({stages} stages, "
        f"{errors} config errors) in {total:.3f} s; {mean_ms:.2f} ms per plan"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
