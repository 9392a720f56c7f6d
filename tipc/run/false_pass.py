"""Exit code 0 is not always success: the checks that catch the targets' known false passes.

PaddleOCR's trainer returns 0 when its data loader is empty (fewer images than one batch per
card) and never writes a checkpoint; its predictor logs a traceback and exits 0 after a
recognition error (spec §8 B14). The bash recorded both as "Run successfully".
"""

from __future__ import annotations

from pathlib import Path

from tipc.plan.model import Stage, StageKind
from tipc.run.gating import missing_outputs

TRACEBACK = "Traceback (most recent call last)"


def false_pass(stage: Stage, cwd: Path, log_text: str, owns_outputs: bool) -> str:
    """Why a stage that exited 0 still failed, or "" when it did its job.

    ``owns_outputs`` is False on a node other than trainer 0's, which writes no checkpoint.
    """
    if owns_outputs:
        missing = missing_outputs(stage, cwd)
        if missing:
            return f"exit code 0 but it did not write {', '.join(missing)}"
    if stage.kind is StageKind.INFER and TRACEBACK in log_text:
        return "exit code 0 but its log shows a Python traceback (the predictor hid an error)"
    return ""
