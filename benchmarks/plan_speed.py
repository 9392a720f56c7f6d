"""Parse and plan every config under test_configs/ in every mode it runs in; print the total and per-plan time.

Target: well under 1 s in total (planning is on the path of every `tipc plan` and pytest collection).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tipc.config.locate import CONFIG_DIR, find_configs
from tipc.dialects.paddleocr.config import load_any_config
from tipc.dialects.paddleocr.config.formats import config_modes
from tipc.dialects.paddleocr.plan import build_plan
from tipc.errors import ConfigError
from tipc.plan import PlanOptions

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    configs = find_configs(REPO / CONFIG_DIR)
    plans = stages = errors = 0
    start = time.perf_counter()
    for path in configs:
        try:
            config = load_any_config(path)
            built = [build_plan(config, PlanOptions(m, repo=str(REPO), python="python")) for m in config_modes(config)]
        except ConfigError:
            errors += 1
            continue
        plans += len(built)
        stages += sum(1 for plan in built for _ in plan.stages())
    total = time.perf_counter() - start
    mean_ms = 1000 * total / max(1, plans + errors)
    print(
        f"plan_speed: {len(configs)} configs in their modes = {plans} plans ({stages} stages, "
        f"{errors} config errors) in {total:.3f} s; {mean_ms:.2f} ms per plan"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
