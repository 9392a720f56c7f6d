"""What the probes found, as values: the checks are pure functions of these.

``parse_environment`` reads the JSON line ``inspect_env.py`` prints in the stage interpreter;
``parse_nvidia_smi`` the header of ``nvidia-smi``'s table. Both are pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tipc.doctor.inspect_env import LIBRARIES


@dataclass(frozen=True, slots=True)
class PaddleBuild:
    version: str
    commit: str = ""
    cuda_build: bool = False
    cuda: str = ""  # the CUDA it was built for ("" on a CPU build)
    cudnn: str = ""
    location: str = ""


@dataclass(frozen=True, slots=True)
class Library:
    name: str  # cudart, cublas, cudnn, nccl
    path: str = ""  # "" when it does not resolve
    source: str = ""  # LD_LIBRARY_PATH, pip nvidia package, paddle's own libs, ldconfig cache


@dataclass(frozen=True, slots=True)
class Environment:
    """The stage interpreter's answers; ``problem`` says why there are none."""

    python_version: str = ""
    executable: str = ""
    paddle: PaddleBuild | None = None
    paddle_error: str = ""  # why paddle did not import
    libraries: tuple[Library, ...] = ()
    auto_log: bool = False
    auto_log_where: str = ""  # its file, or why it did not import
    auto_log_dropin: str = ""  # tipc's drop-in, importable as tipc.compat.auto_log (not as auto_log)
    packages: tuple[tuple[str, str], ...] = ()  # the asked packages' versions, "" when not installed
    problem: str = ""


@dataclass(frozen=True, slots=True)
class RunCheck:
    ok: bool
    detail: str  # the last line it printed, or why it did not end
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class Driver:
    """``nvidia-smi``'s header; ``problem``: it is there but did not answer (a driver/library mismatch)."""

    version: str = ""
    cuda: str = ""  # the newest CUDA this driver supports
    problem: str = ""


def _library(name: str, found: Any) -> Library:
    if isinstance(found, dict):
        return Library(name, str(found.get("path", "")), str(found.get("source", "")))
    return Library(name)


def _paddle(answer: dict[str, Any]) -> PaddleBuild | None:
    if "version" not in answer:
        return None
    return PaddleBuild(
        version=str(answer["version"]),
        commit=str(answer.get("commit", "")),
        cuda_build=bool(answer.get("cuda_build", False)),
        cuda=str(answer.get("cuda", "")),
        cudnn=str(answer.get("cudnn", "")),
        location=str(answer.get("location", "")),
    )


def parse_environment(stdout: str) -> Environment:
    """The last line of ``inspect_env.py``'s output; ``ValueError`` when it is not its answer."""
    lines = stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict) or "python_version" not in answer:
        raise ValueError("no answer from the environment probe")
    paddle = answer.get("paddle") or {}
    libraries = answer.get("libraries") or {}
    auto_log = answer.get("auto_log") or {}
    return Environment(
        python_version=str(answer["python_version"]),
        executable=str(answer.get("executable", "")),
        paddle=_paddle(paddle),
        paddle_error=str(paddle.get("error", "")),
        libraries=tuple(_library(name, libraries.get(name)) for name in LIBRARIES),
        auto_log=bool(auto_log.get("importable", False)),
        auto_log_where=str(auto_log.get("location") or auto_log.get("error") or ""),
        auto_log_dropin=str(auto_log.get("dropin", "")),
        packages=tuple((str(k), str(v)) for k, v in (answer.get("packages") or {}).items()),
    )


_DRIVER = re.compile(r"Driver Version:\s*([0-9][0-9.]*)")
_CUDA = re.compile(r"CUDA Version:\s*([0-9][0-9.]*)")


def parse_nvidia_smi(stdout: str) -> Driver:
    driver, cuda = _DRIVER.search(stdout), _CUDA.search(stdout)
    if driver is None:
        return Driver(problem="nvidia-smi printed no driver version")
    return Driver(driver.group(1), cuda.group(1) if cuda else "")
