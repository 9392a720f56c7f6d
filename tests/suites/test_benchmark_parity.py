"""benchmark_train plans against each suite's own ``test_tipc/benchmark_train.sh``, run with a recording interpreter.

For every PaddleClas, PaddleSeg and PaddleDetection snapshot config with a ``train_benchmark_params`` section,
without PARAMS (the section's lists on the script's devices), with a one-card PARAMS word (a profiling pass, then
the timed run) and a to-static one on eight cards: the script runs from a scratch
checkout with ``python`` on PATH recording its argv (``tests/support/suite_bash``). Its training commands, in
order, must be the plan's stages' argv, and the logs it wrote under ``BENCHMARK_LOG_DIR`` the plan's stage logs.
Skipped without the snapshots, as the other parity tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.support.suite_bash import ROOT as RECORDED_ROOT
from tests.support.suite_bash import _parse, _scratch, snapshot_key, suites_root
from tests.support.suite_parity import MACHINE_FLAGS, det_custom_op_fix
from tipc.config.benchmark import parse_selectors
from tipc.config.modes import Mode
from tipc.dialects.paddleclas import PADDLECLAS
from tipc.dialects.paddledetection import PADDLEDETECTION
from tipc.dialects.paddleseg import PADDLESEG
from tipc.errors import ConfigError
from tipc.plan.model import BenchmarkOptions, PlanOptions
from tipc.suites.benchmark import SECTION, TO_STATIC_TRAINER
from tipc.suites.dialect import CONFIG_DIR, Dialect

SUITES = suites_root(Path(__file__).resolve().parents[2])
REPO_NAME = "tipc-bench-root"  # the scratch checkout's folder: the script names its logs after it
PARAMS = ("", "dynamic_bs8_fp32_DP_N1C1", "dynamicTostatic_bs4_fp16_DP_N1C8", "dynamicTostatic")
# tipc refuses a section with a line left out (the script would shift every later value into another role).
NAMED_REFUSAL = "reads train_benchmark_params by position"
# (dialect, configs with the section at least, refused): PaddleClas's 7 lack their num_workers line while their
# train line has num_workers=0.
SUITES_UNDER_TEST = {
    "PaddleClas": (PADDLECLAS, 80, 7),
    "PaddleSeg": (PADDLESEG, 22, 0),
    "PaddleDetection": (PADDLEDETECTION, 23, 0),
}
# The script's own commands that are not training: the frame version probe, the analysis step, PaddleSeg's
# log filter (tipc reads the speed itself, tipc.metrics.speed).
NOT_TRAINING = ("/benchmark-root/scripts/analysis.py", "test_tipc/filter_log.py")
pytestmark = [
    pytest.mark.slow,  # 524 bash runs of the suites' scripts: about 330 s on the 2-core machine (then cached)
    pytest.mark.skipif(SUITES is None, reason="no shared/suites snapshots beside the repository (TIPC_SUITES unset)"),
    pytest.mark.skipif(shutil.which("bash") is None, reason="no bash to run the suites' scripts with"),
]


def bench_configs(suite: str, dialect: Dialect) -> list[Path]:
    if SUITES is None:
        return []
    found = dialect.configs(SUITES / suite / CONFIG_DIR)
    return [p for p in found if SECTION in p.read_text(errors="replace")]


def recorded(suite: str, config: Path, params: str, work: Path) -> tuple[list[tuple[str, ...]], list[str], bool]:
    """``record``'s findings, read back from the system's temporary folder while the suite's scripts and the config
    are unchanged (as the train-mode recordings are: 524 bash runs take minutes; reading them back, a second)."""
    assert SUITES is not None
    key = snapshot_key(SUITES / suite, [config])
    cache = Path(tempfile.gettempdir()) / "tipc-suite-recordings" / f"bench-{suite}" / f"{key}-{params or 'none'}.json"
    if cache.is_file():
        trains, written, documented = json.loads(cache.read_text())
        return [tuple(t) for t in trains], written, documented
    found = record(suite, config, params, work)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(f".{cache.name}.{os.getpid()}")
    partial.write_text(json.dumps(found))
    partial.replace(cache)  # whole or absent: a killed session leaves no half recording
    return found


def record(suite: str, config: Path, params: str, work: Path) -> tuple[list[tuple[str, ...]], list[str], bool]:
    """The training argv lists the script ran (interpreter left out), the logs it wrote, relative to its log dir,
    and whether a documented fix left a command out."""
    assert SUITES is not None
    root = _scratch(SUITES / suite, work / REPO_NAME)
    (root / ".bin" / "python").symlink_to(root / ".bin" / "record")
    out, logs = root / ".recorded.jsonl", work / "bench"
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "OLDPWD", "PROFILING_TIMER_ONLY")}
    env.update(PATH=f"{root / '.bin'}{os.pathsep}{env['PATH']}", TIPC_RECORD_FILE=str(out),
               BENCHMARK_LOG_DIR=str(logs), BENCHMARK_ROOT="/benchmark-root")  # fmt: skip
    argv = ["bash", "test_tipc/benchmark_train.sh", str(config), "benchmark_train", *([params] if params else [])]
    subprocess.run(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    ran = [_parse(r, str(root)) for r in out.read_text().split("\x1e")[1:]] if out.exists() else []
    fixed = det_custom_op_fix(config, tuple(ran))  # a documented fix (docs/suites.md)
    documented, ran = len(fixed) != len(ran), list(fixed)
    trains = [r.argv for r in ran if r.argv[:1] != ("-c",) and not any(a in r.argv for a in NOT_TRAINING)]
    written = sorted(
        str(p.relative_to(logs)) for kind in ("train_log", "profiling_log") for p in (logs / kind).glob("*")
    )
    return trains, written, documented


def planned(
    dialect: Dialect, config: Path, params: str, root: str
) -> tuple[list[tuple[str, ...]], list[str], list[str]] | str:
    """The plan's argv lists and logs, as ``recorded`` gives the script's, and the log names of the runs it skips
    (their harness trains nothing); a refusal's message when tipc refuses."""
    options = PlanOptions(
        Mode.BENCHMARK_TRAIN,
        repo=root,
        python="python",
        benchmark=BenchmarkOptions(parse_selectors(params) if params else (), "/logs"),
    )
    try:
        plan = dialect.build(dialect.load(str(config)), options, lambda name: "")
    except ConfigError as exc:
        return exc.message
    argvs = [
        tuple(t.replace(root, RECORDED_ROOT) for t in s.argv[1:] if not t.startswith(MACHINE_FLAGS))
        for s in plan.stages()
    ]
    skipped = []
    for skip in plan.skipped:
        model_type, _, rest = skip.id.partition("-bs")
        if rest and "::" not in rest:
            to_static = "d2sT_" if model_type == TO_STATIC_TRAINER else ""
            skipped.append(f"_bs{rest.replace('-', '_')}_{to_static}log")
    return argvs, sorted(os.path.relpath(s.log, "/logs") for s in plan.stages()), skipped


