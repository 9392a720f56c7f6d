"""benchmark_train plans against PaddleClas's own ``test_tipc/benchmark_train.sh``, run with a recording interpreter.

For every PaddleClas snapshot config with a ``train_benchmark_params`` section, without PARAMS (the section's lists
on N1C4) and with a one-card PARAMS word (a profiling pass, then the timed run): the script runs from a scratch
checkout with ``python`` on PATH recording its argv (``tests/support/suite_bash``). Its training commands, in
order, must be the plan's stages' argv, and the logs it wrote under ``BENCHMARK_LOG_DIR`` the plan's stage logs.
Skipped without the snapshots, as the other parity tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.suite_bash import ROOT as RECORDED_ROOT
from tests.support.suite_bash import _parse, _scratch, suites_root
from tests.support.suite_parity import MACHINE_FLAGS
from tipc.config.benchmark import parse_selectors
from tipc.config.modes import Mode
from tipc.errors import ConfigError
from tipc.plan.model import BenchmarkOptions, PlanOptions
from tipc.suites import builtin
from tipc.suites.benchmark import SECTION
from tipc.suites.dialect import CONFIG_DIR

SUITES = suites_root(Path(__file__).resolve().parents[2])
REPO_NAME = "tipc-bench-root"  # the scratch checkout's folder: the script names its logs after it
PARAMS = ("", "dynamic_bs8_fp32_DP_N1C1")
# tipc refuses a section with a line left out (the script would shift every later value into another role).
NAMED_REFUSAL = "reads train_benchmark_params by position"
REFUSED = 7  # the configs whose section lacks its num_workers line while their train line has num_workers=0
pytestmark = [
    pytest.mark.slow,  # 172 bash runs of the suite's script: about 90 s on the 2-core machine
    pytest.mark.skipif(SUITES is None, reason="no shared/suites snapshots beside the repository (TIPC_SUITES unset)"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run the suites' scripts with"),
]


def bench_configs() -> list[Path]:
    if SUITES is None:
        return []
    found = builtin.PADDLECLAS.configs(SUITES / "PaddleClas" / CONFIG_DIR)
    return [p for p in found if SECTION in p.read_text(errors="replace")]


def recorded(config: Path, params: str, work: Path) -> tuple[list[tuple[str, ...]], list[str]]:
    """The training argv lists the script ran (interpreter left out) and the logs it wrote, relative to its log dir."""
    assert SUITES is not None
    root = _scratch(SUITES / "PaddleClas", work / REPO_NAME)
    (root / ".bin" / "python").symlink_to(root / ".bin" / "record")
    out, logs = root / ".recorded.jsonl", work / "bench"
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "OLDPWD", "PROFILING_TIMER_ONLY")}
    env.update(PATH=f"{root / '.bin'}{os.pathsep}{env['PATH']}", TIPC_RECORD_FILE=str(out),
               BENCHMARK_LOG_DIR=str(logs), BENCHMARK_ROOT="/benchmark-root")  # fmt: skip
    argv = ["bash", "test_tipc/benchmark_train.sh", str(config), "benchmark_train", *([params] if params else [])]
    subprocess.run(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    ran = [_parse(r, str(root)) for r in out.read_text().split("\x1e")[1:]] if out.exists() else []
    trains = [r.argv for r in ran if r.argv[:1] != ("-c",) and "/benchmark-root/scripts/analysis.py" not in r.argv]
    written = sorted(
        str(p.relative_to(logs)) for kind in ("train_log", "profiling_log") for p in (logs / kind).glob("*")
    )
    return trains, written


def planned(config: Path, params: str, root: str) -> tuple[list[tuple[str, ...]], list[str]] | str:
    """The plan's argv lists and logs, as ``recorded`` gives the script's; a refusal's message when tipc refuses."""
    options = PlanOptions(
        Mode.BENCHMARK_TRAIN,
        repo=root,
        python="python",
        benchmark=BenchmarkOptions(parse_selectors(params) if params else (), "/logs"),
    )
    try:
        plan = builtin.PADDLECLAS.build(builtin.PADDLECLAS.load(str(config)), options, lambda name: "")
    except ConfigError as exc:
        return exc.message
    argvs = [
        tuple(t.replace(root, RECORDED_ROOT) for t in s.argv[1:] if not t.startswith(MACHINE_FLAGS))
        for s in plan.stages()
    ]
    return argvs, sorted(os.path.relpath(s.log, "/logs") for s in plan.stages())


@pytest.mark.parametrize("params", PARAMS, ids=["no-params", "one-card-params"])
def test_the_plans_run_what_paddleclass_benchmark_train_runs(tmp_path: Path, params: str) -> None:
    configs = bench_configs()
    assert len(configs) >= 80, f"expected PaddleClas's ~90 configs with a {SECTION} section, found {len(configs)}"
    differing, refused = [], []
    for index, config in enumerate(configs):
        work = tmp_path / str(index)
        theirs = recorded(config, params, work)
        ours = planned(config, params, str(work / REPO_NAME))
        if isinstance(ours, str) and NAMED_REFUSAL in ours:
            refused.append(config.name)
        elif ours != theirs:
            differing.append(f"{config.name}: bash {theirs} / tipc {ours}")
    print(f"PaddleClas benchmark_train {params or 'without PARAMS'}: {len(configs) - len(refused)} of {len(configs)} "
          f"configs agree, {len(refused)} refused ({NAMED_REFUSAL})")  # fmt: skip
    assert not differing, f"{len(differing)} of {len(configs)} differ; first: {differing[0]}"
    assert len(refused) == REFUSED
