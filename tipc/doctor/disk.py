"""Free disk where the stages write: checkpoints, exported models and logs of a nightly are gigabytes."""

from __future__ import annotations

from pathlib import Path

from tipc.doctor.checks import Check, State

GiB = 1 << 30
FAIL_BELOW = 1 * GiB  # a lite chain's checkpoints and logs alone
WARN_BELOW = 10 * GiB  # a whole_train chain of a large model, with its exports


def existing_parent(path: Path) -> Path:
    """The output root before the first run: the nearest directory that exists."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_disk(where: Path, free: int) -> Check:
    detail = f"{free / GiB:.1f} GiB free at {where}"
    if free < FAIL_BELOW:
        return Check("disk", State.FAIL, detail, f"free at least {FAIL_BELOW // GiB} GiB there, or pass --output-root")
    if free < WARN_BELOW:
        return Check("disk", State.WARN, detail, f"a whole_train mode may need {WARN_BELOW // GiB} GiB or more")
    return Check("disk", State.PASS, detail)