@pytest.mark.parametrize(
    "params", PARAMS, ids=["no-params", "one-card-params", "to-static-eight-cards", "bare-to-static"]
)
@pytest.mark.parametrize("suite", SUITES_UNDER_TEST)
def test_the_plans_run_what_the_suites_benchmark_train_runs(tmp_path: Path, suite: str, params: str) -> None:
    dialect, at_least, refusals = SUITES_UNDER_TEST[suite]
    configs = bench_configs(suite, dialect)
    assert len(configs) >= at_least, (
        f"expected {at_least} {suite} configs with a {SECTION} section, found {len(configs)}"
    )
    differing, refused, fixed = [], [], 0
    for index, config in enumerate(configs):
        work = tmp_path / str(index)
        argvs, logs, documented = recorded(suite, config, params, work)
        ours = planned(dialect, config, params, str(work / REPO_NAME))
        if isinstance(ours, str) and NAMED_REFUSAL in ours:
            refused.append(config.name)
            continue
        if isinstance(ours, tuple):
            # A documented fix: where the harness trains nothing (PaddleDetection without a to_static_train
            # section), the script still writes that run's log; tipc plans no stage and says why.
            empty = [log for log in logs if log.startswith("train_log/") and log.endswith(tuple(ours[2]))]
            fixed += bool(empty) or documented
            logs = [log for log in logs if log not in empty]
            ours = ours[:2]
        if ours != (argvs, logs):
            differing.append(f"{config.relative_to(SUITES / suite)}: bash {(argvs, logs)} / tipc {ours}")
    print(f"{suite} benchmark_train {params or 'without PARAMS'}: {len(configs) - len(refused)} of {len(configs)} "
          f"configs agree ({fixed} by a documented fix), {len(refused)} refused ({NAMED_REFUSAL})")  # fmt: skip
    assert not differing, f"{len(differing)} of {len(configs)} differ; first: {differing[0]}"
    assert len(refused) == refusals
