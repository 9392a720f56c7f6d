"""Work a run needs later, done while the harness waits for a stage's child.

A run spends most of its wall time waiting for its children. Work that its end needs
anyway and that does not depend on what the stages do (the report's imports: jinja2
and the report's modules, ~50 ms) is queued here and done in those waits, where it
costs nothing, instead of after the last stage, where it adds to the run.

The executor does them one at a time after it has started a child, for as long as the
child runs; each task is small (about one import) so that a quick child's exit is seen
late by at most that long. A task that fails is dropped: the same call fails again where
its result is really needed, and is reported there.
"""

from __future__ import annotations

import contextlib
import importlib
from collections import deque
from collections.abc import Callable
from functools import partial

_tasks: deque[Callable[[], object]] = deque()


def later(*tasks: Callable[[], object]) -> None:
    """Queue ``tasks`` for the coming waits, in order."""
    _tasks.extend(tasks)


def imports(*modules: str) -> tuple[Callable[[], object], ...]:
    """One task per module, imported in that order."""
    return tuple(partial(importlib.import_module, name) for name in modules)


def step() -> bool:
    """Do the next task; False when there was none (a Ctrl-C during it still reaches the caller)."""
    try:
        task = _tasks.popleft()
    except IndexError:
        return False
    with contextlib.suppress(Exception):
        task()
    return True
