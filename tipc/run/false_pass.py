"""Exit code 0 is not always success: the checks that catch the targets' known false passes.

PaddleOCR's trainer returns 0 when its data loader is empty (fewer images than one batch per
card) and never writes a checkpoint; its predictor logs a traceback and exits 0 after a
recognition error (README, "What tipc fixes", 5). The bash recorded both as "Run successfully".
A checkpoint counts only when *this* stage wrote it: a nightly re-runs in the same folder, and
an earlier night's ``latest.pdparams`` proves nothing about tonight's training.

An output may name further files (a dialect's ``manifests``: PaddleSeg's ``deploy.yaml`` names the model and
params its predictor loads). Each file it names must be there and modified since the stage started: an export
that wrote ``model.json`` beside an earlier run's ``model.pdmodel``, which its ``deploy.yaml`` names, did not make
the model its predictor would load.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from tipc.errors import ConfigError
from tipc.metrics.logfile import contains
from tipc.plan.model import Stage, StageKind

TRACEBACK = "Traceback (most recent call last)"

# (inode, mtime in ns, size): a file rewritten in place or replaced by rename changes at least one.
Signature = tuple[int, int, int]
# An output's file name -> the paths it names, relative to its folder (``tipc.suites.dialect.Dialect.manifests``)
Manifests = Mapping[str, Callable[[Path], tuple[str, ...]]]
# A file system's coarse clock (FAT's 2 s) may date a file written just after the start before it.
MTIME_SLACK_NS = 2_000_000_000


def output_signatures(stage: Stage, cwd: Path) -> dict[str, Signature | None]:
    """Each declared output's identity before the stage runs (None: not there)."""
    out: dict[str, Signature | None] = {}
    for name in stage.outputs:
        try:
            st = os.stat(cwd / name)
        except OSError:
            out[name] = None
        else:
            out[name] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return out


def _shows(log: Path, text: str) -> bool:
    try:
        return contains(log, text)  # in chunks: a predictor's log can be large
    except OSError:
        return False


def manifest_problem(stage: Stage, cwd: Path, manifests: Manifests, started: float) -> str:
    """Why the files an output of ``stage`` names are not this run's ("" when each was written since
    ``started``, the stage's start in seconds since the epoch)."""
    for name in stage.outputs:
        reader = manifests.get(Path(name).name)
        if reader is None:
            continue
        manifest = cwd / name
        try:
            named = reader(manifest)
        except (OSError, ConfigError) as exc:
            return f"exit code 0 but its {name} cannot be read: {exc}"
        missing, stale = [], []
        for entry in named:
            try:
                modified = os.stat(manifest.parent / entry).st_mtime_ns
            except OSError:
                missing.append(entry)
                continue
            if modified < int(started * 1e9) - MTIME_SLACK_NS:
                stale.append(entry)
        if missing:
            return f"exit code 0 but {name} names {', '.join(missing)}, which it did not write"
        if stale:
            return (
                f"exit code 0 but {name} names {', '.join(stale)}, which it did not write: the file there is left "
                "from an earlier run (modified before this stage started)"
            )
    return ""


def false_pass(
    stage: Stage,
    cwd: Path,
    log: Path,
    owns_outputs: bool,
    before: dict[str, Signature | None] | None = None,
    manifests: Manifests | None = None,
    started: float = 0.0,
) -> str:
    """Why a stage that exited 0 still failed, or "" when it did its job.

    ``owns_outputs`` is False on a node other than trainer 0's, which writes no checkpoint.
    ``before``: ``output_signatures`` taken just before the stage ran; ``log``: the stage's own log;
    ``manifests``: its dialect's readers of outputs that name further files; ``started``: when it started.
    """
    if owns_outputs:
        after = output_signatures(stage, cwd)
        missing = [name for name, sig in after.items() if sig is None]
        if missing:
            return f"exit code 0 but it did not write {', '.join(missing)}"
        stale = [name for name, sig in after.items() if before is not None and before.get(name) == sig]
        if stale:
            return (
                f"exit code 0 but it did not write {', '.join(stale)}: the file there is left from an "
                "earlier run (unchanged during this stage)"
            )
        named = manifest_problem(stage, cwd, manifests, started) if manifests else ""
        if named:
            return named
    if stage.kind is StageKind.INFER and _shows(log, TRACEBACK):
        return "exit code 0 but its log shows a Python traceback (the predictor hid an error)"
    return ""
