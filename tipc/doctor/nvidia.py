"""The NVIDIA driver (``nvidia-smi``) and whether it suits the CUDA paddle was built for."""

from __future__ import annotations

from tipc.doctor.checks import Check, GpuNeed, State
from tipc.doctor.compat import CompatTable, DriverFit, series, version_key
from tipc.doctor.facts import Driver, PaddleBuild

DRIVER = "nvidia driver"
COMPAT = "cuda compatibility"


def check_driver(driver: Driver | None, need: GpuNeed) -> Check:
    if not need.applies:
        return need.not_applicable(DRIVER)
    if driver is None:
        return need.missing(
            DRIVER, "no nvidia-smi on PATH: no NVIDIA driver", "install the NVIDIA driver, or pass --device cpu"
        )
    if driver.problem:
        return need.missing(DRIVER, driver.problem, "reinstall the NVIDIA driver (or reboot after an upgrade)")
    return Check(DRIVER, State.PASS, f"driver {driver.version}, supports CUDA up to {driver.cuda or '?'}")


def _published(table: CompatTable, build: PaddleBuild) -> Check | None:
    """A warning when paddle's release is not published for its CUDA (a custom build, or the table is old)."""
    builds = table.published(build.version)
    if builds is None or series(build.cuda) in builds:
        return None
    return Check(
        COMPAT,
        State.WARN,
        f"paddle {series(build.version)} is published for CUDA {', '.join(builds)}, not {series(build.cuda)}",
        f"install one of paddle {series(build.version)}'s CUDA builds (tipc/doctor/cuda_compat.json)",
    )


def check_compat(build: PaddleBuild | None, driver: Driver | None, need: GpuNeed, table: CompatTable) -> Check:
    if not need.applies:
        return need.not_applicable(COMPAT)
    if build is None or not build.cuda_build or driver is None or driver.problem:
        return Check(COMPAT, State.NA, "needs a CUDA build of paddle and a driver that answers")
    fit, wanted = table.driver_fit(build.cuda, driver.version)
    where = f"paddle built for CUDA {build.cuda}, driver {driver.version} (CUDA {driver.cuda or '?'})"
    fix = f"install NVIDIA driver >= {wanted}, or a paddlepaddle-gpu built for CUDA <= {driver.cuda or 'the driver'}"
    if fit is DriverFit.UNKNOWN:  # a CUDA the table lacks: the driver's own claim decides
        ok = bool(driver.cuda) and version_key(driver.cuda) >= version_key(series(build.cuda))
        return Check(COMPAT, State.PASS if ok else State.FAIL, where, "" if ok else fix)
    if fit is DriverFit.TOO_OLD:
        return need.missing(COMPAT, f"{where}: the driver is older than CUDA {series(build.cuda)} needs", fix)
    if fit is DriverFit.MINOR_COMPAT:
        return Check(COMPAT, State.WARN, f"{where}: runs by CUDA minor version compatibility only (no PTX JIT)", fix)
    return _published(table, build) or Check(COMPAT, State.PASS, where)
