"""Run by the stage interpreter, never imported by tipc: what that interpreter sees, as one JSON line.

tipc never imports paddle; ``tipc doctor`` runs this file with the interpreter the
stages will run with (``python inspect_env.py [--path DIR]…``), so the answers are
that interpreter's: its paddle build, the CUDA libraries its process would load and
from where, and whether ``auto_log`` imports with the stages' ``PYTHONPATH`` (each
``--path`` goes first on ``sys.path``, as the stages' ``PYTHONPATH`` would put it), and the
versions of the packages named by ``--package`` (tipc's table of known-bad releases).
It imports nothing of tipc (the stage interpreter may not have tipc installed) and
never raises: a problem is a field of the answer.
"""

from __future__ import annotations

import glob
import importlib
import importlib.util
import json
import os
import platform
import re
import shutil
import site
import subprocess
import sys
from typing import Any

LIBRARIES = ("cudart", "cublas", "cudnn", "nccl")
LDCONFIG_TIMEOUT = 10.0


def _text(value: Any) -> str:
    """paddle.version's answers: a version string, or False on a CPU build."""
    return "" if value in (None, False, "False") else str(value)


def paddle_facts() -> dict[str, Any]:
    try:
        paddle = importlib.import_module("paddle")
    except BaseException as exc:  # noqa: BLE001 -- a broken build raises anything, even SystemExit
        return {"error": f"{type(exc).__name__}: {exc}"[:500]}
    version = getattr(paddle, "version", None)

    def ask(name: str) -> str:
        try:
            return _text(getattr(version, name)())
        except Exception:  # noqa: BLE001 -- an old paddle lacks it: no answer
            return ""

    try:
        cuda_build = bool(paddle.device.is_compiled_with_cuda())
    except Exception:  # noqa: BLE001 -- an old paddle lacks it: ask paddle.version
        cuda_build = bool(ask("cuda"))
    return {
        "version": str(getattr(paddle, "__version__", "")),
        "commit": _text(getattr(version, "commit", "")),
        "cuda_build": cuda_build,
        "cuda": ask("cuda"),
        "cudnn": ask("cudnn"),
        "location": os.path.dirname(str(getattr(paddle, "__file__", "") or "")),
    }


def _ldconfig_cache() -> dict[str, str]:
    """soname → path from the dynamic linker's cache (``ldconfig -p``)."""
    ldconfig = shutil.which("ldconfig") or next(
        (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.path.exists(p)), None
    )
    if ldconfig is None:
        return {}
    try:
        done = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=LDCONFIG_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    found: dict[str, str] = {}
    for line in done.stdout.splitlines():
        match = re.match(r"\s*(\S+)\s+\(.*\)\s+=>\s+(\S+)", line)
        if match:
            found.setdefault(match.group(1), match.group(2))
    return found


def _search_dirs(paddle_dir: str) -> list[tuple[str, str]]:
    """(directory, where it comes from) in the order the process would find a library there:
    LD_LIBRARY_PATH, then the pip ``nvidia-*`` packages paddle's GPU wheels load, then paddle's own."""
    dirs = [(d, "LD_LIBRARY_PATH") for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    for packages in [*site.getsitepackages(), site.getusersitepackages()]:
        dirs += [(d, "pip nvidia package") for d in sorted(glob.glob(os.path.join(packages, "nvidia", "*", "lib")))]
    if paddle_dir:
        dirs.append((os.path.join(paddle_dir, "libs"), "paddle's own libs"))
    return dirs


def library_facts(paddle_dir: str) -> dict[str, Any]:
    """Per library: the file the process would load and from where, or None when none resolves."""
    cache = _ldconfig_cache()
    out: dict[str, Any] = {}
    for name in LIBRARIES:
        out[name] = None
        for directory, source in _search_dirs(paddle_dir):
            files = sorted(glob.glob(os.path.join(directory, f"lib{name}.so*")))
            if files:
                out[name] = {"path": files[0], "source": source}
                break
        else:
            cached = sorted(p for soname, p in cache.items() if soname.startswith(f"lib{name}.so"))
            if cached:
                out[name] = {"path": cached[0], "source": "ldconfig cache"}
    return out


def _dropin() -> str:
    """Where tipc's drop-in is importable under its own name (a target may import it so), or ""."""
    try:
        spec = importlib.util.find_spec("tipc.compat.auto_log")
    except (ImportError, ValueError):
        return ""
    return str(spec.origin) if spec is not None and spec.origin else ""


def auto_log_facts() -> dict[str, Any]:
    try:
        module = importlib.import_module("auto_log")
    except BaseException as exc:  # noqa: BLE001 -- whatever it raises is the answer
        return {"importable": False, "error": f"{type(exc).__name__}: {exc}"[:300], "dropin": _dropin()}
    return {"importable": True, "location": str(getattr(module, "__file__", ""))}


def package_versions(names: list[str]) -> dict[str, str]:
    """Each distribution's version from its metadata (nothing imported); "" when not installed."""
    import importlib.metadata

    out = {}
    for name in names:
        try:
            out[name] = importlib.metadata.version(name)
        except Exception:  # noqa: BLE001 -- not installed, or metadata that does not read
            out[name] = ""
    return out


def main(argv: list[str]) -> None:
    paths = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--path"]
    names = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg == "--package"]
    sys.path[:0] = paths
    paddle = paddle_facts()
    answer = {
        "python_version": platform.python_version(),
        "executable": sys.executable,
        "paddle": paddle,
        "libraries": library_facts(str(paddle.get("location", ""))),
        "auto_log": auto_log_facts(),
        "packages": package_versions(names),
    }
    print(json.dumps(answer))


if __name__ == "__main__":
    main(sys.argv[1:])
