"""A suite's own ``test_train_inference_python.sh``, run with a recording interpreter (``shared/suites/README.md``).

For one config and mode, the suite's ``test_tipc/*.sh`` run from a scratch folder with the config's ``python:``
value replaced by a recorder that appends its argv, working directory and ``CUDA_VISIBLE_DEVICES`` as one JSON
line to a file, and exits 0. ``sleep``, ``pip`` and ``timeout`` are stubbed on PATH too (PaddleClas sleeps 10 s per
chain, PaddleDetection runs ``pip list`` for one model, ``timeout 5m`` wraps its trains). The recorded commands are
the suite's plan for that config and mode.

Recording every config in every mode takes minutes, so a session records each suite once, in a cache folder
under the system's temporary folder keyed by a hash of the snapshot (its scripts and configs) and of this
recorder: a later session with the same snapshot reads the recordings back.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

SUITES_ENV = "TIPC_SUITES"  # a folder holding <Suite>/test_tipc snapshots
SCRIPT = "test_train_inference_python.sh"
ROOT = "<ROOT>"  # the scratch checkout's path, in the recordings (PaddleClas builds absolute paths)
WORKERS = 2
# Folders of a real checkout the bash enters (PaddleClas infers from deploy/; PaddleDetection builds dino's
# operator in ext_op/ and comes back with ``cd -``, which without the folder would go to the caller's OLDPWD).
CHECKOUT_FOLDERS = ("deploy", "ppdet/modeling/transformers/ext_op")
RECORDER_VERSION = "3"  # part of the cache key: bump it when what a recording holds changes


def suites_root(repo: Path) -> Path | None:
    """``$TIPC_SUITES``, else the first ``shared/suites`` beside the repository or above it (CI: ``../shared``)."""
    named = os.environ.get(SUITES_ENV)
    if named:
        return Path(named) if Path(named).is_dir() else None
    for parent in repo.resolve().parents:
        candidate = parent / "shared" / "suites"
        if candidate.is_dir():
            return candidate
    return None


@dataclass(frozen=True, slots=True)
class Ran:
    argv: tuple[str, ...]  # without the interpreter
    cwd: str  # relative to the scratch checkout ("." at its root)
    cuda: str | None


# A shell recorder (a Python one costs 50 ms a command, most of a recording): one record per command, fields
# NUL-separated, records started by RS: the working directory, CUDA_VISIBLE_DEVICES ("+" before it when set), argv.
_RECORDER = """#!/bin/sh
{ printf '\\036%s\\0' "$(pwd)"; printf '%s\\0' "${CUDA_VISIBLE_DEVICES+x$CUDA_VISIBLE_DEVICES}"; \\
  printf '%s\\0' "$@"; } >> "$TIPC_RECORD_FILE"
"""
_TRUE = "#!/bin/sh\nexit 0\n"


def snapshot_key(suite: Path, configs: Iterable[Path]) -> str:
    digest = hashlib.sha256((RECORDER_VERSION + _RECORDER).encode())
    for path in sorted([*suite.glob("test_tipc/*.sh"), *configs]):
        digest.update(str(path.relative_to(suite)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _scratch(suite: Path, where: Path) -> Path:
    """A checkout-shaped folder: the suite's scripts, ``CHECKOUT_FOLDERS``, the stubs."""
    (where / "test_tipc").mkdir(parents=True)
    for script in (*suite.glob("test_tipc/*.sh"), *suite.glob("test_tipc/*.py")):
        shutil.copy(script, where / "test_tipc" / script.name)
    for folder in CHECKOUT_FOLDERS:
        (where / folder).mkdir(parents=True)
    bin_dir = where / ".bin"
    bin_dir.mkdir()
    (bin_dir / "record").write_text(_RECORDER)
    for name in ("sleep", "pip", "timeout"):
        (bin_dir / name).write_text(_TRUE if name != "timeout" else '#!/bin/sh\nshift\nexec "$@"\n')
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    return where


