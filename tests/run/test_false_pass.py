"""Exit code 0 that is not a pass: missing outputs, a predictor's hidden traceback."""

from __future__ import annotations

import pytest

from tipc.plan.model import Stage, StageKind
from tipc.run.false_pass import false_pass

CKPT = "out/S/latest.pdparams"


def stage(kind: StageKind, outputs: tuple[str, ...] = ()) -> Stage:
    return Stage(
        id=f"c::{kind.value}",
        chain="c",
        name=kind.value,
        kind=kind,
        argv=("py",),
        env={},
        cwd=".",
        log="x.log",
        outputs=outputs,
    )


@pytest.mark.parametrize(
    ("kind", "outputs", "files", "log", "owns", "expected"),
    [
        (StageKind.TRAIN, (CKPT,), (CKPT,), "", True, ""),
        (StageKind.TRAIN, (CKPT,), (), "", True, f"exit code 0 but it did not write {CKPT}"),
        # a node other than trainer 0's writes no checkpoint: that is not a failure there
        (StageKind.TRAIN, (CKPT,), (), "", False, ""),
        (StageKind.INFER, (), (), "Predicts of a.png:('ab', 0.9)\n", True, ""),
        (
            StageKind.INFER,
            (),
            (),
            "Traceback (most recent call last):\n  ...\nValueError: x\n",
            True,
            "exit code 0 but its log shows a Python traceback (the predictor hid an error)",
        ),
        # a traceback in a train log (a warning printed by a worker) is left to the exit code
        (StageKind.TRAIN, (), (), "Traceback (most recent call last):\n", True, ""),
    ],
    ids=[
        "train-wrote-checkpoint",
        "train-no-checkpoint",
        "train-no-checkpoint-not-rank0",
        "infer-clean",
        "infer-hidden-traceback",
        "train-traceback-ignored",
    ],
)
def test_false_pass(tmp_path, kind, outputs, files, log, owns, expected):
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    log_file = tmp_path / "stage.log"
    log_file.write_text(log)
    assert false_pass(stage(kind, outputs), tmp_path, log_file, owns) == expected
