"""One config's doctor report: every check, in the order a reader fixes them.

The interpreter first (nothing else is asked of one that does not run), then paddle and its
``run_check``, the GPU stack (driver, CUDA compatibility, libraries), the disk, the target repo,
the multi-node preflight's local half. GPU checks are not applicable unless the config asks for a
GPU and the run was not told ``--device cpu`` (``checks.gpu_need``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tipc.cluster.node import NodeContext
from tipc.doctor.checks import GpuNeed, Report, gpu_need
from tipc.doctor.compat import CompatTable, load_table
from tipc.doctor.disk import check_disk, existing_parent
from tipc.doctor.facts import Environment
from tipc.doctor.interpreter import check_interpreter, check_paddle, check_run_check
from tipc.doctor.known_bad import PADDLE, check_known_bad
from tipc.doctor.known_bad import load_table as load_known_bad
from tipc.doctor.libraries import check_libraries
from tipc.doctor.nvidia import check_compat, check_driver
from tipc.doctor.probes import Probes
from tipc.doctor.target import check_auto_log, check_nodes, check_scripts
from tipc.doctor.weights import check_pretrained, train_ymls
from tipc.history.provenance import target_commit
from tipc.plan.model import Plan
from tipc.suites import front as suites


def run_need(wants_gpu: bool, node: NodeContext | None, device: str) -> GpuNeed:
    """``wants_gpu``: the config's dialect says the bash would use a GPU; ``node``: the run's node context, which
    says how the device was chosen; ``device`` the plan option when there is none."""
    if node is None:
        return gpu_need(wants_gpu, device, f"--device {device}")
    return gpu_need(wants_gpu, node.device, node.device_reason)


def versions(env: Environment) -> dict[str, str]:
    """The asked packages' versions, Paddle's whichever build it is (``paddlepaddle-gpu`` too)."""
    found = dict(env.packages)
    if env.paddle is not None and not found.get(PADDLE):
        found[PADDLE] = env.paddle.version
    return found


def examine(
    plan: Plan,
    need: GpuNeed,
    probes: Probes,
    *,
    display: str,
    node: NodeContext | None = None,
    pythonpath: tuple[str, ...] = (),
    environ: Mapping[str, str] | None = None,
    table: CompatTable | None = None,
) -> Report:
    python = plan.python
    env = probes.environment(python, pythonpath)
    driver = probes.nvidia_smi() if need.applies else None
    run_check = probes.run_check(python) if env.paddle is not None else None
    output = existing_parent(Path(plan.cwd) / plan.output_dir)
    trains = list(train_ymls(plan))
    checks = (
        check_interpreter(python, env),
        check_paddle(python, env, need),
        check_run_check(env, run_check),
        check_driver(driver, need),
        check_compat(env.paddle, driver, need, table or load_table()),
        *check_libraries(env, need, multi_gpu=any(c.topology.launches for c in plan.chains)),
        check_disk(output, probes.free_bytes(output)),
        check_scripts(plan),
        check_auto_log(plan, env, shim=bool(pythonpath)),
        check_pretrained(plan, trains),
        *check_known_bad(
            Path(plan.cwd),
            (t.text for t in trains),
            versions(env),
            load_known_bad(),
            {} if environ is None else environ,
            lambda repo: target_commit(repo).sha,
        ),
        *check_nodes(node, {} if environ is None else environ),
    )
    return Report(display, python, checks)


def examine_config(plan: Plan, probes: Probes, *, display: str, node: NodeContext | None,
                   pythonpath: tuple[str, ...], environ: Mapping[str, str]) -> Report:  # fmt: skip
    """``examine`` for a planned config: its GPU need read from its text."""
    loaded = suites.load(plan.config_path)
    need = run_need(loaded.dialect.wants_gpu(loaded.config), node, "auto")
    return examine(plan, need, probes, display=display, node=node, pythonpath=pythonpath, environ=environ)