def _copy_config(config: Path, where: Path, recorder: Path) -> Path:
    """The config with its ``python:`` value replaced by the recorder, everything else byte for byte."""
    lines = config.read_bytes().split(b"\n")
    for index, line in enumerate(lines):
        if line.strip().startswith(b"python:"):
            lines[index] = b"python:" + str(recorder).encode()
            break
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_bytes(b"\n".join(lines))
    return where


def record_one(suite: Path, config: Path, mode: str, work: Path, script: str = SCRIPT) -> tuple[Ran, ...]:
    """What the suite's bash runs for ``config`` in ``mode`` (``work``: an empty folder of its own). A device script
    (``script``: ``…_npu.sh``) gets the config at its own path in the checkout, as a user passes it: PaddleClas's
    takes the model from that path."""
    root = _scratch(suite, work)
    for folder in extra_folders(config):
        (root / folder).mkdir(parents=True, exist_ok=True)
    where = config.relative_to(suite) if script != SCRIPT else Path(".config") / config.name
    copy = _copy_config(config, root / where, root / ".bin" / "record")
    out = root / ".recorded.jsonl"
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "OLDPWD")}
    env.update(PATH=f"{root / '.bin'}{os.pathsep}{env['PATH']}", TIPC_RECORD_FILE=str(out))
    subprocess.run(
        ["bash", f"test_tipc/{script}", str(copy if script == SCRIPT else where), mode],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=300,
        check=False,
    )
    if not out.exists():
        return ()
    return tuple(_parse(record, str(root)) for record in out.read_text().split("\x1e")[1:])


def _parse(record: str, root: str) -> Ran:
    cwd, cuda, *argv = record.split("\0")[:-1]
    return Ran(
        tuple(a.replace(root, ROOT) for a in argv),
        os.path.relpath(cwd, root),
        cuda[1:] if cuda else None,
    )


def extra_folders(config: Path) -> tuple[str, ...]:
    """Folders a real run has made by the time the bash enters them: PaddleClas's ``kl_quant`` writes
    ``<infer_model>/quant_post_static_model`` and the bash ``cd``s into it (inside the checkout only)."""
    text = config.read_text(errors="replace")
    if "\nkl_quant:" not in text or "\nkl_quant:null" in text:
        return ()
    model = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("infer_model:")), "")
    return (f"{model.rstrip('/')}/quant_post_static_model",) if model.startswith("./") else ()


def record_suite(
    suite: Path, configs: tuple[Path, ...], modes: tuple[str, ...], script: str = SCRIPT
) -> dict[tuple[str, str], tuple[Ran, ...]]:
    """Every config × mode, from the cache when this snapshot was recorded before."""
    name = suite.name if script == SCRIPT else f"{suite.name}-{script.removesuffix('.sh')}"
    cache = Path(tempfile.gettempdir()) / "tipc-suite-recordings" / f"{name}-{snapshot_key(suite, configs)}"
    done = cache / "recordings.json"
    if done.is_file():
        saved = json.loads(done.read_text())
        # Configs are kept relative to the snapshot: CI's copy of it lies elsewhere than a session's.
        return {(str(suite / c), m): tuple(Ran(tuple(r[0]), r[1], r[2]) for r in rows) for c, m, rows in saved}
    work = Path(tempfile.mkdtemp(prefix=f"record-{suite.name}-"))
    jobs = [(config, mode) for config in configs for mode in modes]

    def one(index: int) -> tuple[Ran, ...]:
        config, mode = jobs[index]
        return record_one(suite, config, mode, work / str(index), script)

    try:
        with ThreadPoolExecutor(WORKERS) as pool:
            results = list(pool.map(one, range(len(jobs))))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    recorded = {(str(config), mode): ran for (config, mode), ran in zip(jobs, results, strict=True)}
    cache.mkdir(parents=True, exist_ok=True)
    rows = [
        [os.path.relpath(c, suite), m, [[list(r.argv), r.cwd, r.cuda] for r in ran]] for (c, m), ran in recorded.items()
    ]
    partial = cache / f".recordings.{os.getpid()}"
    partial.write_text(json.dumps(rows))
    partial.replace(done)  # whole or absent: a killed session leaves no half cache
    return recorded
